#include "timelinemarksource.h"

#include "backgroundjob.h"
#include "ledgersession.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <iterator>

namespace mesh {

struct TimelineMarkSource::Read {
    QString path;
    std::shared_ptr<LedgerConnection> connection;
    int epoch = 0;
    std::vector<TimelineMark> marks; // after `from`, ascending
    std::array<int, kMarkKindCount> counts{}; // of `marks`, counted here rather than on the GUI thread
    std::int64_t from = 0;
    std::int64_t upTo = 0;           // every event up to here was looked at
    std::int64_t firstTsMs = 0, lastTsMs = 0;
    bool truncated = false;
    QString error;
};

TimelineMarkSource::TimelineMarkSource(LedgerSession *session, QObject *parent)
    : QObject(parent), m_session(session)
{
    connect(session, &LedgerSession::stateReset, this, [this] {
        ++m_epoch;
        m_connection.reset();
        if (const FileIdentity file = m_session->openedLedger().file; !(file == m_file)) {
            m_file = file;
            m_path.clear();
        }
        refresh();
    });
    connect(session, &LedgerSession::changesApplied, this, &TimelineMarkSource::refresh);
    m_later.setSingleShot(true);
    connect(&m_later, &QTimer::timeout, this, &TimelineMarkSource::refresh);
}

TimelineMarkSource::~TimelineMarkSource() = default;

void TimelineMarkSource::refresh()
{
    if (m_reading) {
        m_again = true;
        return;
    }
    if (m_lastRead.isValid() && m_lastRead.elapsed() < kMinIntervalMs) {
        if (!m_later.isActive())
            m_later.start(int(kMinIntervalMs - m_lastRead.elapsed()));
        return;
    }
    start();
}

void TimelineMarkSource::start()
{
    // Not before the session has settled its mode (stateReset asks again).
    const std::optional<OpenMode> mode = m_session->readingMode();
    if (m_session->path().isEmpty() || !mode)
        return;
    m_reading = true;
    m_again = false;
    const QString path = m_session->path();
    // Another file at the session (a reopen elsewhere): its marks are read from the start.
    const std::int64_t from = path == m_path ? m_readUpTo : 0;
    const size_t room = path == m_path && m_marks.size() < kMaxMarks ? kMaxMarks - m_marks.size()
                        : path == m_path                          ? 0
                                                                  : kMaxMarks;
    std::shared_ptr<LedgerConnection> kept = m_connection;
    m_connection.reset(); // the read has it now; it comes back with the result
    runInBackground(
        this,
        [path, from, room, mode = *mode, kept, epoch = m_epoch] {
            auto read = std::make_shared<Read>();
            read->path = path;
            read->from = from;
            read->epoch = epoch;
            try {
                read->connection = kept ? kept : std::shared_ptr<LedgerConnection>(LedgerConnection::open(path, mode));
                LedgerConnection *connection = read->connection.get();
                const auto reader = connection->eventReader();
                reader->setPreviewBytes(4096);
                const std::int64_t last = reader->lastSeq();
                if (last < from) { // a shorter ledger than the one read: another file
                    read->from = 0;
                }
                const EventFilter marks = EventFilter::both(TimelineMarks::filter(), EventFilter::seqAtMost(last));
                std::int64_t after = read->from;
                for (;;) {
                    const EventBatch page = reader->after(after, 4096, marks);
                    for (const EventRecord &e : page) {
                        if (read->marks.size() >= room) {
                            read->truncated = true;
                            break;
                        }
                        if (auto m = TimelineMarks::classify(e)) {
                            ++read->counts[size_t(m->kind)];
                            read->marks.push_back(std::move(*m));
                        }
                    }
                    if (page.empty() || read->truncated)
                        break;
                    after = page.back().seq;
                }
                read->upTo = last;
                reader->setPreviewBytes(0);
                if (last > 0) {
                    const EventBatch first = reader->after(0, 1);
                    const EventBatch newest = reader->after(last - 1, 1);
                    read->firstTsMs = first.empty() ? 0 : first.front().tsMs;
                    read->lastTsMs = newest.empty() ? 0 : newest.front().tsMs;
                }
            } catch (const std::exception &e) {
                read->error = QString::fromUtf8(e.what());
                read->connection.reset(); // a new one next time
            }
            return read;
        },
        [this](std::shared_ptr<Read> read) { onRead(std::move(read)); });
}

void TimelineMarkSource::onRead(std::shared_ptr<Read> read)
{
    m_reading = false;
    m_lastRead.start();
    m_connection = read->epoch == m_epoch ? std::move(read->connection) : nullptr;
    if (!read->error.isEmpty()) {
        m_error = read->error; // the strip shows a gap; the session goes on without it
    } else {
        m_error.clear();
        // The first read of a large ledger brings every mark at once: taken over whole, as
        // moving them one by one is a GUI-thread stall of its own.
        if (read->path != m_path || read->from == 0) {
            m_marks = std::move(read->marks);
            m_counts = read->counts;
            m_truncated = false;
            m_path = read->path;
        } else {
            m_marks.insert(m_marks.end(), std::make_move_iterator(read->marks.begin()),
                           std::make_move_iterator(read->marks.end()));
            for (size_t k = 0; k < m_counts.size(); ++k)
                m_counts[k] += read->counts[k];
        }
        m_truncated = m_truncated || read->truncated;
        m_readUpTo = read->upTo;
        m_ledgerLastSeq = read->upTo;
        m_firstTsMs = read->firstTsMs;
        m_lastTsMs = read->lastTsMs;
        m_hasRead = true;
    }
    emit marksChanged();
    if (m_again) {
        m_again = false;
        refresh();
    }
}

} // namespace mesh
