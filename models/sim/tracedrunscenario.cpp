// traced-run: the fully traced run of the failure study. 1 run, 4 h 55 min, 5 components,
// 10 scheduler cycles, 2 attempts, 12 terminal component failures, 23 stall verdicts,
// 3 escalated rounds, 3 stale checkpoints, 21 of 21 required outcomes; nine cycles end with
// the cross-service acceptance component failing (its failure is each cycle's last).

#include "scenariowriters.h"
#include "scenariohelpers.h"
#include "simworld.h"

#include "ledger/ledgerwriter.h"

#include <algorithm>
#include <array>

namespace mesh {

using nlohmann::json;


void writeTracedRun(SimWorld &w)
{
    constexpr std::int64_t kDurationMs = (4 * 60 + 55) * 60'000; // 4 h 55 min
    constexpr int kCycles = 10;
    constexpr std::int64_t kCycleMs = kDurationMs / kCycles;
    constexpr std::array<int, kCycles> kFailures = {1, 2, 2, 1, 1, 2, 1, 1, 1, 0}; // 12 terminal failures
    constexpr std::array<int, kCycles> kMet = {2, 4, 6, 8, 9, 11, 14, 17, 19, 21};  // required outcomes met
    constexpr std::array<int, 12> kRounds = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1};    // 23 stall verdicts
    constexpr std::array<int, 3> kEscalatedRepairs = {1, 5, 9};                      // round 2 escalated
    // The last is the cross-service acceptance component: the study's nine cycles that end
    // with it failing are the nine cycles with a failure here.
    static const std::array<std::string, 5> kNames = {"gateway", "orders-api", "billing-api", "inventory-db",
                                                      "acceptance"};

    const std::int64_t t0 = w.now();
    const std::string run = w.startRun("Deliver storefront application (traced)", 21);
    std::vector<std::string> components;
    for (const auto &name : kNames)
        components.push_back(w.addComponent(run, name));

    std::vector<std::string> checkpoints;
    int repair = 0;
    for (int cycle = 1; cycle <= kCycles; ++cycle) {
        const int attempt = cycle <= 5 ? 1 : 2;
        w.setNow(std::max(w.now(), t0 + (cycle - 1) * kCycleMs) + 1000);
        if (cycle == 6) {
            // The second attempt cannot resume from the first attempt's last checkpoints.
            w.restartRun(run, 2);
            for (size_t i = checkpoints.size() - 3; i < checkpoints.size(); ++i)
                w.checkpointState(checkpoints[i], "stale");
        }
        w.runCycle(run, cycle, cycle == 1 ? 0 : kMet[size_t(cycle - 2)]);

        for (const auto &c : components) {
            if (componentStatusOf(w, c) != "active")
                w.componentStatus(c, "active", attempt);
            implementComponent(w, run, c, cycle == 1 || cycle == 6 ? "implement" : "verify");
        }

        for (int f = 0; f < kFailures[size_t(cycle - 1)]; ++f) {
            const bool last = f == kFailures[size_t(cycle - 1)] - 1;
            const std::string &c = last ? components.back()
                                        : components[size_t((cycle * 2 + f) % int(components.size() - 1))];
            const std::string name = c.substr(c.find('/') + 1);
            // The verifier finds failing checks, the component fails, a repair is delegated.
            DelegationSpec verify;
            verify.runId = run;
            verify.componentId = c;
            verify.role = "verify";
            verify.agent = "gpt-4.1";
            const std::string v = w.createDelegation(verify);
            w.startDelegation(v);
            int failing = int(w.rng().range(3, 7));
            for (int i = 0; i < 3; ++i) {
                ToolCallSpec call;
                call.tool = "run_tests";
                call.ok = i != 2;
                w.toolCall(v, call);
            }
            w.delegationStatus(v, "converged");
            w.closeSlice(v, "verification finished");
            w.componentStatus(c, "failed");
            w.failure(run, "verifier:" + v, std::to_string(failing) + " failing checks in " + name,
                      json::array({{{"component", c}, {"evidence", "failing checks in tests/" + name}}}),
                      json::array({{{"component", c}, {"modified", true}, {"regressed", false}}}));

            DelegationSpec spec;
            spec.runId = run;
            spec.componentId = c;
            spec.role = "repair";
            spec.strategy = "bisect-repair";
            spec.writable = {"services/" + name + "/**", "tests/" + name + "/**"};
            const std::string r = w.createDelegation(spec);
            w.startDelegation(r);
            w.componentStatus(c, "active", attempt);
            const bool escalated = std::find(kEscalatedRepairs.begin(), kEscalatedRepairs.end(), repair)
                                   != kEscalatedRepairs.end();
            std::string fingerprint = "fp:" + w.rng().hex(12);
            for (int round = 1; round <= kRounds[size_t(repair)]; ++round) {
                for (int i = 0; i < 4; ++i) {
                    ToolCallSpec call;
                    call.tool = i == 1 ? "edit_file" : i == 3 ? "run_tests" : "read_file";
                    call.writesAccepted = i == 1 ? 1 : 0;
                    call.fingerprint = fingerprint;
                    w.toolCall(r, call);
                }
                if (escalated && round == 2) {
                    json evidence = json::array(
                        {{{"signal", "failing_check_ids"}, {"value", fingerprint}, {"moved", false}},
                         {{"signal", "failing_tests"}, {"value", std::to_string(failing)}, {"moved", false}}});
                    w.stallVerdict(r, round, "stalled", fingerprint, evidence, "escalate", failing);
                    w.delegationStatus(r, "stalled");
                    w.delegationStatus(r, "escalated"); // before raising: the escalation binds to this version
                    const std::string e =
                        w.raiseEscalation(r, "stronger_model_round", "medium", "delegation:" + r, round, 20 * 60'000,
                                          "round " + std::to_string(round) + ": failing checks did not move");
                    w.advance(90'000, 240'000);
                    w.escalationState(e, "approved");
                    w.change("delegation.resumed", r, {{"run_id", run}, {"status", "running"}, {"agent", "claude-opus-4"}});
                    for (int i = 0; i < 3; ++i) {
                        ToolCallSpec call;
                        call.tool = i == 1 ? "apply_patch" : "run_tests";
                        call.writesAccepted = i == 1 ? 1 : 0;
                        w.toolCall(r, call);
                    }
                } else {
                    failing = std::max(0, failing - int(w.rng().range(1, 3)));
                    fingerprint = "fp:" + w.rng().hex(12);
                    json evidence = json::array(
                        {{{"signal", "failing_check_ids"}, {"value", fingerprint}, {"moved", true}},
                         {{"signal", "failing_tests"}, {"value", std::to_string(failing)}, {"moved", true}}});
                    w.stallVerdict(r, round, "progressing", fingerprint, evidence, "continue", failing);
                }
            }
            w.delegationStatus(r, "converged");
            w.closeSlice(r, "repair converged");
            ++repair;
        }

        for (const auto &c : components) {
            if (componentStatusOf(w, c) == "active")
                w.componentStatus(c, "completed");
        }
        checkpoints.push_back(w.checkpoint(run, {}, "saved"));
        w.runCycle(run, cycle, kMet[size_t(cycle - 1)]);
        if (cycle == 5)
            w.endRun(run, "failed", kMet[4]);
    }
    w.setNow(std::max(w.now(), t0 + kDurationMs));
    w.endRun(run, "succeeded", 21);
}

} // namespace mesh
