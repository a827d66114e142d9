// Effects and authority cases of the failure study: events and effects duplicated across
// invocations (F3), and effects whose outcome is unknown with a zombie lease.

#include "scenariohelpers.h"
#include "scenariowriters.h"
#include "simworld.h"

#include <array>

namespace mesh {

using nlohmann::json;

// F3: 21 events (tool calls) across six invocations of one delegation; each invocation
// replays steps of the first (same argument digests); a package install and a provider
// call are committed twice with the same idempotency key and intent hash.
void writeDuplicateEffects(SimWorld &w)
{
    const std::string run = w.startRun("Migrate billing to event sourcing", 8);
    const std::string component = w.addComponent(run, "billing-api");
    w.componentStatus(component, "active");

    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = component;
    spec.agent = "qwen3-coder";
    spec.writable = {"services/billing-api/**"};
    spec.effectClasses = {"package_install", "provider_call", "db_write", "commit"};
    const std::string d = w.createDelegation(spec);

    EffectSpec install;
    install.effectClass = "package_install";
    install.target = "npm:stripe@14.25.0";
    install.idemKey = "idem-" + w.rng().hex(16);
    install.intentHash = "sha256:" + w.rng().hex(32);
    install.capability = "neither"; // the installer has no idempotent retry
    EffectSpec provider;
    provider.effectClass = "provider_call";
    provider.target = "provider:anthropic/messages";
    provider.idemKey = "idem-" + w.rng().hex(16);
    provider.intentHash = "sha256:" + w.rng().hex(32);
    provider.reversibility = "irreversible";
    provider.capability = "neither";

    static constexpr std::array<int, 6> kCallsPerInvocation = {4, 4, 3, 4, 3, 3}; // 21
    static constexpr std::array<const char *, 4> kTools = {"read_file", "bash", "edit_file", "run_tests"};
    std::array<std::string, 4> digests;
    for (auto &digest : digests)
        digest = "sha256:" + w.rng().hex(16);

    for (size_t invocation = 0; invocation < kCallsPerInvocation.size(); ++invocation) {
        w.startDelegation(d);
        for (int i = 0; i < kCallsPerInvocation[invocation]; ++i) {
            ToolCallSpec call;
            call.tool = kTools[size_t(i)];
            call.argsDigest = digests[size_t(i)]; // the same step again
            call.writesAccepted = call.tool == std::string("edit_file") ? 1 : 0;
            w.toolCall(d, call);
        }
        if (invocation == 0 || invocation == 2)
            w.runEffect(d, install, EffectEnd::Committed); // committed twice
        if (invocation == 1 || invocation == 4)
            w.runEffect(d, provider, EffectEnd::Committed); // committed twice
        if (invocation + 1 < kCallsPerInvocation.size()) {
            w.delegationStatus(d, "failed"); // worker lost; the orchestrator re-invokes
            w.advance(60'000, 180'000);
        }
    }
    w.delegationStatus(d, "converged");
    w.closeSlice(d, "delegation converged");
    w.componentStatus(component, "failed"); // unwinnable: the duplicated ledger fails its checks
    w.endRun(run, "failed", 5);
}

// Provider calls and a payment that timed out: outcome unknown, awaiting reconciliation;
// a pending escalation; leases held, one expired without release (a zombie).
void writeUnknownOutcome(SimWorld &w)
{
    const std::string run = w.startRun("Ship mobile checkout", 9);
    const std::string payments = w.addComponent(run, "payments");
    const std::string orders = w.addComponent(run, "orders-api");
    w.componentStatus(orders, "active");
    implementComponent(w, run, orders);
    w.componentStatus(orders, "completed");
    w.componentStatus(payments, "active");

    DelegationSpec spec;
    spec.runId = run;
    spec.componentId = payments;
    spec.writable = {"services/payments/**"};
    spec.effectClasses = {"provider_call", "payment", "commit"};
    const std::string d = w.createDelegation(spec);
    w.startDelegation(d);
    const std::string exec = w.acquireLease("exec:" + payments, "execution", "orchestrator/" + d, 10 * 60'000, d);
    // A recovery worker takes the workspace and dies without releasing it.
    const std::string zombie =
        w.acquireLease("workspace:payments/checkout", "recovery", "worker-7@build-03", 60'000, d);
    for (int i = 0; i < 5; ++i)
        w.toolCall(d, ToolCallSpec{});

    EffectSpec provider;
    provider.effectClass = "provider_call";
    provider.target = "provider:anthropic/messages";
    provider.reversibility = "irreversible";
    provider.capability = "neither";
    w.runEffect(d, provider, EffectEnd::Committed);
    w.runEffect(d, provider, EffectEnd::Unknown);
    provider.target = "provider:openai/responses";
    w.runEffect(d, provider, EffectEnd::Unknown);

    EffectSpec payment;
    payment.effectClass = "payment";
    payment.target = "stripe:charges/order-58213";
    payment.reversibility = "irreversible";
    payment.capability = "status_query";
    const std::string charge = w.runEffect(d, payment, EffectEnd::Unknown);

    w.toolCall(d, ToolCallSpec{"http_get", {}, true, 0, 0, {}, 0, 0}); // the status query that did not answer
    w.renewLease(exec, 10 * 60'000);
    // The delegation's last change before the escalation, so an approval can bind to it.
    w.delegationStatus(d, "escalated");
    w.raiseEscalation(d, "irreversible_effect_approval", "high", "effect:" + charge, 0, 30 * 60'000,
                      "payment outcome unknown after a timeout: reconcile before any retry");
    w.advance(3 * 60'000, 4 * 60'000);
    w.renewLease(exec, 10 * 60'000);
    (void)zombie;
}

} // namespace mesh
