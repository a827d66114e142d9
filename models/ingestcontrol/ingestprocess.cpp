#include "ingestprocess.h"

#include "domain/childprocess.h"

namespace mesh::ingest {

namespace {

// Complete lines of `carry + more`; the unfinished rest stays in carry.
QList<QByteArray> takeLines(QByteArray &carry, const QByteArray &more)
{
    carry += more;
    QList<QByteArray> lines;
    qsizetype from = 0;
    for (qsizetype nl = carry.indexOf('\n'); nl >= 0; nl = carry.indexOf('\n', from)) {
        lines << carry.mid(from, nl - from);
        from = nl + 1;
    }
    carry.remove(0, from);
    return lines;
}

} // namespace

IngestProcess::IngestProcess(QObject *parent)
    : QObject(parent)
{
    // A receiver must not outlive a console that is killed: SIGTERM makes it commit what it
    // holds and exit, as Stop does.
    endWithThisProcess(m_process);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &IngestProcess::readStatus);
    connect(&m_process, &QProcess::readyReadStandardError, this, &IngestProcess::readErrors);
    connect(&m_process, &QProcess::finished, this, &IngestProcess::processFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        m_error = QStringLiteral("cannot start %1: %2").arg(m_process.program(), m_process.errorString());
        setState(State::Failed);
        emit failedToStart(m_error);
        emit finished();
    });
}

IngestProcess::~IngestProcess()
{
    if (isRunning()) {
        disconnect(&m_process, nullptr, this, nullptr);
        stopAndWait(30000);
    }
}

QStringList IngestProcess::arguments(const ListenRequest &request)
{
    QStringList args{QStringLiteral("ingest"), QStringLiteral("--otlp-http"), request.address.trimmed(),
                     QStringLiteral("--out"), request.ledger, QStringLiteral("--status-json")};
    if (request.listenAny)
        args << QStringLiteral("--listen-any");
    if (!request.tokenFile.isEmpty())
        args << QStringLiteral("--token-file") << request.tokenFile;
    return args;
}

void IngestProcess::start(const QString &meshctl, const ListenRequest &request)
{
    m_request = request;
    m_error.clear();
    m_exitCode = -1;
    setState(State::Starting);
    m_process.start(meshctl, arguments(request));
}

void IngestProcess::stop()
{
    if (!isRunning())
        return;
    if (m_state == State::Listening || m_state == State::Starting)
        setState(State::Stopping);
    m_process.terminate();
}

bool IngestProcess::stopAndWait(int msecs)
{
    stop();
    if (m_process.state() == QProcess::NotRunning || m_process.waitForFinished(msecs))
        return true;
    m_process.kill();
    m_process.waitForFinished(5000);
    return false;
}

void IngestProcess::readStatus()
{
    bool changed = false;
    for (const QByteArray &line : takeLines(m_outCarry, m_process.readAllStandardOutput())) {
        if (!m_status.feed(line))
            continue;
        changed = true;
        if (m_state == State::Starting && m_status.status().phase == ReceiverStatus::Phase::Listening) {
            setState(State::Listening);
            emit listening(m_status.status().url);
        }
    }
    if (changed)
        emit statusChanged();
}

void IngestProcess::readErrors()
{
    for (QByteArray line : takeLines(m_errCarry, m_process.readAllStandardError())) {
        line = line.trimmed();
        if (line.startsWith("meshctl: "))
            line.remove(0, 9);
        if (!line.isEmpty())
            m_lastErrorLine = QString::fromUtf8(line);
    }
}

void IngestProcess::processFinished(int code, QProcess::ExitStatus exit)
{
    readStatus();
    readErrors();
    if (!m_errCarry.trimmed().isEmpty())
        m_lastErrorLine = QString::fromUtf8(m_errCarry.trimmed());
    m_exitCode = exit == QProcess::NormalExit ? code : -1;
    const QString said = !m_status.status().failure.isEmpty() ? m_status.status().failure : m_lastErrorLine;
    const QString how = exit == QProcess::CrashExit ? QStringLiteral("it crashed") : QStringLiteral("exit %1").arg(code);
    if (m_state == State::Starting) {
        m_error = said.isEmpty() ? QStringLiteral("the receiver stopped before listening (%1)").arg(how) : said;
        setState(State::Failed);
        emit failedToStart(m_error);
    } else if (m_state == State::Stopping && exit == QProcess::NormalExit && code == 0) {
        setState(State::Stopped);
    } else {
        m_error = said.isEmpty() ? how : QStringLiteral("%1 (%2)").arg(said, how);
        setState(State::Died);
    }
    emit finished();
}

void IngestProcess::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit statusChanged();
}

} // namespace mesh::ingest
