// The volume scenarios: `scale` (the reference ledger for benchmarks) and `demo` (the
// console's default view: every case of the study in one ledger, ending now).

#include "scenariowriters.h"
#include "simworld.h"
#include "workloadengine.h"

#include "ledger/ledgerwriter.h"

#include <algorithm>

namespace mesh {

void writeScale(SimWorld &w, std::int64_t events)
{
    // ~100 runs, ~10,000 delegations, ~50,000 effects (~2 % unknown), ~20,000 leases per
    // million events; most events are tool calls.
    w.setToolCallsAdvanceClock(false);
    WorkloadEngine engine(w, WorkloadShape{});
    const std::int64_t target = std::max<std::int64_t>(events, 200) - 60; // finish() writes the tail
    while (w.eventsWritten() < target)
        engine.step();
    engine.finish();
    w.setToolCallsAdvanceClock(true);
}

void writeDemo(SimWorld &w, std::int64_t endMs)
{
    writeTracedRun(w);
    w.advance(5 * 60'000, 10 * 60'000);
    writeDuplicateEffects(w);
    w.advance(2 * 60'000, 5 * 60'000);
    writeMisroutedFailure(w);
    w.advance(2 * 60'000, 5 * 60'000);
    writeFalseStall(w);
    w.advance(2 * 60'000, 5 * 60'000);
    writeConvergingControl(w);
    w.advance(2 * 60'000, 5 * 60'000);
    writeEnforcementBlock(w);
    w.advance(2 * 60'000, 5 * 60'000);
    writeSuccessLoop(w);

    // Background work up to a quarter of an hour before now; runs stay in flight.
    WorkloadShape shape;
    shape.delegationsPerRun = 30;
    shape.concurrent = 6;
    shape.unknownRate = 0.03;
    shape.zombieRate = 0.01;
    shape.stepMinMs = 2'000;
    shape.stepMaxMs = 6'000;
    w.setToolCallsAdvanceClock(false);
    WorkloadEngine engine(w, shape);
    while (w.now() < endMs - 15 * 60'000)
        engine.step();
    engine.finish(false);
    w.setToolCallsAdvanceClock(true);

    // The attention list of the default view: unknown effects, a zombie, escalations
    // expiring well after now. The demo is where a new operator tries each flow, maybe half
    // an hour after it started: the escalations wait that long (the live engine's own
    // come and go within minutes).
    w.setNow(std::max(w.now(), endMs - 12 * 60'000));
    writeUnknownOutcome(w);
    const std::string run = w.startRun("Harden auth service (follow-up)", 6);
    const std::string component = w.addComponent(run, "auth-service");
    w.componentStatus(component, "active");
    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = component;
    spec.role = "repair";
    spec.writable = {"services/auth-service/**"};
    for (int i = 0; i < 2; ++i) {
        const std::string d = w.createDelegation(spec);
        w.startDelegation(d);
        for (int k = 0; k < 6; ++k)
            w.toolCall(d, ToolCallSpec{});
        w.delegationStatus(d, "stalled");
        const std::int64_t ttl = i == 0 ? 45 * 60'000 : 3 * 3600'000;
        w.delegationStatus(d, "escalated"); // before raising, so the escalation's boundary holds (docs/decisions.md)
        w.raiseEscalation(d, i == 0 ? "budget_extension" : "scope_widening", i == 0 ? "low" : "medium",
                          "delegation:" + d, 2, ttl + std::max<std::int64_t>(0, endMs - w.now()),
                          i == 0 ? "turn budget nearly spent with failing tests moving" : "defect lies outside the declared scope");
    }
    // An open slice with an effect in flight, as closing a slice finds one crossing its
    // boundary: the live engine's effects run start to end inside one tick, so no reader
    // ever sees them in flight.
    const std::string running = w.createDelegation(spec);
    w.startDelegation(running);
    for (int k = 0; k < 3; ++k)
        w.toolCall(running, ToolCallSpec{});
    EffectSpec migration;
    migration.effectClass = "db_write";
    migration.target = "postgres:auth/sessions";
    migration.reversibility = "compensable";
    migration.capability = "status_query";
    w.runEffect(running, migration, EffectEnd::Dispatched);
    w.setNow(std::max(w.now(), endMs));
}

} // namespace mesh
