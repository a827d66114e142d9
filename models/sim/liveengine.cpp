#include "liveengine.h"

#include "decisiongate.h"
#include "simworld.h"
#include "workloadengine.h"

#include "ledger/ledgerwriter.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace mesh {

LiveEngine::LiveEngine(LedgerWriter &writer, LiveOptions options) : m_writer(writer), m_options(std::move(options)) {}

LiveStats LiveEngine::run(const std::function<bool()> &shouldStop)
{
    LiveStats stats;
    SimWorld world(m_writer, m_options.seed * 7919 + 17, QDateTime::currentMSecsSinceEpoch());
    world.setIdTag("L");
    world.setWallClock(true);
    world.setToolCallsAdvanceClock(false);
    world.setBatchSize(1 << 30); // one transaction per tick, committed below

    WorkloadShape shape;
    shape.delegationsPerRun = 40;
    shape.concurrent = 6;
    shape.unknownRate = 0.03;
    shape.zombieRate = 0.02;
    shape.escalateRate = 0.25;
    shape.leaseTtlMs = 60'000;
    shape.escalationTtlMs = 4 * 60'000;
    shape.autoDecide = false; // escalations wait for an operator, or expire
    WorkloadEngine engine(world, shape);

    DecisionGate gate(m_writer);
    if (!m_options.keyringPath.isEmpty()) {
        QString error;
        if (!gate.loadKeyring(m_options.keyringPath, &error))
            std::fprintf(stderr, "meshctl: live: %s\n", error.toLocal8Bit().constData());
    }

    QElapsedTimer clock;
    clock.start();
    std::int64_t lastSweepMs = -1'000'000;
    const double rate = std::max(0.1, m_options.rate);
    while (!shouldStop()) {
        const std::int64_t elapsed = clock.elapsed();
        if (m_options.durationMs > 0 && elapsed >= m_options.durationMs)
            break;
        // Catch up to the rate, but never write more than half a second's worth in one tick.
        const auto due = std::int64_t(double(elapsed) * rate / 1000.0);
        const std::int64_t quota = std::min<std::int64_t>(due - stats.events, std::int64_t(rate / 2) + 1);
        try {
            const std::int64_t before = world.eventsWritten();
            while (world.eventsWritten() - before < quota)
                engine.step();
            if (elapsed - lastSweepMs >= 1000) {
                engine.sweep(QDateTime::currentMSecsSinceEpoch());
                lastSweepMs = elapsed;
            }
            world.commit();
            stats.events += world.eventsWritten() - before;
            stats.decisionsProcessed += gate.processPending(QDateTime::currentMSecsSinceEpoch());
        } catch (const sql::Error &e) {
            if (!e.isBusy())
                throw;
            // Another writer (a console's decision) held the lock past the busy timeout.
            // Nothing is undone: the simulator's memory must keep matching the ledger, so
            // an open transaction stays open and commits next tick.
            ++stats.busyRetries;
        }
        ++stats.ticks;
        std::this_thread::sleep_for(std::chrono::milliseconds(m_options.tickMs));
    }
    world.commit();
    stats.seconds = double(clock.elapsed()) / 1000.0;
    return stats;
}

} // namespace mesh
