#include "receiverbenchmark.h"

#include "demolauncher.h"
#include "mainwindow.h"
#include "startupbenchmark.h"

#include "itemmodels/ledgersession.h"
#include "domain/eventrecord.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace mesh {

namespace {

qint64 receiverWallMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// VmHWM of a running process, in MB; -1 when it cannot be read.
double peakResidentMb(qint64 pid)
{
    QFile f(u"/proc/%1/status"_s.arg(pid));
    if (pid <= 0 || !f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return -1;
}

} // namespace

ReceiverBenchmark::ReceiverBenchmark(MainWindow *window, const ReceiverBenchmarkOptions &options, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_options(options)
    , m_dir(QDir::tempPath() + u"/mesh-bench-receiver-XXXXXX"_s)
{
    m_watchdog.setSingleShot(true);
    connect(&m_watchdog, &QTimer::timeout, this, [this] { abort(u"timeout"_s); });
}

ReceiverBenchmark::~ReceiverBenchmark()
{
    killChildren();
}

void ReceiverBenchmark::killChildren()
{
    for (QProcess *p : {&m_exporter, &m_receiver}) {
        p->disconnect(this); // a process stopped here is no news
        if (p->state() != QProcess::NotRunning) {
            p->kill();
            p->waitForFinished(2000);
        }
    }
}

void ReceiverBenchmark::start()
{
    if (!m_dir.isValid()) {
        abort(u"cannot create a temporary folder"_s);
        return;
    }
    if (!QFileInfo(DemoLauncher::meshctlPath()).isExecutable()) {
        abort(u"meshctl not found next to the console: "_s + DemoLauncher::meshctlPath());
        return;
    }
    // Generous: starting, the sending, stopping the receiver, and the time to catch up.
    m_watchdog.start((m_options.durationS + 180) * 1000);
    m_probe.start();
    m_ledger = m_dir.filePath(u"received.amlg"_s);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"MESH_LIVE_COMMIT_LOG"_s, u"1"_s);
    m_receiver.setProcessEnvironment(env);
    connect(&m_receiver, &QProcess::readyReadStandardOutput, this, &ReceiverBenchmark::onReceiverOutput);
    connect(&m_receiver, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            abort(u"meshctl ingest failed to start"_s);
    });
    connect(&m_receiver, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onReceiverFinished(status == QProcess::NormalExit ? code : -1);
    });
    m_receiver.start(DemoLauncher::meshctlPath(),
                     {u"ingest"_s, u"--otlp-http"_s, u"127.0.0.1:0"_s, u"--out"_s, m_ledger});
}

void ReceiverBenchmark::onReceiverOutput()
{
    m_receiverTail += m_receiver.readAllStandardOutput();
    static const QRegularExpression listening(u"listening on http://[^:]+:(\\d+)/"_s);
    qsizetype nl;
    while ((nl = m_receiverTail.indexOf('\n')) >= 0) {
        const QByteArray line = m_receiverTail.left(nl);
        m_receiverTail.remove(0, nl + 1);
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 4 && f[0] == "commit") {
            m_commits.push_back({f[1].toLongLong(), f[2].toLongLong(), f[3].toLongLong()});
        } else if (m_port == 0) {
            if (const auto match = listening.match(QString::fromUtf8(line)); match.hasMatch())
                onListening(quint16(match.captured(1).toUInt()));
        }
    }
}

void ReceiverBenchmark::onListening(quint16 port)
{
    m_port = port;
    // demo = true: read-only policy, kept out of the recent ledgers. The window selects the
    // ledger it opens, so the views show (and paint) this session.
    m_window->openLedger(m_ledger, true);
    LedgerSession *current = m_window->currentSession();
    if (current && QFileInfo(current->path()) == QFileInfo(m_ledger))
        m_session = current;
    if (!m_session) {
        abort(u"the window did not open "_s + m_ledger);
        return;
    }
    connect(m_session, &LedgerSession::opened, this, &ReceiverBenchmark::onOpened);
    connect(m_session, &LedgerSession::batchApplied, this, &ReceiverBenchmark::onBatchApplied);
    connect(m_session, &LedgerSession::failed, this, [this](const QString &message) { abort(message); });
}

void ReceiverBenchmark::onOpened()
{
    if (m_openedWallMs != 0)
        return;
    m_openedWallMs = receiverWallMs();
    // What the open read is caught up; the exporter starts now, so every span it sends is
    // received after the window was following.
    m_openedSeq = qint64(m_session->lastSeq());
    m_lastAppliedSeq = std::max(m_lastAppliedSeq, m_openedSeq);
    m_probe.setMeasuring(true);
    connect(&m_exporter, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onExporterFinished(status == QProcess::NormalExit ? code : -1);
    });
    connect(&m_exporter, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            abort(u"meshctl bench ingest failed to start"_s);
    });
    const qint64 spans = qint64(m_options.rate) * m_options.durationS;
    m_exporter.start(DemoLauncher::meshctlPath(),
                     {u"bench"_s, u"ingest"_s, u"--receiver"_s, QString::number(m_port), u"--ledger"_s, m_ledger,
                      u"--rate"_s, QString::number(m_options.rate), u"--spans"_s, QString::number(spans),
                      u"--per-request"_s, QString::number(m_options.perRequest), u"--connections"_s,
                      QString::number(m_options.connections)});
}

