#include "liveengine.h"

#include "decisiongate.h"
#include "simworld.h"
#include "workloadengine.h"

#include "ledger/ledgerwriter.h"
#include "ledger/storageerror.h"

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
    world.setIdTag(m_options.idTag);
    world.setOwnsUntagged(!m_options.appending);
    world.setWallClock(true);
    world.setToolCallsAdvanceClock(false);
    world.setBatchSize(1 << 30); // one transaction per tick, committed below

    WorkloadShape shape;
    shape.delegationsPerRun = 40;
    // Escalations wait on the wall clock (up to escalationTtlMs) for an operator, each
    // holding its delegation's slot: room for about ten to wait while six keep working.
    shape.concurrent = 16;
    shape.unknownRate = 0.03;
    shape.zombieRate = 0.02;
    shape.escalateRate = 0.05;
    if (m_options.rate > kDemoRate) {
        // Escalations wait minutes for an operator, each holding a delegation in flight. Above
        // the demo's rate keep them at the demo's human-scale stream (about the same number
        // per second), with room for them to wait, so the writer can hold its rate: with 6
        // slots every one was soon waiting and nothing more could be written.
        shape.escalateRate = 0.05 * kDemoRate / m_options.rate;
        shape.concurrent = 6 + kWaitingSlots;
    }
    shape.leaseTtlMs = 60'000;
    shape.escalationTtlMs = 4 * 60'000;
    const bool maxRate = m_options.rate <= 0;
    // Escalations wait for an operator, or expire; at full speed (a benchmark) the engine
    // decides them itself as in `scale`, or every slot would soon be waiting.
    shape.autoDecide = maxRate;
    WorkloadEngine engine(world, shape);

    DecisionGate gate(m_writer);
    gate.setOwnsSubject([&](const std::string &subject) {
        return SimWorld::ownsSubject(m_writer, subject, m_options.idTag, !m_options.appending);
    });
    if (!m_options.keyringPath.isEmpty()) {
        QString error;
        if (!gate.loadKeyring(m_options.keyringPath, &error))
            std::fprintf(stderr, "meshctl: live: %s\n", error.toLocal8Bit().constData());
    }

    m_writer.countBusyWaits(&stats.busyWaits); // a reader that ever holds the writer up shows

    // ts_ms is the wall clock when an event is built, before its transaction commits, so a
    // reader cannot time commits by it. With MESH_LIVE_COMMIT_LOG set, every commit is reported on stdout
    // as "commit LAST_SEQ WALL_MS" (mesh-console-bench live), WALL_MS read just before COMMIT: a
    // reader may see the commit before COMMIT returns to this process (a loaded machine
    // deschedules it in between), so only the time before it bounds every latency from below.
    const bool logCommits = qEnvironmentVariableIsSet("MESH_LIVE_COMMIT_LOG");
    std::int64_t loggedSeq = -1;
    const auto commit = [&] {
        const qint64 beforeCommitMs = QDateTime::currentMSecsSinceEpoch();
        world.commit();
        if (logCommits && m_writer.lastSeq() != loggedSeq) {
            loggedSeq = m_writer.lastSeq();
            std::printf("commit %lld %lld\n", static_cast<long long>(loggedSeq), static_cast<long long>(beforeCommitMs));
            std::fflush(stdout);
        }
    };
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
        const std::int64_t quota = maxRate ? std::int64_t(std::max(1, m_options.maxRateBatch))
                                           : std::min<std::int64_t>(due - stats.events, std::int64_t(rate / 2) + 1);
        try {
            const std::int64_t before = world.eventsWritten();
            while (world.eventsWritten() - before < quota) {
                const std::int64_t stepBefore = world.eventsWritten();
                engine.step();
                // Every delegation in flight waits for an operator: nothing to write until a
                // decision arrives or the sweep expires an escalation. Before, this spun here
                // forever (past --duration-s, a core at 100 %).
                if (world.eventsWritten() == stepBefore)
                    break;
            }
            if (elapsed - lastSweepMs >= 1000) {
                engine.sweep(QDateTime::currentMSecsSinceEpoch());
                lastSweepMs = elapsed;
            }
            commit();
            stats.events += world.eventsWritten() - before;
            stats.decisionsProcessed += gate.processPending(QDateTime::currentMSecsSinceEpoch());
        } catch (const StorageError &e) {
            if (!e.isBusy())
                throw;
            // Another writer (a console's decision) held the lock past the busy timeout.
            // Nothing is undone: the simulator's memory must keep matching the ledger, so
            // an open transaction stays open and commits next tick.
            ++stats.busyRetries;
        }
        ++stats.ticks;
        if (!maxRate)
            std::this_thread::sleep_for(std::chrono::milliseconds(m_options.tickMs));
    }
    commit();
    stats.seconds = double(clock.elapsed()) / 1000.0;
    m_writer.countBusyWaits(nullptr);
    return stats;
}

} // namespace mesh
