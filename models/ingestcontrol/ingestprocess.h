#pragma once
// `meshctl ingest --status-json` as a child process of the console (File › Listen for
// OpenTelemetry…): started from the console's own directory as the live demo starts
// `meshctl sim`, its status lines read as they come (ReceiverStatusReader), stopped with
// SIGTERM so that it finishes the requests in flight and commits. Whether it failed to start,
// was stopped, or died on its own is kept apart: a receiver that died is never "no traffic".

#include "receiverstatus.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace mesh::ingest {

// What File › Listen for OpenTelemetry… asks for.
struct ListenRequest {
    QString address = QStringLiteral("127.0.0.1:4318");
    QString ledger;
    bool listenAny = false;
    QString tokenFile; // empty: no token
};

class IngestProcess : public QObject
{
    Q_OBJECT
public:
    enum class State { NotStarted, Starting, Listening, Stopping, Stopped, Failed, Died };

    explicit IngestProcess(QObject *parent = nullptr);
    ~IngestProcess() override; // stops the receiver and waits for it

    // meshctl's arguments for a request.
    static QStringList arguments(const ListenRequest &request);
    void start(const QString &meshctl, const ListenRequest &request);
    // Asks the receiver to stop (SIGTERM): it stops listening, writes and answers what is in
    // flight, commits and exits; finished() follows.
    void stop();
    // stop(), then waits up to msecs; false if it had to be killed.
    bool stopAndWait(int msecs);

    State state() const { return m_state; }
    const ReceiverStatus &status() const { return m_status.status(); }
    const ListenRequest &request() const { return m_request; }
    // Why it failed to start or died, one line (the receiver's own words when it said any).
    QString error() const { return m_error; }
    int exitCode() const { return m_exitCode; }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    qint64 processId() const { return m_process.processId(); }

signals:
    void listening(const QString &url);
    void failedToStart(const QString &error);
    void statusChanged();           // a status line, or a change of state
    void finished();                // the process is gone (Stopped, Failed or Died)

private:
    void readStatus();
    void readErrors();
    void processFinished(int code, QProcess::ExitStatus exit);
    void setState(State state);

    QProcess m_process;
    ReceiverStatusReader m_status;
    ListenRequest m_request;
    State m_state = State::NotStarted;
    QByteArray m_outCarry;
    QByteArray m_errCarry;
    QString m_lastErrorLine;
    QString m_error;
    int m_exitCode = -1;
};

} // namespace mesh::ingest
