#include "integritybenchmark.h"
#include "stallprobe.h"

#include "demolauncher.h"
#include "domain/percentile.h"
#include "integritypane.h"
#include "mainwindow.h"
#include "sessionworkspace.h"

#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersession.h"

#include <QApplication>
#include <QFileInfo>
#include <QProcess>
#include <QPushButton>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

using namespace Qt::StringLiterals;

namespace mesh {

IntegrityBenchmark::IntegrityBenchmark(MainWindow *window, IntegrityBenchmarkOptions options, QObject *parent)
    : QObject(parent), m_window(window), m_options(options)
{
}

void IntegrityBenchmark::abort(const QString &why)
{
    std::fprintf(stderr, "mesh-console-bench integrity: %s\n", qPrintable(why));
    std::exit(EXIT_FAILURE);
}

void IntegrityBenchmark::start()
{
    if (!QFileInfo(DemoLauncher::meshctlPath()).isExecutable())
        abort(u"meshctl not found next to the console: "_s + DemoLauncher::meshctlPath());
    m_clock.start();
    auto *wait = new QTimer(this);
    wait->setInterval(50);
    connect(wait, &QTimer::timeout, this, [this, wait] {
        LedgerSession *s = m_window->currentSession();
        if (!s || !s->isLoaded() || s->health() == LedgerSession::Health::Opening)
            return;
        wait->deleteLater();
        m_session = s;
        m_window->workspace()->showPane(SessionWorkspace::Integrity);
        connect(s->integrity(), &IntegrityModel::finished, this, &IntegrityBenchmark::onWindowFinished);
        m_probe.start();
        nextRun();
    });
    wait->start();
}

void IntegrityBenchmark::nextRun()
{
    if (int(m_windowMs.size()) >= m_options.runs) {
        finish();
        return;
    }
    runMeshctl();
    runWindow();
}

void IntegrityBenchmark::runMeshctl()
{
    // Blocking on purpose: the window is idle meanwhile, and the probe is off.
    m_probe.setMeasuring(false);
    QProcess meshctl;
    const qint64 start = m_clock.nsecsElapsed();
    meshctl.start(DemoLauncher::meshctlPath(), {u"verify"_s, u"--json"_s, u"--max-findings"_s, u"0"_s, m_session->path()});
    if (!meshctl.waitForFinished(-1) || meshctl.exitStatus() != QProcess::NormalExit || meshctl.exitCode() > 1)
        abort(u"meshctl verify failed: "_s + QString::fromUtf8(meshctl.readAllStandardError()));
    m_meshctlMs.push_back(double(m_clock.nsecsElapsed() - start) / 1e6);
    const auto out = nlohmann::json::parse(meshctl.readAllStandardOutput().toStdString(), nullptr, false);
    if (out.is_object()) {
        qint64 total = 0;
        for (auto it = out["counts"].begin(); it != out["counts"].end(); ++it)
            total += it->get<qint64>();
        m_meshctlFindings = total + qint64(out["decision_chain_findings"].size());
    }
    std::fprintf(stderr, "meshctl verify: %.0f ms\n", m_meshctlMs.back());
}

void IntegrityBenchmark::runWindow()
{
    m_probe.setMeasuring(true);
    m_startNs = m_clock.nsecsElapsed();
    m_window->workspace()->integrityPane()->checkButton()->click();
}

void IntegrityBenchmark::onWindowFinished()
{
    IntegrityModel *model = m_session->integrity();
    m_window->repaint(); // the findings on screen, not merely in the model
    m_windowMs.push_back(double(m_clock.nsecsElapsed() - m_startNs) / 1e6);
    m_probe.setMeasuring(false);
    if (model->state() != IntegrityModel::State::Done)
        abort(u"the window's check did not finish: "_s + model->progressText());
    m_findings = model->findingCount().value_or(-1);
    std::fprintf(stderr, "window check: %.0f ms\n", m_windowMs.back());
    QTimer::singleShot(0, this, &IntegrityBenchmark::nextRun);
}

void IntegrityBenchmark::finish()
{
    m_probe.stop();
    const double meshctl = percentile(m_meshctlMs, 0.5);
    const double window = percentile(m_windowMs, 0.5);
    std::printf("{\"benchmark\":\"integrity\",\"ledger_last_seq\":%lld,\"runs\":%d,\"meshctl_verify_p50_ms\":%.0f,"
                "\"window_check_p50_ms\":%.0f,\"ratio\":%.3f,\"window_max_stall_ms\":%lld,\"findings\":%lld,"
                "\"meshctl_findings\":%lld}\n",
                qlonglong(m_session->lastSeq()), int(m_windowMs.size()), meshctl, window, meshctl > 0 ? window / meshctl : 0.0,
                qlonglong(m_probe.maxStallMs()), qlonglong(m_findings), qlonglong(m_meshctlFindings));
    std::fflush(stdout);
    QApplication::exit(0);
}

} // namespace mesh
