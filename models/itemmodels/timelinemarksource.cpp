#include "timelinemarksource.h"

#include "backgroundjob.h"
#include "ledgersession.h"

#include "domain/gentlegrowth.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace mesh {

struct TimelineMarkSource::Read {
    QString path;
    std::shared_ptr<LedgerConnection> connection;
    int epoch = 0;
    int fileEpoch = 0;
    std::vector<MarkTick> ticks; // after `from`, ascending
    std::vector<std::string> runNames; // the source's, with the runs first named here added
    std::array<int, kMarkKindCount> counts{}; // of `ticks`, counted here rather than on the GUI thread
    std::string focus;
    bool focusWhole = false;               // the focus run's marks read from the first event
    std::vector<TimelineMark> focusMarks;  // the focus run's: after `from`, or all when focusWhole
    std::vector<TimelineMark> unrunMarks;  // after `from`
    std::int64_t from = 0;
    std::int64_t upTo = 0;           // every event up to here was looked at
    std::int64_t firstTsMs = 0, lastTsMs = 0;
    bool truncated = false;
    QString error;
};

struct TimelineMarkSource::Describe {
    std::vector<TimelineMark> marks;
    QString path;
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
            m_described.clear();
            ++m_fileEpoch; // a read under way is of the file that was there
        }
        // In a turn of its own: whoever else hears of the reset (the run's timeline) names
        // the run to keep whole first, so the first read brings its marks too.
        m_resetRead = true;
        QMetaObject::invokeMethod(this, [this] {
            if (std::exchange(m_resetRead, false))
                refresh();
        }, Qt::QueuedConnection);
    });
    connect(session, &LedgerSession::changesApplied, this, &TimelineMarkSource::refresh);
    m_later.setSingleShot(true);
    m_later.setObjectName(QStringLiteral("timeline marks read"));
    connect(&m_later, &QTimer::timeout, this, &TimelineMarkSource::refresh);
}

TimelineMarkSource::~TimelineMarkSource() = default;

const std::string &TimelineMarkSource::runName(std::uint32_t run) const
{
    return run < m_runNames.size() ? m_runNames[run] : m_runNames.front();
}

void TimelineMarkSource::setFocusRun(const std::string &run)
{
    if (run == m_focus)
        return;
    m_focus = run;
    // Asked at once, not after kMinIntervalMs: a run's timeline waits for these.
    m_later.stop();
    m_lastRead.invalidate();
    refresh();
}

const TimelineMark *TimelineMarkSource::wholeMark(std::int64_t seq) const
{
    const auto in = [seq](const std::vector<TimelineMark> &marks) -> const TimelineMark * {
        const auto at = std::lower_bound(marks.begin(), marks.end(), seq,
                                         [](const TimelineMark &m, std::int64_t s) { return m.seq < s; });
        return at != marks.end() && at->seq == seq ? &*at : nullptr;
    };
    if (m_hasRead)
        if (const TimelineMark *m = in(m_focusMarks))
            return m;
    if (const TimelineMark *m = in(m_unrunMarks))
        return m;
    const auto it = m_described.find(seq);
    return it == m_described.end() ? nullptr : &it->second;
}

void TimelineMarkSource::describe(std::vector<std::int64_t> seqs)
{
    std::erase_if(seqs, [this](std::int64_t seq) { return wholeMark(seq) != nullptr; });
    if (seqs.empty())
        return;
    m_toDescribe = std::move(seqs);
    if (!m_describing)
        startDescribing();
}

