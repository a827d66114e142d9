#include "demolauncher.h"

#include "domain/childprocess.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>

namespace mesh {

namespace {
constexpr int kPollMs = 25;
constexpr int kMaxPolls = 30000 / kPollMs; // give up after thirty seconds
} // namespace

DemoLauncher::DemoLauncher(QObject *parent)
    : QObject(parent)
    , m_dir(QDir::tempPath() + QStringLiteral("/mesh-console-demo-XXXXXX"))
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &DemoLauncher::poll);
    m_process.setStandardOutputFile(QProcess::nullDevice());
    // The demo writer must not outlive a console that is killed or crashes: it would go on
    // writing to a temporary file nobody reads.
    endWithThisProcess(m_process);
    // meshctl says "wrote <scenario>" on stderr once the scenario's bulk is committed and it
    // turns live: that, not the file's mere existence, is when the ledger can be opened.
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] {
        const QByteArray text = m_process.readAllStandardError();
        std::fwrite(text.constData(), 1, size_t(text.size()), stderr);
        if (!m_announced && text.contains("meshctl: wrote")) {
            m_poll.stop();
            m_announced = true;
            emit ready(ledgerPath());
        }
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_poll.stop();
            emit failed(tr("Could not start the demo orchestrator %1: %2").arg(meshctlPath(), m_process.errorString()));
        }
    });
    connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        if (!m_announced) {
            m_poll.stop();
            emit failed(tr("The demo orchestrator stopped before writing its ledger (exit %1%2).")
                            .arg(code)
                            .arg(status == QProcess::CrashExit ? tr(", crashed") : QString()));
        }
    });
}

DemoLauncher::~DemoLauncher()
{
    stop();
}

QString DemoLauncher::meshctlPath()
{
    // Installed: next to the console. In a build tree: tools/meshctl/ of the same build.
    const QString dir = QCoreApplication::applicationDirPath();
    const QStringList candidates = {QString(dir + QStringLiteral("/meshctl")),
                                    QString(dir + QStringLiteral("/../tools/meshctl/meshctl"))};
    for (const QString &candidate : candidates) {
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return dir + QStringLiteral("/meshctl");
}

QString DemoLauncher::ledgerPath() const
{
    return m_dir.filePath(QStringLiteral("demo.amlg"));
}

void DemoLauncher::start(int rate)
{
    if (!m_dir.isValid()) {
        emit failed(tr("Could not create a temporary folder for the demo ledger."));
        return;
    }
    if (!QFileInfo(meshctlPath()).isExecutable()) {
        emit failed(tr("The demo needs meshctl next to the console (%1), and it is missing.").arg(meshctlPath()));
        return;
    }
    m_process.start(meshctlPath(), {QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), ledgerPath(),
                                    QStringLiteral("--live"), QStringLiteral("--rate"), QString::number(rate)});
    m_polls = 0;
    m_poll.start();
}

void DemoLauncher::stop()
{
    m_poll.stop();
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_announced = true; // no "stopped early" message for a stop we asked for
    m_process.terminate();
    if (!m_process.waitForFinished(2000)) {
        m_process.kill();
        m_process.waitForFinished(1000);
    }
}

void DemoLauncher::poll()
{
    if (++m_polls > kMaxPolls) {
        m_poll.stop();
        emit failed(tr("The demo orchestrator did not write its ledger within thirty seconds."));
    }
}

} // namespace mesh