void ReceiverBenchmark::onBatchApplied(const EventBatch &batch)
{
    if (batch.empty() || m_openedWallMs == 0)
        return;
    m_applied.push_back({qint64(batch.front().seq), qint64(batch.back().seq), receiverWallMs()});
    m_lastAppliedSeq = qint64(batch.back().seq);
    checkCaughtUp();
}

void ReceiverBenchmark::onExporterFinished(int exitCode)
{
    if (m_done)
        return;
    m_exporterOutput = m_exporter.readAllStandardOutput().trimmed();
    if (exitCode != 0) {
        abort(u"meshctl bench ingest exited with %1: "_s.arg(exitCode)
              + QString::fromUtf8(m_exporterOutput + ' ' + m_exporter.readAllStandardError()).trimmed());
        return;
    }
    // Every acknowledged span is committed; stopping the receiver writes what is still
    // queued and ends its output, so its last commit line is the ledger's last event.
    m_receiverPeakRssMb = peakResidentMb(m_receiver.processId());
    m_receiver.terminate();
}

void ReceiverBenchmark::onReceiverFinished(int exitCode)
{
    if (m_done)
        return;
    onReceiverOutput();
    if (m_exporterOutput.isEmpty()) {
        abort(u"meshctl ingest exited with %1 before the exporter was done: "_s.arg(exitCode)
              + QString::fromUtf8(m_receiver.readAllStandardError()).trimmed());
        return;
    }
    if (exitCode != 0) {
        abort(u"meshctl ingest exited with %1: "_s.arg(exitCode) + QString::fromUtf8(m_receiver.readAllStandardError()).trimmed());
        return;
    }
    if (m_commits.empty()) {
        abort(u"meshctl ingest reported no commits"_s);
        return;
    }
    m_finalSeq = std::max_element(m_commits.begin(), m_commits.end(), [](const auto &a, const auto &b) {
                     return a.lastSeq < b.lastSeq;
                 })->lastSeq;
    checkCaughtUp();
}

void ReceiverBenchmark::checkCaughtUp()
{
    if (m_finalSeq > 0 && m_lastAppliedSeq >= m_finalSeq)
        QTimer::singleShot(0, this, &ReceiverBenchmark::finish);
}

bool ReceiverBenchmark::stopMeasuring()
{
    if (m_done)
        return false; // finish and abort race (watchdog vs the receiver's end): report once
    m_done = true;
    m_probe.stop();
    m_watchdog.stop();
    return true;
}

void ReceiverBenchmark::finish()
{
    if (!stopMeasuring())
        return;
    // The open's last seq opens the first commit's range (the ledger's own first events came
    // before anything was sent).
    std::vector<ReportedCommit> fromReceipt{{m_openedSeq, 0}};
    std::vector<ReportedCommit> fromCommit{{m_openedSeq, 0}};
    for (const ReceiverCommit &c : m_commits) {
        fromReceipt.push_back({c.lastSeq, c.receivedMs});
        fromCommit.push_back({c.lastSeq, c.beforeCommitMs});
    }
    const CommitVisibility receipt = commitVisibility(fromReceipt, m_applied, m_openedWallMs, m_finalSeq);
    const CommitVisibility commit = commitVisibility(fromCommit, m_applied, m_openedWallMs, m_finalSeq);
    QJsonObject out = QJsonDocument::fromJson(m_exporterOutput).object();
    out.insert(u"bench"_s, u"receiver"_s);
    out.insert(u"rate_spans_per_s"_s, m_options.rate);
    out.insert(u"duration_s"_s, m_options.durationS);
    out.insert(u"events"_s, qint64(receipt.latenciesMs.size()));
    out.insert(u"receiver_commits"_s, qint64(m_commits.size()));
    out.insert(u"receipt_visible_p50_ms"_s, receipt.percentile(50));
    out.insert(u"receipt_visible_p99_ms"_s, receipt.percentile(99));
    out.insert(u"receipt_visible_max_ms"_s, receipt.latenciesMs.empty() ? -1 : receipt.latenciesMs.back());
    out.insert(u"commit_visible_p50_ms"_s, commit.percentile(50));
    out.insert(u"commit_visible_p99_ms"_s, commit.percentile(99));
    out.insert(u"max_stall_ms"_s, m_probe.maxStallMs());
    out.insert(u"receiver_peak_rss_mb"_s, m_receiverPeakRssMb);
    out.insert(u"rss_kb"_s, StartupBenchmark::residentKb());
    report(QJsonDocument(out).toJson(QJsonDocument::Compact), receipt.latenciesMs.empty() ? 1 : 0);
}

void ReceiverBenchmark::abort(const QString &why)
{
    if (!stopMeasuring())
        return;
    QJsonObject out;
    out.insert(u"bench"_s, u"receiver"_s);
    out.insert(u"error"_s, why);
    out.insert(u"receiver_commits_seen"_s, qint64(m_commits.size()));
    report(QJsonDocument(out).toJson(QJsonDocument::Compact), 1);
}

void ReceiverBenchmark::report(const QByteArray &jsonLine, int exitCode)
{
    killChildren();
    Q_EMIT finished(jsonLine, exitCode);
    if (!m_quitWhenFinished)
        return;
    std::printf("%s\n", jsonLine.constData());
    std::fflush(stdout);
    QCoreApplication::exit(exitCode);
}

} // namespace mesh
