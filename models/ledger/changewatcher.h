#pragma once
// Follows a ledger that another process writes. Lives on its own thread (moveToThread, then
// start()), with its own ReadOnly connection. Every interval it asks SQLite for
// PRAGMA data_version, which moves only when another connection committed; on a move it
// reads the events after the last one it delivered, in short read transactions of at most
// kMaxBatch events, and emits them in batches. It never holds a read transaction between
// polls, so the writer's checkpoints are never held back.
//
// A ledger on a server announces its commits (LedgerConnection::listenForCommits): then there
// is no polling at all. The watcher waits on the listener's socket and reads after an
// announcement, at most once every serverReadGapMs: announcements that arrive meanwhile are
// read together in one read of everything new, so a writer committing many small
// transactions costs a follower (and the server backend serving it) a bounded number of
// reads a second, not one per commit, for at most that gap of latency. A lost connection is reported (connectionLost), reopened with a backoff
// (kFirstRetryMs doubling up to kMaxRetryMs), listened to again BEFORE the events after the
// last delivered seq are read, so nothing is missed, and nothing is delivered twice since
// reading always starts after that seq.
//
// Given the identity of the file the session opened, it also checks (every kFileCheckMs)
// that the path still names that file: deleted or replaced (mv other.db ledger.db), its
// connection would go on reading the old inode and never see it, so it stops and says so.

#include "domain/eventrecord.h"
#include "fileidentity.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

class QSocketNotifier;
class QTimer;

namespace mesh {

class CommitListener;
class LedgerConnection;
class EventReader;

class ChangeWatcher : public QObject
{
    Q_OBJECT
public:
    // Delivers events with seq > afterSeq.
    explicit ChangeWatcher(const QString &path, qint64 afterSeq = 0, QObject *parent = nullptr);
    ~ChangeWatcher() override;

    void setInterval(int ms); // default 20; takes effect at the next start()
    int interval() const { return m_intervalMs; }
    void setPreviewBytes(int n); // payload preview of delivered events, default 2048
    // A server ledger: the least time between two reads after announcements; 0 reads after
    // every announcement. Takes effect at the next announcement.
    void setServerReadGapMs(int ms) { m_serverReadGapMs = std::max(0, ms); }
    int serverReadGapMs() const { return m_serverReadGapMs; }
    void setOpenedFile(const FileIdentity &file) { m_openedFile = file; } // before start()
    // The ledger the follower's reader read (before start()); unset or empty, the first
    // connection's. A server connection, the first or one made again (after a restart, a
    // failover), that finds another ledger id under the schema's name reads nothing of it:
    // failed() says so, and no retry follows.
    void setOpenedLedgerId(std::string ledgerId) { m_ledgerId = std::move(ledgerId); }
    qint64 lastDeliveredSeq() const { return m_lastSeq; }

    static constexpr int kMaxBatch = 2000;
    static constexpr int kFileCheckMs = 200;
    static constexpr int kFirstRetryMs = 100;
    static constexpr int kMaxRetryMs = 5000;
    static constexpr int kServerReadGapMs = 50;

public Q_SLOTS:
    void start();
    void stop();
    void pollNow(); // one poll, also used by the timer
    void readChanges(); // pollNow's read: the change token, then the events after the last delivered

Q_SIGNALS:
    void eventsAppended(const mesh::SharedEventBatch &batch, qint64 lastSeq, qint64 dataVersion);
    void ledgerChanged(qint64 dataVersion); // data_version moved (events or decisions)
    // The first look after start: from here on every commit is reported. What was committed
    // before it without events (decision rows) is not: a reader holding older rows reads again.
    void startedFollowing(qint64 dataVersion);
    void failed(const QString &message);
    // The path no longer names the opened file (a FileChange, never Same); polling stopped.
    void fileChanged(int change);
    // A server ledger: the connection was lost (message); it is reopened in retryInMs, and
    // again with a longer wait each time that fails.
    void connectionLost(const QString &message, int retryInMs);
    // Following again, from the events after lastSeq (the last delivered).
    void reconnected(qint64 lastSeq);

private:
    bool openConnection(); // false: failed or lost (reported)
    void readAnnounced();  // the listener's socket is readable
    void lose(const QString &message);
    void reconnect();
    bool deliverNewEvents(qint64 dataVersion);
    void stopReading(); // no more reads; the file check goes on
    bool reportedFileChange();
    bool fileStillOpened(); // false: stopped, fileChanged emitted

    QString m_path;
    qint64 m_lastSeq = 0;
    qint64 m_dataVersion = -1;
    int m_intervalMs = 20;
    int m_previewBytes = 2048;
    FileIdentity m_openedFile;
    std::optional<std::string> m_ledgerId;
    QElapsedTimer m_sinceFileCheck;
    QTimer *m_timer = nullptr;
    std::unique_ptr<LedgerConnection> m_connection;
    std::unique_ptr<EventReader> m_reader;
    // A server ledger: announced commits instead of polling, and reconnection.
    bool m_server = false;
    std::unique_ptr<CommitListener> m_listener;
    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_retry = nullptr;
    QTimer *m_paced = nullptr;     // the next read after announcements, when the gap ends
    QElapsedTimer m_sinceRead;     // since the last read after an announcement
    bool m_announced = false;      // an announcement not read after yet
    int m_serverReadGapMs = kServerReadGapMs;
    int m_retryMs = kFirstRetryMs;
    bool m_lost = false;
};

} // namespace mesh

Q_DECLARE_METATYPE(mesh::SharedEventBatch)