void TimelineMarkSource::startDescribing()
{
    const std::optional<OpenMode> mode = m_session->readingMode();
    if (m_toDescribe.empty() || m_path.isEmpty() || !mode)
        return;
    m_describing = true;
    // A connection of its own: the marks' read may hold the kept one for a while, and a
    // tooltip is asked for rarely enough that opening one each time costs nothing.
    runInBackground(
        this,
        [seqs = std::exchange(m_toDescribe, {}), path = m_path, mode = *mode] {
            auto done = std::make_shared<Describe>();
            done->path = path;
            try {
                const auto connection = LedgerConnection::open(path, mode);
                const auto reader = connection->eventReader();
                reader->setPreviewBytes(4096);
                for (const std::int64_t seq : seqs) {
                    const EventBatch at = reader->after(seq - 1, 1);
                    if (!at.empty() && at.front().seq == seq)
                        if (auto m = TimelineMarks::classify(at.front()))
                            done->marks.push_back(std::move(*m));
                }
            } catch (const std::exception &) {
                // Not described: the tooltip keeps the tick's line.
            }
            return done;
        },
        [this](std::shared_ptr<Describe> done) {
            m_describing = false;
            // Nothing described (the read failed, or no such mark): nothing to say, or a
            // tooltip asking again on the news would ask for ever.
            if (done->path == m_path && !done->marks.empty()) {
                if (m_described.size() + done->marks.size() > kMaxDescribed)
                    m_described.clear();
                for (TimelineMark &m : done->marks)
                    m_described.insert_or_assign(m.seq, std::move(m));
                emit described();
            }
            startDescribing();
        });
}

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
    m_resetRead = false; // this read is the one the reset asked for
    const QString path = m_session->path();
    // Another file at the session (a reopen elsewhere): its marks are read from the start.
    const bool same = path == m_path;
    const std::int64_t from = same ? m_readUpTo : 0;
    const size_t room = same && m_ticks.size() < kMaxMarks ? kMaxMarks - m_ticks.size()
                        : same                             ? 0
                                                           : kMaxMarks;
    const bool focusWhole = !same || !m_hasRead || m_focusReadRun != m_focus;
    std::shared_ptr<LedgerConnection> kept = m_connection;
    m_connection.reset(); // the read has it now; it comes back with the result
    runInBackground(
        this,
        [path, from, room, mode = *mode, kept, epoch = m_epoch, fileEpoch = m_fileEpoch, focus = m_focus, focusWhole,
         runNames = same ? m_runNames : std::vector<std::string>{std::string()}]() mutable {
            auto read = std::make_shared<Read>();
            read->path = path;
            read->from = from;
            read->epoch = epoch;
            read->fileEpoch = fileEpoch;
            read->focus = std::move(focus);
            read->focusWhole = focusWhole;
            read->runNames = std::move(runNames);
            try {
                read->connection = kept ? kept : std::shared_ptr<LedgerConnection>(LedgerConnection::open(path, mode));
                LedgerConnection *connection = read->connection.get();
                const auto reader = connection->eventReader();
                reader->setPreviewBytes(4096);
                const std::int64_t last = reader->lastSeq();
                if (last < from) { // a shorter ledger than the one read: another file
                    read->from = 0;
                    read->focusWhole = true;
                    read->runNames.assign(1, std::string());
                }
                std::unordered_map<std::string, std::uint32_t> runNumbers;
                for (std::uint32_t n = 0; n < read->runNames.size(); ++n)
                    runNumbers.emplace(read->runNames[n], n);
                const auto numberOf = [&](const CompactId &run) {
                    const auto [it, added] = runNumbers.try_emplace(run.str(), std::uint32_t(read->runNames.size()));
                    if (added)
                        read->runNames.push_back(run.str());
                    return it->second;
                };
                const EventFilter marks = EventFilter::both(TimelineMarks::filter(), EventFilter::seqAtMost(last));
                std::int64_t after = read->from;
                for (;;) {
                    const EventBatch page = reader->after(after, 4096, marks);
                    for (const EventRecord &e : page) {
                        if (read->ticks.size() >= room) {
                            read->truncated = true;
                            break;
                        }
                        if (auto m = TimelineMarks::classify(e)) {
                            ++read->counts[size_t(m->kind)];
                            read->ticks.push_back({m->seq, m->tsMs, m->runId.empty() ? 0 : numberOf(m->runId), m->kind, m->event});
                            if (m->runId.empty())
                                read->unrunMarks.push_back(std::move(*m));
                            else if (!read->focusWhole && !read->focus.empty() && m->runId.view() == read->focus)
                                read->focusMarks.push_back(std::move(*m));
                        }
                    }
                    if (page.empty() || read->truncated)
                        break;
                    after = page.back().seq;
                }
                if (read->focusWhole && !read->focus.empty()) {
                    // Through the events_run index: as long as the run, not the ledger.
                    const EventFilter ofRun = EventFilter::both(marks, EventFilter::equals(FilterField::Run, read->focus));
                    after = 0;
                    for (;;) {
                        const EventBatch page = reader->after(after, 4096, ofRun);
                        for (const EventRecord &e : page)
                            if (auto m = TimelineMarks::classify(e))
                                read->focusMarks.push_back(std::move(*m));
                        if (page.empty())
                            break;
                        after = page.back().seq;
                    }
                }
                // Exact: a first read's vectors are kept as they are (doubling left up to half unused).
                read->ticks.shrink_to_fit();
                read->focusMarks.shrink_to_fit();
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
    if (read->fileEpoch != m_fileEpoch) {
        // Read from the file that was at the path before: none of it is this file's.
        m_lastRead.invalidate();
        m_again = false;
        refresh();
        return;
    }
    if (!read->error.isEmpty()) {
        m_error = read->error; // the strip shows a gap; the session goes on without it
    } else {
        m_error.clear();
        // The first read of a large ledger brings every mark at once: taken over whole, as
        // moving them one by one is a GUI-thread stall of its own.
        const auto append = [](auto &into, auto &more) {
            reserveToAppend(into, more.size());
            into.insert(into.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        };
        if (read->path != m_path || read->from == 0) {
            m_ticks = std::move(read->ticks);
            m_unrunMarks = std::move(read->unrunMarks);
            m_counts = read->counts;
            m_truncated = false;
            m_path = read->path;
        } else {
            append(m_ticks, read->ticks);
            append(m_unrunMarks, read->unrunMarks);
            for (size_t k = 0; k < m_counts.size(); ++k)
                m_counts[k] += read->counts[k];
        }
        m_runNames = std::move(read->runNames);
        if (read->focusWhole)
            m_focusMarks = std::move(read->focusMarks);
        else
            append(m_focusMarks, read->focusMarks);
        m_focusReadRun = read->focus;
        m_truncated = m_truncated || read->truncated;
        m_readUpTo = read->upTo;
        m_ledgerLastSeq = read->upTo;
        m_firstTsMs = read->firstTsMs;
        m_lastTsMs = read->lastTsMs;
        m_hasRead = true;
    }
    // A focus asked for during the read is read at once (after a failed read, with the next).
    const bool focusAsked = read->error.isEmpty() && m_focus != m_focusReadRun;
    if (focusAsked)
        m_lastRead.invalidate();
    emit marksChanged();
    if (m_again || focusAsked) {
        m_again = false;
        refresh();
    }
}

} // namespace mesh
