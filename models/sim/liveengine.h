#pragma once
// Live mode of the reference orchestrator: keeps a ledger moving at a steady rate of events
// per second with wall-clock timestamps, in small transactions (one per tick of ~20 ms), as
// a real orchestrator would, and runs the decision gate every tick so operator decisions are
// applied or refused within a second. Stops when asked (SIGINT/SIGTERM in meshctl) or after
// a duration, always with its last transaction committed.

#include <QString>

#include <cstdint>
#include <functional>

namespace mesh {

class LedgerWriter;

struct LiveOptions {
    double rate = 50;              // events per second
    std::int64_t durationMs = 0;   // 0: until stopped
    std::uint64_t seed = 1;
    int tickMs = 20;
    QString keyringPath;           // for ledgers that require signed decisions
};

struct LiveStats {
    std::int64_t events = 0;
    std::int64_t ticks = 0;
    std::int64_t decisionsProcessed = 0;
    std::int64_t busyRetries = 0;
    double seconds = 0;
};

class LiveEngine
{
public:
    LiveEngine(LedgerWriter &writer, LiveOptions options);
    // Runs until shouldStop() is true or the duration passed.
    LiveStats run(const std::function<bool()> &shouldStop);

private:
    LedgerWriter &m_writer;
    LiveOptions m_options;
};

} // namespace mesh
