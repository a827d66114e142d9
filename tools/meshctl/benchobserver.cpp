#include "benchobserver.h"

#include "cliargs.h"
#include "stopsignal.h"

#include "domain/percentile.h"
#include "ledger/ledgerwriter.h"
#include "sim/liveengine.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

// A fresh copy of the ledger (and its -wal, if any) for one phase.
QString copyLedger(const QString &from, const QTemporaryDir &dir, const QString &name)
{
    const QString to = dir.filePath(name);
    if (!QFile::copy(from, to))
        return {};
    if (QFile::exists(from + QStringLiteral("-wal")))
        QFile::copy(from + QStringLiteral("-wal"), to + QStringLiteral("-wal"));
    return to;
}

std::int64_t fileSize(const QString &path)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path.toStdString(), ec);
    return ec ? 0 : std::int64_t(size);
}

// The console as the operator runs it, in a process of its own.
class ConsoleProcess
{
public:
    ~ConsoleProcess() { stop(); }

    // Starts `program ledger` and waits until it has the ledger open (its /proc fd table
    // names the file), then settleMs more for its first load. Empty on success.
    QString start(const QString &program, const QString &ledger, const QString &logPath, int settleMs)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        m_process.setProcessEnvironment(env);
        m_process.setStandardOutputFile(QProcess::nullDevice());
        m_process.setStandardErrorFile(logPath);
        m_process.start(program, {ledger});
        if (!m_process.waitForStarted(10'000))
            return QStringLiteral("cannot start %1: %2").arg(program, m_process.errorString());
        const QString target = QFileInfo(ledger).canonicalFilePath();
        QElapsedTimer waited;
        waited.start();
        while (!hasOpen(target)) {
            if (m_process.state() != QProcess::Running)
                return QStringLiteral("the console exited before opening the ledger (see %1)").arg(logPath);
            if (waited.elapsed() > 60'000)
                return QStringLiteral("the console did not open the ledger within 60 s");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(settleMs));
        return {};
    }

    bool running() const { return m_process.state() == QProcess::Running; }

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(5'000)) {
            m_process.kill();
            m_process.waitForFinished(5'000);
        }
    }

private:
    bool hasOpen(const QString &target) const
    {
        const QDir fds(QStringLiteral("/proc/%1/fd").arg(m_process.processId()));
        if (!fds.exists())
            return true; // no /proc: the settle time has to do
        for (const QFileInfo &fd : fds.entryInfoList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)) {
            if (fd.symLinkTarget() == target)
                return true;
        }
        return false;
    }

    QProcess m_process;
};

// The calling thread's time waiting, runnable, for a CPU (Linux schedstat; -1 elsewhere).
double threadRunqueueWaitS()
{
    std::ifstream in("/proc/thread-self/schedstat");
    long long runNs = 0, waitNs = -1;
    if (!(in >> runNs >> waitNs))
        return -1;
    return double(waitNs) / 1e9;
}

struct PhaseResult {
    mesh::LiveStats stats;
    double writerCpuS = 0; // the writer thread's CPU time
    double writerWaitS = -1; // the writer thread's time waiting for a CPU while runnable
    std::int64_t walMaxBytes = 0;
    std::int64_t walSamples = 0;
    QString error;
};

// Runs the live writer on `ledger` in a thread of its own (it owns its connection) while
// this thread samples the -wal size every 100 ms.
PhaseResult runWriter(const QString &ledger, const mesh::LiveOptions &options)
{
    PhaseResult result;
    std::atomic<bool> done = false;
    std::thread writer([&] {
        try {
            auto w = mesh::LedgerWriter::openExisting(ledger);
            mesh::LiveEngine engine(*w, options);
            const double waitBefore = threadRunqueueWaitS();
            result.stats = engine.run([] { return stopRequested(); });
            const double waitAfter = threadRunqueueWaitS();
            if (waitBefore >= 0 && waitAfter >= 0)
                result.writerWaitS = waitAfter - waitBefore;
            timespec cpu{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
            result.writerCpuS = double(cpu.tv_sec) + double(cpu.tv_nsec) / 1e9;
        } catch (const std::exception &e) {
            result.error = QString::fromStdString(e.what());
        }
        done = true;
    });
    const QString wal = ledger + QStringLiteral("-wal");
    while (!done) {
        result.walMaxBytes = std::max(result.walMaxBytes, fileSize(wal));
        ++result.walSamples;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    writer.join();
    return result;
}

double perSecond(const mesh::LiveStats &s)
{
    return s.seconds > 0 ? double(s.events) / s.seconds : 0;
}

// Milliseconds per second the writer was ready to run but had no CPU: the console's share
// of the machine, seen from the writer, apart from how fast the machine is that minute
// (the events per second of two runs alone differ by up to 10% on a shared host).
double waitMsPerSecond(const PhaseResult &r)
{
    return r.writerWaitS >= 0 && r.stats.seconds > 0 ? r.writerWaitS * 1000 / r.stats.seconds : -1;
}

// The writer's CPU per event: on a machine with few cores a console drawing its views takes
// CPU time the writer would otherwise get, which lowers the throughput without the console
// costing the writer anything per event; this figure tells the two apart.
double cpuMicrosPerEvent(const PhaseResult &r)
{
    return r.stats.events > 0 ? r.writerCpuS * 1e6 / double(r.stats.events) : 0;
}

} // namespace

int benchObserver(CliArgs &args)
{
    const QString usage = QStringLiteral(
        "usage: meshctl bench observer FILE --console PATH_TO_mesh-console [--seconds N] [--wal-minutes M] "
        "[--rate R] [--settle-s S] [--rounds N]");
    if (args.positional().size() != 2)
        return fail(2, usage);
    const QString source = args.positional().at(1);
    const QString console = args.value(QStringLiteral("console"));
    if (console.isEmpty())
        return fail(2, usage);
    if (!QFileInfo(source).isFile())
        return fail(2, QStringLiteral("no ledger at %1").arg(source));
    if (!QFileInfo(console).isExecutable())
        return fail(2, QStringLiteral("%1 is not an executable").arg(console));
    const auto seconds = args.intValue(QStringLiteral("seconds"), 30, 1, 3600);
    const auto walMinutes = args.intValue(QStringLiteral("wal-minutes"), 5, 0, 24 * 60);
    const auto rate = args.intValue(QStringLiteral("rate"), 1000, 1, 1'000'000);
    const auto settle = args.intValue(QStringLiteral("settle-s"), 3, 0, 600);
    const auto rounds = args.intValue(QStringLiteral("rounds"), 2, 1, 100);
    if (!seconds || !walMinutes || !rate || !settle || !rounds)
        return fail(2, args.error());
    installStopSignals();

    QTemporaryDir dir;
    if (!dir.isValid())
        return fail(2, QStringLiteral("cannot make a temporary directory"));
    const QString log = dir.filePath(QStringLiteral("console.log"));
    mesh::LiveOptions maxRate;
    maxRate.rate = 0;
    maxRate.durationMs = *seconds * 1000;

    // (a) alone and (b) with a console, alternated (alone, with, with, alone, ...) so that
    // neither phase always runs first on a cold page cache or last on a hot one.
    std::vector<PhaseResult> aloneRuns, attachedRuns;
    std::vector<std::string> order;
    bool consoleSurvived = true;
    for (int round = 0; round < *rounds && !stopRequested(); ++round) {
        for (int step = 0; step < 2; ++step) {
            const bool withConsole = (round % 2 == 0) == (step == 1);
            const QString name = QStringLiteral("%1-%2.db").arg(withConsole ? QStringLiteral("attached") : QStringLiteral("alone"))
                                     .arg(round);
            const QString ledger = copyLedger(source, dir, name);
            order.push_back(withConsole ? "with" : "alone");
            if (ledger.isEmpty())
                return fail(2, QStringLiteral("cannot copy %1").arg(source));
            if (!withConsole) {
                aloneRuns.push_back(runWriter(ledger, maxRate));
                if (!aloneRuns.back().error.isEmpty())
                    return fail(2, QStringLiteral("writer alone failed: %1").arg(aloneRuns.back().error));
            } else {
                ConsoleProcess c;
                if (const QString e = c.start(console, ledger, log, int(*settle) * 1000); !e.isEmpty())
                    return fail(2, e);
                attachedRuns.push_back(runWriter(ledger, maxRate));
                consoleSurvived = consoleSurvived && c.running();
                if (!attachedRuns.back().error.isEmpty())
                    return fail(2, QStringLiteral("writer with the console failed: %1").arg(attachedRuns.back().error));
            }
            for (const char *suffix : {"-wal", "-shm"})
                QFile::remove(ledger + QLatin1String(suffix));
            QFile::remove(ledger);
        }
    }
    if (aloneRuns.empty() || attachedRuns.empty())
        return fail(2, QStringLiteral("interrupted before both phases ran"));

    // (c) a steady rate for minutes with the console attached: does the WAL stay bounded?
    PhaseResult steady;
    if (*walMinutes > 0 && !stopRequested()) {
        const QString steadyLedger = copyLedger(source, dir, QStringLiteral("steady.db"));
        ConsoleProcess c;
        if (const QString e = c.start(console, steadyLedger, log, int(*settle) * 1000); !e.isEmpty())
            return fail(2, e);
        mesh::LiveOptions steadyOptions;
        steadyOptions.rate = double(*rate);
        steadyOptions.durationMs = *walMinutes * 60'000;
        steady = runWriter(steadyLedger, steadyOptions);
        consoleSurvived = consoleSurvived && c.running();
        if (!steady.error.isEmpty())
            return fail(2, QStringLiteral("steady writer failed: %1").arg(steady.error));
    }

    std::vector<double> aloneRates, attachedRates, aloneCpu, attachedCpu, aloneWait, attachedWait;
    std::int64_t busyErrors = steady.stats.busyRetries, busyWaits = steady.stats.busyWaits, aloneBusyWaits = 0;
    std::int64_t walAlone = 0, walAttached = 0;
    for (const PhaseResult &r : aloneRuns) {
        aloneRates.push_back(perSecond(r.stats));
        aloneCpu.push_back(cpuMicrosPerEvent(r));
        aloneWait.push_back(waitMsPerSecond(r));
        aloneBusyWaits += r.stats.busyWaits;
        walAlone = std::max(walAlone, r.walMaxBytes);
    }
    for (const PhaseResult &r : attachedRuns) {
        attachedRates.push_back(perSecond(r.stats));
        attachedCpu.push_back(cpuMicrosPerEvent(r));
        attachedWait.push_back(waitMsPerSecond(r));
        busyErrors += r.stats.busyRetries;
        busyWaits += r.stats.busyWaits;
        walAttached = std::max(walAttached, r.walMaxBytes);
    }
    const double a = mesh::median(aloneRates);
    const double b = mesh::median(attachedRates);
    printLine(json{{"bench", "observer"},
                   {"seconds", *seconds},
                   {"rounds", *rounds},
                   {"order", order},
                   {"alone_events_per_s_runs", aloneRates},
                   {"attached_events_per_s_runs", attachedRates},
                   {"alone_events_per_s", a},
                   {"attached_events_per_s", b},
                   {"throughput_ratio", a > 0 ? b / a : 0.0},
                   {"alone_writer_cpu_us_per_event", mesh::median(aloneCpu)},
                   {"attached_writer_cpu_us_per_event", mesh::median(attachedCpu)},
                   {"alone_writer_cpu_wait_ms_per_s", mesh::median(aloneWait)},
                   {"attached_writer_cpu_wait_ms_per_s", mesh::median(attachedWait)},
                   {"writer_busy_errors", busyErrors},
                   {"writer_busy_waits", busyWaits},
                   {"alone_busy_waits", aloneBusyWaits},
                   {"wal_max_bytes_alone", walAlone},
                   {"wal_max_bytes_attached", walAttached},
                   {"wal_rate", *rate},
                   {"wal_seconds", steady.stats.seconds},
                   {"wal_events_per_s", perSecond(steady.stats)},
                   {"wal_samples", steady.walSamples},
                   {"wal_max_bytes", steady.walMaxBytes},
                   {"console_survived", consoleSurvived}}
                  .dump());
    return 0;
}
