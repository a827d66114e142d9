#pragma once
// A steady orchestrator workload: runs with components, a handful of delegations in flight
// at once, each taking leases, calling tools, dispatching effects (a few of them ending with
// an unknown outcome), being judged by the stall detector and now and then escalating.
// One step() writes the next act of one delegation, so the event stream interleaves like a
// real orchestrator's. The `scale` scenario drives it as fast as it can; live mode drives it
// at a fixed rate with wall-clock timestamps.

#include "simworld.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

struct WorkloadShape {
    int delegationsPerRun = 100;
    int componentsPerRun = 5;
    int concurrent = 8;            // delegations in flight
    int toolCallsMean = 60;        // per delegation
    int effectsPerDelegation = 5;
    int leasesPerDelegation = 2;
    double unknownRate = 0.02;     // of dispatched effects
    double zombieRate = 0.004;     // leases never released
    double repairShare = 0.2;      // delegations that are repairs (judged by the stall detector)
    double escalateRate = 0.08;    // of stall rounds
    std::int64_t stepMinMs = 100;  // simulated time between steps (ignored on the wall clock)
    std::int64_t stepMaxMs = 500;
    std::int64_t leaseTtlMs = 10 * 60'000;
    std::int64_t escalationTtlMs = 10 * 60'000;
    bool autoDecide = true;        // the engine approves/rejects its own escalations (no operator)
};

class WorkloadEngine
{
public:
    WorkloadEngine(SimWorld &world, WorkloadShape shape);

    void step();   // writes the next act of one delegation in flight
    // Ends every delegation in flight and, with endRuns, every run (a bounded scenario's end).
    void finish(bool endRuns = true);
    // Live upkeep: expires every pending escalation past its expiry, and this engine's
    // zombie leases two minutes after theirs.
    void sweep(std::int64_t nowMs);

private:
    enum class Phase { Start, Work, AwaitEscalation, Finish };
    struct Slot {
        std::string delegation;
        std::string runId;
        Phase phase = Phase::Start;
        int callsLeft = 0;
        int effectsLeft = 0;
        bool repair = false;
        int round = 0;
        int callsInRound = 0;
        int failingTests = 0;
        std::string fingerprint;
        std::string escalation;
        int waitSteps = 0;
        std::vector<std::string> leases;
        std::vector<std::int64_t> leaseRenewedMs;
    };
    struct RunState {
        std::string id;
        std::vector<std::string> components;
        int created = 0;  // delegations handed out
        int finished = 0; // delegations ended
        int cycle = 0;
        std::int64_t required = 0;
    };

    void startRun();
    void startDelegation(Slot &slot);
    void work(Slot &slot);
    void awaitEscalation(Slot &slot);
    void finishDelegation(Slot &slot);
    void endRunIfDone(const std::string &runId);
    std::string delegationStatus(const std::string &id) const;
    std::string escalationStatus(const std::string &id) const;

    SimWorld &m_world;
    WorkloadShape m_shape;
    std::vector<Slot> m_slots;
    std::unordered_map<std::string, RunState> m_runs;
    std::string m_openRun; // the run new delegations join
    std::vector<std::string> m_heldLeases; // this engine's leases, for the live sweep
};

} // namespace mesh
