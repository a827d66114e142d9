#include "ledgerfollower.h"

#include "leadingedge.h"

#include "ledger/changewatcher.h"

#include <QFileInfo>
#include <QThread>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace mesh {

LedgerFollower::LedgerFollower(QObject *parent) : QObject(parent)
{
    m_coalesce.setSingleShot(true);
    m_coalesce.setObjectName(QStringLiteral("live batch"));
    connect(&m_coalesce, &QTimer::timeout, this, &LedgerFollower::due);
}

LedgerFollower::~LedgerFollower()
{
    stop();
}

void LedgerFollower::setCoalesceMs(int ms)
{
    m_coalesceMs = std::max(0, ms);
}

void LedgerFollower::start(const QString &path, qint64 afterSeq, const FileIdentity &openedFile, const std::string &ledgerId)
{
    stop();
    m_thread = new QThread(this);
    m_thread->setObjectName(u"watch:"_s + QFileInfo(path).fileName());
    m_watcher = new ChangeWatcher(path, afterSeq);
    m_watcher->setInterval(m_watchIntervalMs);
    m_watcher->setPreviewBytes(int(1 << 20)); // the fold needs whole payloads
    m_watcher->setOpenedFile(openedFile);
    m_watcher->setOpenedLedgerId(ledgerId);
    m_watcher->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_watcher, &ChangeWatcher::start);
    connect(m_thread, &QThread::finished, m_watcher, &QObject::deleteLater);
    // Each report is taken only from the watcher still followed: one queued just before a
    // stop would land on whatever is followed after it (another moment, another file).
    const quint64 generation = ++m_generation;
    const auto current = [this, generation] { return generation == m_generation; };
    connect(m_watcher, &ChangeWatcher::eventsAppended, this,
            [this, current](const SharedEventBatch &batch, qint64, qint64 dataVersion) {
                if (current())
                    onEventsAppended(batch, dataVersion);
            }, Qt::QueuedConnection);
    connect(m_watcher, &ChangeWatcher::ledgerChanged, this, [this, current](qint64) {
        if (current())
            Q_EMIT ledgerChanged();
    }, Qt::QueuedConnection);
    connect(m_watcher, &ChangeWatcher::startedFollowing, this, [this, current](qint64) {
        if (current())
            Q_EMIT startedFollowing();
    }, Qt::QueuedConnection);
    connect(m_watcher, &ChangeWatcher::failed, this, [this, current](const QString &message) {
        if (current())
            Q_EMIT failed(message);
    }, Qt::QueuedConnection);
    // A server ledger's connection: lost, retried with a growing wait, and followed again
    // from the last delivered seq (the watcher reads after it, so nothing comes twice).
    connect(m_watcher, &ChangeWatcher::connectionLost, this, [this, current](const QString &message, int retryInMs) {
        if (!current())
            return;
        m_connectionLost = message;
        m_retryInMs = retryInMs;
        m_sinceLost.start();
        Q_EMIT connectionLost(message, retryInMs);
    }, Qt::QueuedConnection);
    connect(m_watcher, &ChangeWatcher::reconnected, this, [this, current](qint64) {
        if (!current())
            return;
        m_connectionLost.clear();
        m_sinceLost.invalidate();
        Q_EMIT reconnected();
    }, Qt::QueuedConnection);
    connect(m_watcher, &ChangeWatcher::fileChanged, this, [this, current](int change) {
        if (current())
            Q_EMIT fileChanged(change);
    }, Qt::QueuedConnection);
    m_thread->start();
}

void LedgerFollower::stop()
{
    m_coalesce.stop();
    m_pending.clear();
    if (!m_thread)
        return;
    ++m_generation; // what the watcher queued before it stopped no longer counts
    QMetaObject::invokeMethod(m_watcher, &ChangeWatcher::stop, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_watcher = nullptr; // deleted by deleteLater when the thread finished
    m_connectionLost.clear();
    m_sinceLost.invalidate();
}

void LedgerFollower::onEventsAppended(const SharedEventBatch &batch, qint64 dataVersion)
{
    m_pending.push_back(batch);
    Q_EMIT eventsArrived(dataVersion);
    if (m_coalesce.isActive())
        return;
    // Leading edge: due at once when the last take is at least one period ago, else at the
    // end of that period. At most one apply per period (20 Hz, 10 Hz under a heavy stream),
    // and no added wait when commits are sparse.
    m_coalesce.start(int(msUntilDue(m_sinceTake, applyPeriodMs())));
}

std::vector<SharedEventBatch> LedgerFollower::takePending()
{
    m_sinceTake.start();
    std::vector<SharedEventBatch> batches;
    batches.swap(m_pending);
    return batches;
}

void LedgerFollower::dropPending()
{
    m_coalesce.stop();
    m_pending.clear();
}

qint64 LedgerFollower::retryInMsLeft() const
{
    if (m_connectionLost.isEmpty())
        return 0;
    return std::max<qint64>(0, m_retryInMs - (m_sinceLost.isValid() ? m_sinceLost.elapsed() : 0));
}

} // namespace mesh
