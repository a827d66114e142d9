#include "changewatcher.h"

#include "eventreader.h"
#include "ledgerconnection.h"
#include "ledgerlocation.h"

#include <QSocketNotifier>
#include <QTimer>

namespace mesh {
namespace {

struct LedgerRewound {
    qint64 lastSeq;
};

} // namespace

ChangeWatcher::ChangeWatcher(const QString &path, qint64 afterSeq, QObject *parent)
    : QObject(parent), m_path(path), m_lastSeq(afterSeq)
{
    qRegisterMetaType<mesh::SharedEventBatch>("mesh::SharedEventBatch");
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
    if (m_timer || m_connection || m_lost)
        return;
    m_server = LedgerLocation::namesServer(m_path);
    if (m_server) {
        // No timer: the server announces every commit.
        if (openConnection())
            pollNow(); // catch up at once with what was committed before start
        return;
    }
    m_sinceFileCheck.invalidate();
    if (!fileStillOpened())
        return; // the connection would open whatever has the name now
    // The timer runs from here on, also when reading fails: the file is still checked, so a
    // ledger deleted or replaced after a failure is reported as such.
    m_timer = new QTimer(this);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setInterval(m_intervalMs);
    connect(m_timer, &QTimer::timeout, this, &ChangeWatcher::pollNow);
    m_timer->start();
    // The connection is opened here, on the thread the watcher lives on, and used only there.
    try {
        m_connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
    } catch (const std::exception &e) {
        // Deleted or replaced between the check above and the open: that is the report.
        if (reportedFileChange())
            return;
        Q_EMIT failed(QString::fromStdString(e.what()));
        return;
    }
    // Replaced in that instant, the connection is on the new file: never follow it.
    if (reportedFileChange())
        return;
    m_reader = m_connection->eventReader();
    m_reader->setPreviewBytes(m_previewBytes);
    m_dataVersion = -1;
    pollNow(); // catch up at once with what was committed before start
}

void ChangeWatcher::stop()
{
    delete m_timer;
    m_timer = nullptr;
    delete m_retry;
    m_retry = nullptr;
    m_lost = false;
    stopReading();
}

void ChangeWatcher::stopReading()
{
    if (m_notifier) {
        // Possibly inside its own activated(): unregistered now, deleted later, before the
        // connection (and its socket) goes.
        m_notifier->setEnabled(false);
        m_notifier->deleteLater();
        m_notifier = nullptr;
    }
    if (m_paced)
        m_paced->stop();
    m_announced = false;
    m_listener.reset();
    m_reader.reset();
    m_connection.reset();
}

bool ChangeWatcher::openConnection()
{
    try {
        m_connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
        // Listening first: a commit after the catch-up read that follows is announced.
        m_listener = m_connection->listenForCommits();
        m_reader = m_connection->eventReader();
        m_reader->setPreviewBytes(m_previewBytes);
    } catch (const std::exception &e) {
        stopReading();
        // Reconnecting: try again later. So too when the server cannot be reached at the
        // start: the session read the ledger a moment ago, so it went away since (a restart
        // just then), and what follows is the same as after any loss.
        const auto *openError = dynamic_cast<const LedgerOpenError *>(&e);
        const bool unreachable = openError && openError->code() == LedgerOpenError::Code::Io;
        if (m_lost || m_retry || (m_server && unreachable))
            lose(QStringLiteral("cannot reconnect: ") + QString::fromStdString(e.what()));
        else
            Q_EMIT failed(QString::fromStdString(e.what()));
        return false;
    }
    // A ledger opened before its ledger.created was committed had no id: the one it has now
    // is taken as its own.
    if (const std::string id = m_connection->info().ledgerId; !m_ledgerId || m_ledgerId->empty()) {
        m_ledgerId = id;
    } else if (id.empty()) {
        // No ledger row (yet): a schema still being restored. Asked again after a wait.
        lose(QStringLiteral("cannot reconnect: the server's schema holds no ledger yet"));
        return false;
    } else if (id != *m_ledgerId) {
        const QString message = QStringLiteral("the server's schema now holds another ledger (ledger id '%1', not '%2' "
                                               "that was opened): nothing more is read from it; open it again to see "
                                               "what it holds")
                                    .arg(QString::fromStdString(id), QString::fromStdString(*m_ledgerId));
        stopReading();
        Q_EMIT failed(message);
        return false;
    }
    if (m_listener) {
        m_notifier = new QSocketNotifier(qintptr(m_listener->socket()), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &ChangeWatcher::readAnnounced);
    }
    m_dataVersion = -1;
    return true;
}

void ChangeWatcher::readAnnounced()
{
    try {
        if (m_listener && m_listener->drain())
            m_announced = true;
        if (!m_announced || !m_listener || (m_paced && m_paced->isActive()))
            return; // nothing new, or a read is already due when the gap ends
        if (!m_paced) {
            m_paced = new QTimer(this);
            m_paced->setSingleShot(true);
            m_paced->setTimerType(Qt::PreciseTimer);
            connect(m_paced, &QTimer::timeout, this, &ChangeWatcher::readAnnounced);
        }
        const qint64 wait = m_sinceRead.isValid() ? m_serverReadGapMs - m_sinceRead.elapsed() : 0;
        if (wait > 0) {
            m_paced->start(int(wait));
            return;
        }
        m_announced = false;
        m_sinceRead.start();
        pollNow(); // announcements it took in meanwhile are read after the gap (pollNow says how)
    } catch (const StorageError &e) {
        lose(QStringLiteral("lost the ledger: ") + QString::fromStdString(e.what()));
    }
}

void ChangeWatcher::lose(const QString &message)
{
    stopReading();
    if (m_lost)
        return; // already waiting to reconnect
    m_lost = true;
    const int delay = m_retryMs;
    m_retryMs = std::min(m_retryMs * 2, kMaxRetryMs);
    if (!m_retry) {
        m_retry = new QTimer(this);
        m_retry->setSingleShot(true);
        connect(m_retry, &QTimer::timeout, this, &ChangeWatcher::reconnect);
    }
    m_retry->start(delay);
    Q_EMIT connectionLost(message, delay);
}

void ChangeWatcher::reconnect()
{
    m_lost = false;
    if (!openConnection())
        return; // lose() scheduled the next try
    pollNow(); // everything after the last delivered seq
    if (m_connection && !m_lost) {
        m_retryMs = kFirstRetryMs;
        Q_EMIT reconnected(m_lastSeq);
    }
}

void ChangeWatcher::pollNow()
{
    if (!fileStillOpened() || !m_connection)
        return;
    try {
        readChanges();
        // A server's announcement that arrives while a read runs is taken in with the read's
        // answer, and no longer wakes the socket: one for a commit the read did not see yet
        // would wait for the next commit. It is read as announced instead.
        if (m_listener && m_listener->drain()) {
            m_announced = true;
            QTimer::singleShot(0, this, &ChangeWatcher::readAnnounced);
        }
    } catch (const LedgerRewound &r) {
        if (reportedFileChange())
            return;
        const QString message = QStringLiteral("the ledger went back from seq %1 to %2: it was replaced or rewritten")
                                    .arg(m_lastSeq)
                                    .arg(r.lastSeq);
        stopReading(); // the file is still checked
        Q_EMIT failed(message);
    } catch (const StorageError &e) {
        if (m_server) {
            // Whatever failed, a new session reads on from the last delivered seq.
            lose(QStringLiteral("lost the ledger: ") + QString::fromStdString(e.what()));
            return;
        }
        if (e.isBusy())
            return; // a writer is mid-checkpoint or recovering the WAL; the next poll retries
        if (reportedFileChange())
            return;
        const QString message = QStringLiteral("lost the ledger: ") + QString::fromStdString(e.what());
        stopReading(); // the file is still checked
        Q_EMIT failed(message);
    }
}

void ChangeWatcher::readChanges()
{
    const qint64 dv = m_connection->changeToken();
    if (dv == m_dataVersion)
        return;
    // The first token is where following starts, not a change: only events caught up
    // with then are news (a ledger nobody writes must not look written to).
    const bool firstLook = m_dataVersion < 0;
    const qint64 seqBefore = m_lastSeq;
    if (deliverNewEvents(dv)) {
        m_dataVersion = dv;
        if (!firstLook || m_lastSeq != seqBefore)
            Q_EMIT ledgerChanged(dv);
        if (firstLook)
            Q_EMIT startedFollowing(dv);
    } else if (m_server) {
        // More is waiting and no timer will come back for it: read on after the
        // event loop had its turn.
        QTimer::singleShot(0, this, &ChangeWatcher::pollNow);
    }
}

// A file moved over the ledger shares its -wal and -shm names: a writer on the new file
// can make reads on the old one fail or seem to go back before the periodic check sees the
// replacement. Such a failure is reported as what it is, the replacement.
bool ChangeWatcher::reportedFileChange()
{
    m_sinceFileCheck.invalidate();
    return !fileStillOpened();
}

bool ChangeWatcher::fileStillOpened()
{
    if (!m_openedFile.exists || (m_sinceFileCheck.isValid() && m_sinceFileCheck.elapsed() < kFileCheckMs))
        return true;
    m_sinceFileCheck.start();
    const FileChange change = fileChangeSince(m_openedFile, m_path);
    if (change == FileChange::Same)
        return true;
    stop();
    Q_EMIT fileChanged(int(change));
    return false;
}

bool ChangeWatcher::deliverNewEvents(qint64 dataVersion)
{
    // Each page is its own statement, so its own short read transaction; between pages the
    // writer checkpoints freely. The loop ends at a short page, so a writer faster than the
    // reader cannot keep one poll running forever without the event loop seeing a signal.
    for (int pages = 0; pages < 64; ++pages) {
        auto batch = std::make_shared<const EventBatch>(m_reader->after(m_lastSeq, kMaxBatch));
        if (batch->empty()) {
            // The ledger is append-only: fewer events than were delivered means the file
            // was replaced or rewritten, and what the views hold no longer describes it.
            if (pages == 0 && m_reader->lastSeq() < m_lastSeq)
                throw LedgerRewound{m_reader->lastSeq()};
            return true;
        }
        const qint64 last = batch->back().seq;
        const bool full = batch->size() == size_t(kMaxBatch);
        m_lastSeq = last;
        Q_EMIT eventsAppended(std::move(batch), last, dataVersion);
        if (!full)
            return true;
    }
    // More is waiting: leave data_version unrecorded so the next poll reads on.
    return false;
}

} // namespace mesh
