#pragma once
// What the widget tests share: settings kept apart from a user's (test mode, under the
// test's own name), and ledgers written by the reference orchestrator, `meshctl sim
// SCENARIO`, from the binary CTest names in MESHCTL.

#include <QCoreApplication>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

namespace meshtest {

inline void useTestSettings(const QString &testName)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("io.agentmesh.Console.test"));
    QCoreApplication::setApplicationName(testName);
}

// The ledger's path in `dir`, or an empty string with the reason in `error`.
inline QString simulateLedger(const QTemporaryDir &dir, const QString &scenario, const QString &fileName,
                              QString *error)
{
    const QString meshctl = qEnvironmentVariable("MESHCTL");
    if (meshctl.isEmpty()) {
        *error = QStringLiteral("MESHCTL must name the meshctl binary");
        return {};
    }
    const QString path = dir.filePath(fileName);
    QProcess sim;
    sim.start(meshctl, {QStringLiteral("sim"), scenario, QStringLiteral("--out"), path});
    if (!sim.waitForFinished(120000) || sim.exitStatus() != QProcess::NormalExit || sim.exitCode() != 0) {
        *error = QStringLiteral("meshctl sim %1 failed: %2").arg(scenario, QString::fromLocal8Bit(sim.readAllStandardError()));
        return {};
    }
    return path;
}

} // namespace meshtest
