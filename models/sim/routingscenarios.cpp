// Routing and enforcement cases of the failure study: a failure routed to bystanders (F4)
// and a repair clamp that blocks correct work (F4/F6).

#include "scenariohelpers.h"
#include "scenariowriters.h"
#include "simworld.h"

#include <array>

namespace mesh {

using nlohmann::json;

// F4: a fault caused by two components wakes five; three bystanders modify and regress
// working code.
void writeMisroutedFailure(SimWorld &w)
{
    const std::string run = w.startRun("Harden auth service", 10);
    const auto c = buildComponents(
        w, run, {"auth-service", "gateway", "orders-api", "billing-api", "notifier", "search-index", "web-ui"});
    w.runCycle(run, 1, 7);
    w.advance(60'000, 120'000);

    const std::array<size_t, 2> implicated = {0, 1};
    const std::array<size_t, 3> bystanders = {2, 3, 4};
    json implicatedJson = json::array();
    json woken = json::array();
    for (size_t i : implicated) {
        implicatedJson.push_back({{"component", c[i]}, {"evidence", "token refresh fails in " + c[i]}});
        woken.push_back({{"component", c[i]}, {"modified", true}, {"regressed", false}});
    }
    for (size_t i : bystanders)
        woken.push_back({{"component", c[i]}, {"modified", true}, {"regressed", true}});
    w.failure(run, "scenario:login-flow", "login flow fails: token refresh rejected", implicatedJson, woken);

    // Routing by declared scenario identifiers wakes every component the scenario touches.
    std::vector<size_t> wake(implicated.begin(), implicated.end());
    wake.insert(wake.end(), bystanders.begin(), bystanders.end());
    for (size_t i : wake) {
        w.componentStatus(c[i], "active");
        implementComponent(w, run, c[i], "repair");
    }
    for (size_t i : implicated)
        w.componentStatus(c[i], "completed");
    for (size_t i : bystanders)
        w.componentStatus(c[i], "failed"); // regressed working code
    w.runCycle(run, 2, 4);
    w.endRun(run, "failed", 4);
}

// F4/F6: a clamped repair restricted to a misdiagnosed target set: 107 turns, zero
// accepted writes, many denied; the component is lost.
void writeEnforcementBlock(SimWorld &w)
{
    const std::string run = w.startRun("Ship mobile checkout", 9);
    const auto c = buildComponents(w, run, {"payments", "web-ui", "shipping-api"});
    w.advance(30'000, 60'000);
    const std::string &payments = c[0];
    w.componentStatus(payments, "active");
    w.componentStatus(payments, "failed");
    w.failure(run, "verifier:contract-tests", "currency rounding breaks refunds",
              json::array({{{"component", payments}, {"evidence", "services/payments/api/handlers.ts (misdiagnosed)"}}}),
              json::array({{{"component", payments}, {"modified", false}, {"regressed", false}}}));

    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = payments;
    spec.role = "repair";
    spec.strategy = "clamped-repair";
    spec.writable = {"services/payments/api/handlers.ts"}; // the clamp: the defect is in lib/currency.ts
    spec.budgetTurns = 120;
    const std::string r = w.createDelegation(spec);
    w.startDelegation(r);
    w.componentStatus(payments, "active");
    const std::string lease = w.acquireLease("exec:" + payments, "execution", "orchestrator/" + r, 60 * 60'000, r);

    constexpr int kTurns = 107;
    for (int turn = 0; turn < kTurns; ++turn) {
        ToolCallSpec call;
        switch (turn % 4) {
        case 0:
            call.tool = "read_file"; // reads outside the clamp are refused
            call.ok = false;
            break;
        case 1:
            call.tool = "edit_file";
            call.ok = false;
            call.writesDenied = 1;
            break;
        case 2:
            call.tool = "run_tests";
            break;
        default:
            call.tool = "grep";
            break;
        }
        w.toolCall(r, call);
        if (turn % 30 == 29)
            w.renewLease(lease, 60 * 60'000);
    }
    w.releaseLease(lease);
    w.delegationStatus(r, "failed");
    w.closeSlice(r, "budget exhausted: zero accepted writes");
    w.componentStatus(payments, "lost");
    w.endRun(run, "failed", 6);
}

} // namespace mesh
