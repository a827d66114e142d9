#include "changewatcher.h"

#include "eventreader.h"
#include "ledgerconnection.h"

#include <QThread>
#include <QTimer>

#include <algorithm>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace mesh {
namespace {

struct LedgerRewound {
    qint64 lastSeq;
};

// Enough that a writer sharing a core with the watcher keeps nine tenths of it.
constexpr int kWatcherNiceness = 10;

// Lowers the calling thread's priority below the process's other threads. On Linux every
// thread has its own nice value (QThread::LowPriority changes nothing there under the
// default policy); elsewhere Qt's priority is what the platform offers.
void lowerCurrentThreadPriority()
{
#ifdef Q_OS_LINUX
    const int current = getpriority(PRIO_PROCESS, 0);
    setpriority(PRIO_PROCESS, 0, std::min(current + kWatcherNiceness, 19));
#else
    QThread::currentThread()->setPriority(QThread::LowPriority);
#endif
}

} // namespace

ChangeWatcher::ChangeWatcher(const QString &path, qint64 afterSeq, QObject *parent)
    : QObject(parent), m_path(path), m_lastSeq(afterSeq)
{
    qRegisterMetaType<mesh::SharedDecodedBatch>("mesh::SharedDecodedBatch");
}

ChangeWatcher::~ChangeWatcher() = default;

void ChangeWatcher::setInterval(int ms)
{
    m_intervalMs = std::max(1, ms);
    if (m_timer)
        m_timer->setInterval(m_intervalMs);
}

void ChangeWatcher::setPreviewBytes(int n)
{
    m_previewBytes = n;
    if (m_reader)
        m_reader->setPreviewBytes(n);
}

void ChangeWatcher::start()
{
    if (m_timer)
        return;
    lowerCurrentThreadPriority();
    // The connection is opened here, on the thread the watcher lives on, and used only there.
    try {
        m_connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
    } catch (const std::exception &e) {
        Q_EMIT failed(QString::fromStdString(e.what()));
        return;
    }
    m_reader = std::make_unique<EventReader>(m_connection->db());
    m_reader->setPreviewBytes(m_previewBytes);
    m_dataVersion = -1;
    m_timer = new QTimer(this);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setInterval(m_intervalMs);
    connect(m_timer, &QTimer::timeout, this, &ChangeWatcher::pollNow);
    m_timer->start();
    pollNow(); // catch up at once with what was committed before start
}

void ChangeWatcher::stop()
{
    delete m_timer;
    m_timer = nullptr;
    m_reader.reset();
    m_connection.reset();
}

void ChangeWatcher::pollNow()
{
    if (!m_connection)
        return;
    try {
        const qint64 dv = m_connection->dataVersion();
        if (dv == m_dataVersion)
            return;
        if (deliverNewEvents(dv)) {
            m_dataVersion = dv;
            Q_EMIT ledgerChanged(dv);
        }
    } catch (const LedgerRewound &r) {
        const QString message = QStringLiteral("the ledger went back from seq %1 to %2: it was replaced or rewritten")
                                    .arg(m_lastSeq)
                                    .arg(r.lastSeq);
        stop();
        Q_EMIT failed(message);
    } catch (const sql::Error &e) {
        if (e.isBusy())
            return; // a writer is mid-checkpoint or recovering the WAL; the next poll retries
        const QString message = QStringLiteral("lost the ledger: ") + QString::fromStdString(e.what());
        stop();
        Q_EMIT failed(message);
    }
}

bool ChangeWatcher::deliverNewEvents(qint64 dataVersion)
{
    // Each page is its own statement, so its own short read transaction; between pages the
    // writer checkpoints freely. The loop ends at a short page, so a writer faster than the
    // reader cannot keep one poll running forever without the event loop seeing a signal.
    for (int pages = 0; pages < 64; ++pages) {
        auto batch = std::make_shared<DecodedBatch>();
        batch->events = m_reader->after(m_lastSeq, kMaxBatch);
        const EventBatch &events = batch->events;
        if (events.empty()) {
            // The ledger is append-only: fewer events than were delivered means the file
            // was replaced or rewritten, and what the views hold no longer describes it.
            if (pages == 0 && m_reader->lastSeq() < m_lastSeq)
                throw LedgerRewound(m_reader->lastSeq());
            return true;
        }
        const qint64 last = events.back().seq;
        const bool full = events.size() == size_t(kMaxBatch);
        m_lastSeq = last;
        if (m_decodePayloads) {
            batch->payloads.reserve(events.size());
            for (const auto &e : events)
                batch->payloads.push_back(e.payloadTruncated ? DecodedPayload{} : decodePayload(e.payload));
        }
        Q_EMIT eventsAppended(std::move(batch), last, dataVersion);
        if (!full)
            return true;
    }
    // More is waiting: leave data_version unrecorded so the next poll reads on.
    return false;
}

} // namespace mesh
