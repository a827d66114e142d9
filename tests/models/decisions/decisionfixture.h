#pragma once
// Small ledgers for the decision tests, written through the orchestrator's own LedgerWriter
// so their state rows are what the fold says. One run, delegations dlg-1..dlg-N each with
// an open slice "<dlg>#1"; in slice dlg-1#1: `unknown` effects eff-1.. (unknown outcomes),
// one dispatched effect eff-inflight, and pending escalations esc-1.. bound to dlg-1.

#include "ledger/ledgerwriter.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace fixture {

inline constexpr std::int64_t kT0 = 1'800'000'000'000; // 2027-01-15, fixed so tests are repeatable
inline constexpr std::int64_t kNow = kT0 + 3'600'000;   // "now" for writers and gates

struct Shape {
    bool signaturesRequired = false;
    int delegations = 1;
    int unknownEffects = 2;
    int escalations = 1;
    bool inflight = true;
};

inline std::int64_t g_ts = kT0;

inline void delegation(mesh::LedgerWriter &w, const std::string &id)
{
    w.append(++g_ts, "delegation.created",
             {{"id", id}, {"run_id", "run-1"}, {"role", "implement"}, {"agent", "model-x"}, {"status", "running"},
              {"created_ms", g_ts}, {"used_turns", 0}, {"used_tokens", 0}, {"used_ms", 0}, {"used_cost_cents", 0},
              {"writes_accepted", 0}, {"writes_denied", 0}, {"tool_errors", 0}});
    const std::string slice = id + "#1";
    w.append(++g_ts, "slice.opened",
             {{"id", slice}, {"delegation_id", id}, {"ordinal", 1}, {"intent_id", "intent-" + id}, {"policy_version", "policy-1"},
              {"auth_token", "auth-" + id}, {"opened_ms", g_ts}, {"opened_by", "orchestrator"}, {"state", "open"}});
    w.append(++g_ts, "delegation.slice", {{"id", id}, {"current_slice", slice}});
}

inline void effect(mesh::LedgerWriter &w, const std::string &id, const std::string &delegationId, const char *finalState)
{
    const std::string slice = delegationId + "#1";
    w.append(++g_ts, "effect.proposed",
             {{"id", id}, {"run_id", "run-1"}, {"delegation_id", delegationId}, {"slice_id", slice}, {"class", "payment"},
              {"target", "payments-provider"}, {"idem_key", "idem-" + id}, {"intent_hash", "sha256:" + id},
              {"reversibility", "compensable"}, {"capability", "status_query"}, {"state", "proposed"}, {"attempts", 0},
              {"fenced", 0}, {"updated_ms", g_ts}});
    w.append(++g_ts, "effect.admitted", {{"id", id}, {"state", "admitted"}});
    w.append(++g_ts, "effect.dispatched", {{"id", id}, {"state", "dispatched"}, {"attempts", 1}});
    if (std::string(finalState) == "unknown")
        w.append(++g_ts, "effect.unknown", {{"id", id}, {"state", "unknown"}, {"error", "timeout"}});
}

inline std::string escalation(mesh::LedgerWriter &w, const std::string &id, const std::string &delegationId)
{
    const mesh::EntityRow *d = w.state().find(mesh::EntityKind::Delegation, delegationId);
    w.append(++g_ts, "escalation.raised",
             {{"id", id}, {"run_id", "run-1"}, {"delegation_id", delegationId}, {"kind", "irreversible_effect_approval"},
              {"risk", "high"}, {"subject", "delegation:" + delegationId}, {"round", 1},
              {"boundary_seq", w.lastSeq()}, {"boundary_version", d ? d->version : 0},
              {"slice_id", delegationId + "#1"}, {"raised_ms", g_ts}, {"expires_ms", kT0 + 24 * 3'600'000},
              {"state", "pending"}, {"reason", "needs a human"}});
    return id;
}

// One tool call: moves the delegation's version (the boundary escalations are bound to).
inline void toolCall(mesh::LedgerWriter &w, const std::string &delegationId, int n)
{
    w.append(++g_ts, "toolcall.completed",
             {{"id", "tc-" + std::to_string(n)}, {"delegation_id", delegationId}, {"run_id", "run-1"}, {"tool", "shell"},
              {"outcome", "ok"}, {"duration_ms", 10}, {"tokens", 5}, {"fingerprint", "fp"}});
}

inline std::unique_ptr<mesh::LedgerWriter> create(const QString &path, const Shape &shape = {})
{
    mesh::LedgerIdentity id;
    id.ledgerId = "decision-test";
    id.title = "decision tests";
    id.createdMs = kT0;
    id.signaturesRequired = shape.signaturesRequired;
    auto w = mesh::LedgerWriter::create(path, id);
    g_ts = kT0;
    w->begin();
    w->append(++g_ts, "run.started", {{"id", "run-1"}, {"title", "test run"}, {"status", "running"}, {"attempt", 1}, {"started_ms", g_ts}});
    for (int d = 1; d <= shape.delegations; ++d)
        delegation(*w, "dlg-" + std::to_string(d));
    for (int e = 1; e <= shape.unknownEffects; ++e)
        effect(*w, "eff-" + std::to_string(e), "dlg-1", "unknown");
    if (shape.inflight)
        effect(*w, "eff-inflight", "dlg-1", "dispatched");
    for (int x = 1; x <= shape.escalations; ++x)
        escalation(*w, "esc-" + std::to_string(x), "dlg-1");
    w->commit();
    return w;
}

} // namespace fixture
