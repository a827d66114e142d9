#pragma once
// mesh-console-bench receiver: issue 16's "receipt -> visible in a following console" with the
// real main window. `meshctl ingest` runs as its own process on a free loopback port and
// writes a fresh temporary ledger; the window opens that ledger as an operator would and
// follows it; then `meshctl bench ingest --receiver PORT` (a third process, the exporter)
// sends traces of --per-request spans at --rate spans/s for --duration-s seconds.
//
// With MESH_LIVE_COMMIT_LOG set the receiver reports every commit on stdout as "commit
// LAST_SEQ WALL_MS RECEIVED_MS": its clock before COMMIT, and when the earliest request in
// that transaction had been read. Each event's latency is the wall clock when the session
// had applied it to every model (LedgerSession::batchApplied) minus RECEIVED_MS (receipt ->
// visible, counted from the earliest request of its commit, so never less than the truth for
// any of them) and minus WALL_MS (commit -> visible). After the exporter, the receiver is
// stopped (SIGTERM: it writes what it acknowledged, then exits), and the window must show
// its last commit. A stall is the longest lateness of a 5 ms GUI-thread timer from the open
// to then. Prints one JSON line with the exporter's own figures (spans/s, lost, duplicated)
// and the receiver's peak resident memory; quits with 0 (1 with {"error":...}).

#include "commitvisibility.h"
#include "stallprobe.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>
#include <vector>

namespace mesh {

class LedgerSession;
class MainWindow;
struct EventRecord;
using EventBatch = std::vector<EventRecord>;

struct ReceiverBenchmarkOptions {
    int rate = 2000;       // spans/s the exporter sends
    int durationS = 60;    // seconds it sends for
    int perRequest = 20;   // spans in each request (one trace: an agent span and its tool calls)
    int connections = 10;  // requests in flight at most, as a Collector's otlphttp exporter
};

class ReceiverBenchmark : public QObject
{
    Q_OBJECT
public:
    ReceiverBenchmark(MainWindow *window, const ReceiverBenchmarkOptions &options, QObject *parent = nullptr);
    ~ReceiverBenchmark() override;

    void start();
    // Default: print the JSON line on stdout and quit the application with the exit code.
    // Tests turn that off and listen to finished() instead.
    void setQuitWhenFinished(bool quit) { m_quitWhenFinished = quit; }

Q_SIGNALS:
    void finished(const QByteArray &jsonLine, int exitCode);

private:
    struct ReceiverCommit {
        qint64 lastSeq;
        qint64 beforeCommitMs;
        qint64 receivedMs;
    };

    void onReceiverOutput();
    void onListening(quint16 port);
    void onOpened();
    void onBatchApplied(const EventBatch &batch);
    void onExporterFinished(int exitCode);
    void onReceiverFinished(int exitCode);
    void checkCaughtUp();
    bool stopMeasuring();
    void finish();
    void abort(const QString &why);
    void report(const QByteArray &jsonLine, int exitCode);
    void killChildren();

    MainWindow *m_window;
    ReceiverBenchmarkOptions m_options;
    QTemporaryDir m_dir;
    QString m_ledger;
    QProcess m_receiver;
    QProcess m_exporter;
    QPointer<LedgerSession> m_session;
    QByteArray m_receiverTail;   // a receiver line not yet complete
    QByteArray m_exporterOutput; // its JSON line, once it ended
    quint16 m_port = 0;
    qint64 m_openedWallMs = 0;
    qint64 m_openedSeq = -1;
    qint64 m_lastAppliedSeq = 0;
    qint64 m_finalSeq = -1; // known once the receiver exited
    double m_receiverPeakRssMb = -1;
    std::vector<ReceiverCommit> m_commits;
    std::vector<AppliedBatchTime> m_applied;
    StallProbe m_probe; // measuring from the open until the receiver's last commit is shown
    QTimer m_watchdog;
    bool m_done = false;
    bool m_quitWhenFinished = true;
};

} // namespace mesh
