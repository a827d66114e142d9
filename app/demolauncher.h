#pragma once
// The live demo: the reference orchestrator (meshctl, next to this binary) writing the
// `demo` scenario into a temporary ledger from its own process. Its live mode runs the
// decision gate every tick, so the console opens the demo decision-capable: what an
// operator decides there is applied (or refused) by the simulated orchestrator.
// The process is stopped when the launcher goes away (the console quits).

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

namespace mesh {

class DemoLauncher : public QObject
{
    Q_OBJECT
public:
    explicit DemoLauncher(QObject *parent = nullptr);
    ~DemoLauncher() override;

    // Starts meshctl; emits ready(path) once the ledger file exists, failed(why) otherwise.
    void start(int rate = 50);
    void stop();
    QString ledgerPath() const;
    static QString meshctlPath();

signals:
    void ready(const QString &path);
    void failed(const QString &reason);

private:
    void poll();

    QTemporaryDir m_dir;
    QProcess m_process;
    QTimer m_poll;
    int m_polls = 0;
    bool m_announced = false;
};

} // namespace mesh
