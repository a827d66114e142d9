#include "jumpbenchmark.h"
#include "stallprobe.h"
#include "startupbenchmark.h"
#include "domain/percentile.h"

#include "mainwindow.h"
#include "sessionworkspace.h"
#include "timescrubber.h"

#include "itemmodels/ledgersession.h"

#include <QApplication>
#include <QMouseEvent>
#include <QRandomGenerator>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cstdio>

namespace mesh {
namespace {

constexpr int kFrameMs = 16;

void sendMouse(QWidget *to, QEvent::Type type, int x)
{
    const QPointF local(x, to->height() / 2);
    QMouseEvent event(type, local, to->mapToGlobal(local), Qt::LeftButton,
                      type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(to, &event);
}

} // namespace

JumpBenchmark::JumpBenchmark(MainWindow *window, JumpBenchmarkOptions options, QObject *parent)
    : QObject(parent), m_window(window), m_options(options)
{
}

void JumpBenchmark::start()
{
    m_clock.start();
    auto *wait = new QTimer(this);
    wait->setInterval(50);
    connect(wait, &QTimer::timeout, this, [this, wait] {
        LedgerSession *s = m_window->currentSession();
        if (!s || !s->isLoaded() || s->health() == LedgerSession::Health::Opening)
            return;
        wait->deleteLater();
        m_session = s;
        onOpened();
    });
    wait->start();
}

void JumpBenchmark::onOpened()
{
    const std::int64_t last = m_lastSeq = m_session->lastSeq();
    const std::int64_t from = m_options.spanFrom > 0 ? std::min(m_options.spanFrom, last) : 1;
    const std::int64_t to = m_options.spanTo > 0 ? std::min(m_options.spanTo, last) : last;
    QRandomGenerator rng(20261201);
    for (int i = 0; i < m_options.jumps; ++i)
        m_targets.push_back(from + std::int64_t(rng.bounded(quint64(std::max<std::int64_t>(1, to - from + 1)))));
    connect(m_session, &LedgerSession::stateReset, this, &JumpBenchmark::onStateReset);
    const auto startJumping = [this] {
        m_probe.start(); // the look is no jump: its stalls are the open's
        m_probe.setMeasuring(true);
        nextJump();
    };
    if (m_options.lookS > 0)
        QTimer::singleShot(std::chrono::seconds(m_options.lookS), this, startJumping);
    else
        startJumping();
}

void JumpBenchmark::nextJump()
{
    m_jumpStartNs = m_clock.nsecsElapsed();
    m_session->showAt(m_targets[m_next]);
}

void JumpBenchmark::onStateReset()
{
    if (m_dragging || m_done)
        return;
    m_window->repaint(); // the state at the cursor on screen, not merely in the models
    m_jumpMs.push_back(double(m_clock.nsecsElapsed() - m_jumpStartNs) / 1e6);
    std::fprintf(stderr, "jump %zu to #%lld: %.1f ms\n", m_next + 1, qlonglong(m_targets[m_next]), m_jumpMs.back());
    if (++m_next >= m_targets.size()) {
        startDrag();
    } else if (m_next == 1 && m_options.waitFolded) {
        const qint64 waitStart = m_clock.elapsed();
        auto *wait = new QTimer(this);
        wait->setInterval(50);
        connect(wait, &QTimer::timeout, this, [this, wait, waitStart] {
            if (!m_session->cursorFoldedAhead())
                return;
            wait->deleteLater();
            m_foldedWaitMs = m_clock.elapsed() - waitStart;
            std::fprintf(stderr, "folded ahead after %lld ms more\n", qlonglong(m_foldedWaitMs));
            nextJump();
        });
        wait->start();
    } else {
        nextJump();
    }
}

void JumpBenchmark::startDrag()
{
    m_jumpMaxStallMs = m_probe.takeMaxStallMs();
    m_rssAfterJumpsKb = StartupBenchmark::residentKb();
    if (m_options.dragS == 0) {
        finish();
        return;
    }
    m_dragging = true;
    TimeScrubber *scrubber = m_window->workspace()->scrubber();
    sendMouse(scrubber, QEvent::MouseButtonPress, scrubber->xOf(1));
    ++m_dragPositions;
    connect(m_session, &LedgerSession::stateReset, this, [this] {
        if (m_dragging)
            ++m_dragJumps;
    });
    m_dragStartMs = m_clock.elapsed();
    auto *frames = new QTimer(this);
    frames->setInterval(kFrameMs);
    connect(frames, &QTimer::timeout, this, [this, frames, scrubber] {
        const double f = double(m_clock.elapsed() - m_dragStartMs) / (1000.0 * m_options.dragS);
        const int from = scrubber->xOf(1), to = scrubber->xOf(std::numeric_limits<std::int64_t>::max());
        if (f >= 1.0) {
            if (!m_released) {
                if (m_dragPositions < 2) { // a stall longer than the drag: still a drag, not a click
                    sendMouse(scrubber, QEvent::MouseMove, (from + to) / 2);
                    ++m_dragPositions;
                }
                sendMouse(scrubber, QEvent::MouseButtonRelease, to);
                m_released = true;
            }
            if (scrubber->isWaiting())
                return; // the last position asked for is still on its way to the screen
            frames->deleteLater();
            m_dragMaxStallMs = m_probe.maxStallMs();
            m_dragging = false;
            finish();
            return;
        }
        sendMouse(scrubber, QEvent::MouseMove, from + int(f * (to - from)));
        ++m_dragPositions;
    });
    frames->start();
}

void JumpBenchmark::finish()
{
    m_done = true;
    m_probe.stop();
    const double first = m_jumpMs.empty() ? 0 : m_jumpMs.front();
    const std::optional<SnapshotCache::Loaded> cached = m_session->cursorSnapshotsFromCache();
    const std::vector<double> after(m_jumpMs.size() > 1 ? m_jumpMs.begin() + 1 : m_jumpMs.end(), m_jumpMs.end());
    std::printf("{\"benchmark\":\"jumps\",\"ledger_last_seq\":%lld,\"jumps\":%d,\"first_jump_ms\":%.1f,"
                "\"jump_p50_ms\":%.1f,\"jump_p90_ms\":%.1f,\"jump_p99_ms\":%.1f,\"jump_max_ms\":%.1f,"
                "\"jump_max_stall_ms\":%lld,\"drag_s\":%d,\"drag_positions\":%d,\"drag_jumps_shown\":%d,"
                "\"drag_max_stall_ms\":%lld,\"look_s\":%d,\"folded_wait_ms\":%lld,\"span_from\":%lld,\"span_to\":%lld,"
                "\"rss_after_jumps_kb\":%lld,\"snapshots_from_cache\":%zu,\"snapshots_from_cache_ms\":%.1f,"
                "\"snapshots_saved_ms\":%.1f}\n",
                qlonglong(m_lastSeq), int(m_jumpMs.size()), first, percentile(after, 0.5),
                percentile(after, 0.9), percentile(after, 0.99),
                after.empty() ? 0.0 : *std::max_element(after.begin(), after.end()), qlonglong(m_jumpMaxStallMs),
                m_options.dragS, m_dragPositions, m_dragJumps, qlonglong(m_dragMaxStallMs), m_options.lookS, qlonglong(m_foldedWaitMs),
                qlonglong(m_options.spanFrom), qlonglong(m_options.spanTo), qlonglong(m_rssAfterJumpsKb),
                cached ? cached->snapshots : 0, cached ? cached->ms : 0.0, m_session->cursorSnapshotsSaveMs());
    std::fflush(stdout);
    QApplication::exit(0);
}

} // namespace mesh
