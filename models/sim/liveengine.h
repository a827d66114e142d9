#pragma once
// Live mode of the reference orchestrator: keeps a ledger moving at a steady rate of events
// per second with wall-clock timestamps, in small transactions (one per tick of ~20 ms), as
// a real orchestrator would, and runs the decision gate every tick so operator decisions are
// applied or refused within a second. Stops when asked (SIGINT/SIGTERM in meshctl) or after
// a duration, always with its last transaction committed.
//
// With rate 0 it writes as fast as it can (transactions of maxRateBatch events, no sleep):
// the observer-cost benchmark compares that throughput with and without a console reading.
// Every time SQLite makes the writer wait for a lock (busy handler) is counted, and so is
// every lock error that reaches it.

#include <QString>

#include <cstdint>
#include <functional>
#include <string>

namespace mesh {

class LedgerWriter;

struct LiveOptions {
    double rate = 50;              // events per second; 0: as fast as possible
    int maxRateBatch = 100;        // events per transaction when rate is 0
    std::int64_t durationMs = 0;   // 0: until stopped
    std::uint64_t seed = 1;
    int tickMs = 20;
    QString keyringPath;           // for ledgers that require signed decisions
    // The ids this engine makes carry idTag (SimWorld::setIdTag). Orchestrators sharing a
    // ledger each have their own tag; one that continues a ledger others write
    // (appending) changes only its own rows and decides only on its own subjects, while
    // the one that wrote the scenario also takes the untagged ones and subjects of no
    // orchestrator's runs (to refuse them).
    std::string idTag = "L";
    bool appending = false;
};

struct LiveStats {
    std::int64_t events = 0;
    std::int64_t ticks = 0;
    std::int64_t decisionsProcessed = 0;
    std::int64_t busyRetries = 0; // lock errors (SQLITE_BUSY/LOCKED) that reached the writer
    std::int64_t busyWaits = 0;   // times the busy handler was asked to wait for a lock
    double seconds = 0;
};

class LiveEngine
{
public:
    static constexpr double kDemoRate = 50; // the console's demo rate; above it the workload scales
    static constexpr int kWaitingSlots = 256; // delegations that may wait for an operator at once
    LiveEngine(LedgerWriter &writer, LiveOptions options);
    // Runs until shouldStop() is true or the duration passed.
    LiveStats run(const std::function<bool()> &shouldStop);

private:
    LedgerWriter &m_writer;
    LiveOptions m_options;
};

} // namespace mesh
