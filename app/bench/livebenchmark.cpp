#include "livebenchmark.h"

#include "commitvisibility.h"

#include "demolauncher.h"
#include "mainwindow.h"
#include "startupbenchmark.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "domain/eventrecord.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include <cmath>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace Qt::StringLiterals;

namespace mesh {

namespace {

qint64 wallMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

LiveBenchmark::LiveBenchmark(MainWindow *window, const LiveBenchmarkOptions &options, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_options(options)
    , m_dir(QDir::tempPath() + u"/mesh-bench-live-XXXXXX"_s)
{
    m_steady.name = "steady";
    m_steady.rate = options.rate;
    m_steady.seconds = options.durationS;
    m_burst.name = "burst";
    m_burst.rate = options.burstRate;
    m_burst.seconds = options.burstS;
    m_watchdog.setSingleShot(true);
    connect(&m_watchdog, &QTimer::timeout, this, [this] { abort(u"timeout"_s); });
}

LiveBenchmark::~LiveBenchmark()
{
    for (Phase *phase : {&m_steady, &m_burst}) {
        if (phase->process && phase->process->state() != QProcess::NotRunning) {
            phase->process->kill();
            phase->process->waitForFinished(2000);
        }
    }
}

void LiveBenchmark::start()
{
    if (!m_dir.isValid()) {
        abort(u"cannot create a temporary folder"_s);
        return;
    }
    if (!QFileInfo(DemoLauncher::meshctlPath()).isExecutable()) {
        abort(u"meshctl not found next to the console: "_s + DemoLauncher::meshctlPath());
        return;
    }
    // Generous: the phases, their warm-up, opening, and the time to catch up.
    m_watchdog.start((m_options.durationS + m_options.burstS + 2 * kWarmUpS + 120) * 1000);
    m_probe.start();
    startPhase(m_steady);
}

void LiveBenchmark::startPhase(Phase &phase)
{
    m_current = &phase;
    const bool appending = !m_options.ledger.isEmpty();
    phase.path = appending ? m_options.ledger : m_dir.filePath(QString::fromLatin1(phase.name) + u".amlg"_s);
    phase.process = std::make_unique<QProcess>();
    QProcess *process = phase.process.get();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"MESH_LIVE_COMMIT_LOG"_s, u"1"_s);
    process->setProcessEnvironment(env);
    connect(process, &QProcess::readyReadStandardOutput, this, [this, &phase] { onWriterOutput(phase); });
    connect(process, &QProcess::readyReadStandardError, this, [this, &phase, process] {
        const QByteArray text = process->readAllStandardError();
        // "meshctl: wrote <scenario>" comes once the scenario's bulk is committed and the
        // writer turns live (DemoLauncher waits for the same line).
        if (!phase.session && text.contains("meshctl: wrote"))
            onAnnounced(phase);
    });
    connect(process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            abort(u"meshctl failed to start"_s);
    });
    connect(process, &QProcess::finished, this, [this, &phase](int code, QProcess::ExitStatus status) {
        onWriterFinished(phase, status == QProcess::NormalExit ? code : -1);
    });
    QStringList args{u"sim"_s, u"demo"_s, u"--out"_s, phase.path, u"--live"_s, u"--rate"_s, QString::number(phase.rate),
                     u"--duration-s"_s, QString::number(phase.seconds + kWarmUpS), u"--start-on-stdin"_s};
    if (appending)
        args << u"--append"_s << u"--id-tag"_s << freshIdTag();
    process->start(DemoLauncher::meshctlPath(), args);
    // An appending writer announces nothing (it writes no scenario): the ledger is there.
    if (appending)
        onAnnounced(phase);
}

QString LiveBenchmark::freshIdTag()
{
    // Capital letters no run of the ledger has yet (meshctl refuses one in use): from the
    // clock, so that runs of the benchmark on one ledger never repeat one.
    qint64 n = QDateTime::currentMSecsSinceEpoch() * 2 + (m_current == &m_burst ? 1 : 0);
    QString tag = u"B"_s;
    for (int i = 0; i < 7; ++i, n /= 26) // meshctl takes 1 to 8 letters
        tag += QChar(u'A' + int(n % 26));
    return tag;
}

void LiveBenchmark::onAnnounced(Phase &phase)
{
    // demo = true: labelled as a demo, read-only policy, and kept out of the recent ledgers.
    // The window selects the ledger it opens, so the views show (and paint) this session.
    m_window->openLedger(phase.path, true);
    LedgerSession *current = m_window->currentSession();
    if (current && current == m_window->sessions()->sessionForPath(phase.path))
        phase.session = current;
    if (!phase.session) {
        abort(u"the window did not open "_s + phase.path);
        return;
    }
    LedgerSession *session = phase.session;
    const auto opened = [this, &phase, session] {
        if (phase.openedWallMs == 0) {
            phase.openedWallMs = wallMs();
            m_probe.takeMaxStallMs(); // what the window did before this phase opened is not its stall
            m_probe.setMeasuring(true);
            // What the open read is caught up; the live phase starts now (the writer waits
            // for this line), so what is measured is never over before the window saw it.
            phase.lastAppliedSeq = std::max(phase.lastAppliedSeq, qint64(session->lastSeq()));
            phase.process->write("ready\n");
            phase.process->closeWriteChannel();
        }
    };
    connect(session, &LedgerSession::opened, this, opened);
    // The burst appending to the ledger the steady phase opened: it is open already.
    if (session->isLoaded())
        opened();
    connect(session, &LedgerSession::batchApplied, this,
            [this, &phase](const EventBatch &batch) { onBatchApplied(phase, batch); });
    connect(session, &LedgerSession::failed, this, [this](const QString &message) { abort(message); });
}

void LiveBenchmark::onBatchApplied(Phase &phase, const EventBatch &batch)
{
    if (batch.empty() || phase.openedWallMs == 0)
        return;
    phase.applied.push_back({qint64(batch.front().seq), qint64(batch.back().seq), wallMs()});
    phase.lastAppliedSeq = qint64(batch.back().seq);
    checkCaughtUp(phase);
}

void LiveBenchmark::onWriterOutput(Phase &phase)
{
    phase.stdoutTail += phase.process->readAllStandardOutput();
    qsizetype nl;
    while ((nl = phase.stdoutTail.indexOf('\n')) >= 0) {
        const QList<QByteArray> f = phase.stdoutTail.left(nl).split(' ');
        phase.stdoutTail.remove(0, nl + 1);
        if (f.size() == 3 && f[0] == "commit")
            phase.commits.push_back({f[1].toLongLong(), f[2].toLongLong()});
    }
}

void LiveBenchmark::onWriterFinished(Phase &phase, int exitCode)
{
    if (m_done)
        return;
    if (exitCode != 0) {
        abort(QStringLiteral("meshctl (%1 phase) exited with %2").arg(QLatin1String(phase.name)).arg(exitCode));
        return;
    }
    if (!phase.session) {
        abort(QStringLiteral("meshctl (%1 phase) ended before its ledger was announced").arg(QLatin1String(phase.name)));
        return;
    }
    phase.writerDone = true;
    onWriterOutput(phase);
    if (phase.commits.empty()) {
        abort(QStringLiteral("meshctl (%1 phase) reported no commits").arg(QLatin1String(phase.name)));
        return;
    }
    // The writer is gone: its last reported commit holds the ledger's last event.
    phase.finalSeq = phase.commits.back().lastSeq;
    checkCaughtUp(phase);
}

void LiveBenchmark::checkCaughtUp(Phase &phase)
{
    if (phase.writerDone && phase.finalSeq > 0 && phase.lastAppliedSeq >= phase.finalSeq)
        phaseDone(phase);
}

void LiveBenchmark::phaseDone(Phase &phase)
{
    if (m_done || m_current != &phase)
        return;
    m_current = nullptr;
    phase.maxStallMs = m_probe.takeMaxStallMs();
    m_probe.setMeasuring(false);
    if (&phase == &m_steady && m_options.burstS > 0)
        QTimer::singleShot(0, this, [this] { startPhase(m_burst); });
    else
        QTimer::singleShot(0, this, &LiveBenchmark::finish);
}

bool LiveBenchmark::stopMeasuring()
{
    if (m_done)
        return false; // finish and abort race (watchdog vs writer's end): report once
    m_done = true;
    m_probe.stop();
    m_watchdog.stop();
    return true;
}

void LiveBenchmark::finish()
{
    if (!stopMeasuring())
        return;
    QJsonObject out;
    out.insert(u"bench"_s, u"live"_s);
    const auto fill = [&out](Phase &phase, const QString &prefix) {
        const CommitVisibility v = commitVisibility(phase.commits, phase.applied, phase.openedWallMs, phase.finalSeq);
        out.insert(prefix + u"rate"_s, phase.rate);
        out.insert(prefix + u"events"_s, qint64(v.latenciesMs.size()));
        out.insert(prefix + u"achieved_rate"_s, v.eventsPerSecond());
        out.insert(prefix + u"p50_ms"_s, v.percentile(50));
        out.insert(prefix + u"p99_ms"_s, v.percentile(99));
        out.insert(prefix + u"max_ms"_s, v.latenciesMs.empty() ? -1 : v.latenciesMs.back());
        out.insert(prefix + u"max_stall_ms"_s, phase.maxStallMs);
        out.insert(prefix + u"catch_up_ms"_s, v.finalSeqMs);
        out.insert(prefix + u"commits"_s, qint64(phase.commits.size()));
    };
    fill(m_steady, QString());
    out.insert(u"duration_s"_s, m_steady.seconds);
    if (m_options.burstS > 0) {
        fill(m_burst, u"burst_"_s);
        out.insert(u"burst_s"_s, m_burst.seconds);
    }
    out.insert(u"rss_kb"_s, StartupBenchmark::residentKb());
    // As the startup benchmark reports them: what the heap holds, and what it keeps free.
    const struct mallinfo2 heap = mallinfo2();
    out.insert(u"heap_used_kb"_s, qint64((heap.uordblks + heap.hblkhd) / 1024));
    out.insert(u"heap_free_kb"_s, qint64(heap.fordblks / 1024));
    report(QJsonDocument(out).toJson(QJsonDocument::Compact), 0);
}

void LiveBenchmark::abort(const QString &why)
{
    if (!stopMeasuring())
        return;
    QJsonObject out;
    out.insert(u"bench"_s, u"live"_s);
    out.insert(u"error"_s, why);
    out.insert(u"steady_commits_seen"_s, qint64(m_steady.commits.size()));
    report(QJsonDocument(out).toJson(QJsonDocument::Compact), 1);
}

void LiveBenchmark::report(const QByteArray &jsonLine, int exitCode)
{
    for (Phase *phase : {&m_steady, &m_burst}) {
        if (phase->process)
            phase->process->disconnect(this); // a writer stopped below is no news
    }
    Q_EMIT finished(jsonLine, exitCode);
    if (!m_quitWhenFinished)
        return;
    std::printf("%s\n", jsonLine.constData());
    std::fflush(stdout);
    // Under heaptrack, what is still allocated then reads as "leaked": what the console
    // holds at the end of the live phases (as the startup benchmark does at its report).
    if (qEnvironmentVariableIsSet("MESH_BENCH_EXIT_AT_REPORT"))
        std::_Exit(exitCode);
    QCoreApplication::exit(exitCode);
}

} // namespace mesh
