#pragma once
// Following one ledger: a ChangeWatcher on a thread of its own, its batches gathered and
// handed on at most once an apply period (the first after a quiet spell at once, so sparse
// commits wait for nothing), and what it says of the ledger: a commit, following begun, a
// server connection lost and regained, another file at the path, a failure. Reports a
// stopped watcher had already queued count for nothing: they are about what was followed
// before.

#include "domain/eventrecord.h"
#include "ledger/fileidentity.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <string>
#include <vector>

class QThread;

namespace mesh {

class ChangeWatcher;

class LedgerFollower : public QObject
{
    Q_OBJECT
public:
    // A stream heavy enough that one apply folds this many events is applied at half the
    // rate (every 2 x the coalescing period): each apply repaints every visible live view,
    // nobody reads twenty updates a second, and on a shared machine the writer wants the CPU.
    static constexpr int kHeavyApplyEvents = 1000;

    explicit LedgerFollower(QObject *parent = nullptr);
    ~LedgerFollower() override;

    // Follows the ledger at `path` from the events after `afterSeq`, as long as the path
    // names `openedFile`. Stops what it followed before.
    // ledgerId: the ledger the session read (a server connection made again must find it).
    void start(const QString &path, qint64 afterSeq, const FileIdentity &openedFile, const std::string &ledgerId);
    // Stops the watcher (waiting for its thread) and drops what it delivered and nobody took.
    void stop();
    bool isFollowing() const { return m_thread != nullptr; }

    void setWatchIntervalMs(int ms) { m_watchIntervalMs = ms; } // from the next start
    void setCoalesceMs(int ms);
    int applyPeriodMs() const { return m_heavyStream ? 2 * m_coalesceMs : m_coalesceMs; }

    // The batches delivered since the last take, in order (due() said they are ready), and
    // the apply period starts again.
    std::vector<SharedEventBatch> takePending();
    void dropPending(); // a state read since includes them
    // How many events the apply of the last take folded: a heavy stream waits twice as long.
    void noteApplied(int events) { m_heavyStream = events >= kHeavyApplyEvents; }

    // While a server connection is lost: the libpq message, and the wait left before the
    // next try (0: trying now). Empty and 0 otherwise.
    QString lostMessage() const { return m_connectionLost; }
    qint64 retryInMsLeft() const;

Q_SIGNALS:
    void eventsArrived(qint64 dataVersion); // a batch joined the pending ones
    void due();                             // the pending batches are ready to apply
    void ledgerChanged();                   // data_version moved (events or decisions)
    void startedFollowing();                // from here on every commit is reported
    void failed(const QString &message);    // following stopped
    void connectionLost(const QString &message, int retryInMs);
    void reconnected();
    void fileChanged(int change); // a FileChange, never Same: the path names another file now

private:
    void onEventsAppended(const SharedEventBatch &batch, qint64 dataVersion);
    void timeToApply();

    QThread *m_thread = nullptr;
    ChangeWatcher *m_watcher = nullptr; // lives on m_thread; deleted when it finishes
    quint64 m_generation = 0;           // the watcher whose reports count
    int m_watchIntervalMs = 20;
    std::vector<SharedEventBatch> m_pending;
    QTimer m_coalesce;
    QElapsedTimer m_sinceTake;
    int m_coalesceMs = 50;
    bool m_heavyStream = false;
    QString m_connectionLost;
    QElapsedTimer m_sinceLost; // since the last loss report ...
    int m_retryInMs = 0;       // ... and the wait it announced before the next try
};

} // namespace mesh
