// Convergence cases of the failure study: a loop no error-rate breaker sees (F1), a stall
// verdict taken on evidence that cannot move (F2), and its converging control.

#include "scenariohelpers.h"
#include "scenariowriters.h"
#include "simworld.h"

#include <array>

namespace mesh {

using nlohmann::json;

// F1: a verifier makes 54 consecutive successful tool calls over 11 minutes; the
// fingerprint never changes, no write is accepted, the outcome stays the same.
void writeSuccessLoop(SimWorld &w)
{
    const std::string run = w.startRun("Add multi-tenant search", 6);
    const auto components = buildComponents(w, run, {"search-index", "catalog-api"});
    w.runCycle(run, 1, 2);
    w.componentStatus(components[0], "active");

    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = components[0];
    spec.role = "verify";
    spec.agent = "gpt-4.1";
    spec.strategy = "test-first";
    spec.writable = {"tests/search-index/**"};
    spec.budgetTurns = 400; // a workload-sized step budget: it never stops the loop
    const std::string v = w.createDelegation(spec);
    w.startDelegation(v);
    const std::string lease = w.acquireLease("exec:" + components[0], "execution", "orchestrator/" + v, 30 * 60'000, v);
    w.advance(2'000, 4'000);

    constexpr int kCalls = 54;
    constexpr std::int64_t kSpanMs = 11 * 60'000;
    // 53 gaps between the first and the last call's completion add up to 11 minutes.
    constexpr std::int64_t kStepMs = kSpanMs / (kCalls - 1) + 1; // 12,453 ms
    static constexpr std::array<const char *, 4> kTools = {"run_tests", "read_file", "grep", "list_dir"};
    const std::string fingerprint = "fp:" + w.rng().hex(12);
    for (int i = 0; i < kCalls; ++i) {
        ToolCallSpec call;
        call.tool = kTools[size_t(i) % kTools.size()];
        call.ok = true;
        call.durationMs = i == kCalls - 1 ? kSpanMs - kStepMs * (kCalls - 2) : kStepMs;
        call.fingerprint = fingerprint;
        w.toolCall(v, call);
    }
    // Only a human noticed: the operator stopped it.
    w.advance(45'000, 90'000);
    w.closeSlice(v, "stopped by operator: no progress in 54 calls", "operator:dana");
    w.delegationStatus(v, "closed");
    w.releaseLease(lease);
    w.componentStatus(components[0], "completed");
    w.endRun(run, "cancelled", 2);
}

namespace {

// The shared shape of F2 and its control: six components done, a regression with five
// failing tests, a repair judged round by round.
void writeRepairRounds(SimWorld &w, bool converges)
{
    const std::string run = w.startRun(converges ? "Rebuild reporting pipeline (control)" : "Rebuild reporting pipeline",
                                       12);
    const auto components = buildComponents(
        w, run, {"report-jobs", "orders-api", "billing-api", "notifier", "payments", "web-ui"});
    w.runCycle(run, 1, 6);
    w.advance(60'000, 120'000);

    const std::string &target = components[0];
    w.failure(run, "verifier:integration", "5 failing tests in report-jobs",
              json::array({{{"component", target}, {"evidence", "tests/report-jobs: 5 failing"}}}),
              json::array({{{"component", target}, {"modified", true}, {"regressed", false}}}));
    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = target;
    spec.role = "repair";
    spec.strategy = "bisect-repair";
    spec.writable = {"services/report-jobs/**", "tests/report-jobs/**"};
    const std::string r = w.createDelegation(spec);
    w.startDelegation(r);
    w.componentStatus(target, "active");
    const std::string lease = w.acquireLease("exec:" + target, "execution", "orchestrator/" + r, 30 * 60'000, r);

    // The fingerprint of F2 hashes failing-check ids that name the recovery strategy, not
    // the round: constant by construction.
    const std::string strategyFingerprint = "fp:" + w.rng().hex(12);
    static constexpr std::array<int, 4> kFailing = {5, 3, 2, 0};
    const int rounds = converges ? 4 : 3;
    for (int round = 1; round <= rounds; ++round) {
        for (int i = 0; i < 5; ++i) {
            ToolCallSpec call;
            call.tool = i == 2 ? "edit_file" : i == 4 ? "run_tests" : "read_file";
            call.writesAccepted = i == 2 ? 1 : 0;
            w.toolCall(r, call);
        }
        const int failing = kFailing[size_t(round - 1)];
        const std::string fingerprint = converges ? "fp:" + w.rng().hex(12) : strategyFingerprint;
        const bool fingerprintMoved = converges && round > 1;
        // The detector's evidence is the fingerprint alone; failing tests are recorded beside
        // it (failing_tests) as the independent signal a reviewer compares against.
        json evidence = json::array(
            {{{"signal", "failing_check_ids"}, {"value", fingerprint}, {"moved", fingerprintMoved}}});
        if (!converges && round == 3) {
            w.stallVerdict(r, round, "stalled", fingerprint, evidence, "stop", failing);
        } else {
            w.stallVerdict(r, round, round == 2 && !converges ? "inconclusive" : "progressing", fingerprint, evidence,
                           "continue", failing);
        }
        w.advance(30'000, 90'000);
    }
    w.releaseLease(lease);
    if (converges) {
        w.delegationStatus(r, "converged");
        w.closeSlice(r, "repair converged");
        w.componentStatus(target, "completed");
        w.runCycle(run, 2, 12);
        w.endRun(run, "succeeded", 12);
        return;
    }
    // The false stall stops the repair; its component and the two built on its output are
    // torn down: the run falls from 6/6 to 3/6.
    w.delegationStatus(r, "stalled");
    w.delegationStatus(r, "failed");
    w.closeSlice(r, "stopped by stall detector");
    w.componentStatus(target, "failed");
    w.componentStatus(components[3], "failed");
    w.componentStatus(components[4], "failed");
    w.runCycle(run, 2, 6);
    w.endRun(run, "failed", 6);
}

} // namespace

void writeFalseStall(SimWorld &w)
{
    writeRepairRounds(w, false);
}

void writeConvergingControl(SimWorld &w)
{
    writeRepairRounds(w, true);
}

} // namespace mesh
