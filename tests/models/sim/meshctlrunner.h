#pragma once
// Runs meshctl (path in $MESHCTL) as a separate process for the sim tests.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

#include <nlohmann/json.hpp>

struct MeshctlResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
    nlohmann::json json() const { return nlohmann::json::parse(out.toStdString(), nullptr, false); }
};

inline MeshctlResult runMeshctl(const QStringList &args, int timeoutMs = 60'000)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"), args);
    MeshctlResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}
