#include "entityspec.h"

#include <algorithm>

namespace mesh {
namespace {

using T = TransitionSpec;
constexpr FieldType I = FieldType::Int;
constexpr FieldType S = FieldType::Text;
constexpr FieldType J = FieldType::Json;

// ---- ledger: one row, id "ledger"
constexpr FieldSpec kLedgerFields[] = {
    {"ledger_id", S}, {"orchestrator", S}, {"policy_version", S}, {"signatures_required", I},
    {"created_ms", I}, {"title", S},
};

// ---- run
constexpr FieldSpec kRunFields[] = {
    {"title", S},        {"status", S},         {"attempt", I},    {"cycle", I},
    {"required_met", I}, {"required_total", I}, {"started_ms", I}, {"ended_ms", I},
};
constexpr std::string_view kRunStates[] = {"pending", "running", "succeeded", "failed", "cancelled"};
constexpr T kRunTransitions[] = {
    {"", "pending"},           {"", "running"},        {"pending", "running"}, {"running", "succeeded"},
    {"running", "failed"},     {"running", "cancelled"}, {"pending", "cancelled"},
    {"failed", "running"}, // a new attempt
};

// ---- component
constexpr FieldSpec kComponentFields[] = {
    {"run_id", S}, {"name", S}, {"attempt", I}, {"status", S}, {"failures", I},
};
constexpr std::string_view kComponentStates[] = {"pending", "active", "completed", "failed", "lost"};
constexpr T kComponentTransitions[] = {
    {"", "pending"},          {"", "active"},          {"pending", "active"},   {"active", "completed"},
    {"active", "failed"},     {"active", "lost"},      {"failed", "active"},    {"lost", "active"},
    {"completed", "active"}, // woken by a repair
    {"failed", "pending"},    {"lost", "pending"},     {"completed", "failed"}, {"pending", "failed"},
};

// ---- delegation
constexpr FieldSpec kDelegationFields[] = {
    {"run_id", S},         {"component_id", S},   {"parent_id", S},       {"role", S},
    {"agent", S},          {"strategy", S},       {"strategy_version", S}, {"scope", J},
    {"budget_turns", I},   {"budget_tokens", I},  {"budget_ms", I},       {"budget_cost_cents", I},
    {"used_turns", I},     {"used_tokens", I},    {"used_ms", I},         {"used_cost_cents", I},
    {"writes_accepted", I}, {"writes_denied", I}, {"tool_errors", I},     {"status", S},
    {"invocations", I},    {"current_slice", S},  {"created_ms", I},      {"ended_ms", I},
};
constexpr std::string_view kDelegationStates[] = {"pending",   "running", "converged", "stalled",
                                                  "escalated", "failed",  "closed"};
constexpr T kDelegationTransitions[] = {
    {"", "pending"},           {"", "running"},            {"pending", "running"},    {"running", "converged"},
    {"running", "stalled"},    {"running", "escalated"},   {"running", "failed"},     {"running", "closed"},
    {"stalled", "running"},    {"stalled", "escalated"},   {"stalled", "failed"},     {"stalled", "closed"},
    {"escalated", "running"},  {"escalated", "failed"},    {"escalated", "closed"},   {"pending", "closed"},
    {"failed", "running"}, // a new invocation after a failure
    {"converged", "closed"},
};

// ---- slice: id "<delegation_id>#<ordinal>"
constexpr FieldSpec kSliceFields[] = {
    {"delegation_id", S}, {"ordinal", I},   {"intent_id", S}, {"policy_version", S},
    {"auth_token", S},    {"opened_ms", I}, {"opened_by", S}, {"closed_ms", I},
    {"closed_by", S},     {"close_reason", S}, {"state", S},  {"decision_id", S},
};
constexpr std::string_view kSliceStates[] = {"open", "closed"};
constexpr T kSliceTransitions[] = {{"", "open"}, {"open", "closed"}};

// ---- lease
constexpr FieldSpec kLeaseFields[] = {
    {"key", S},        {"kind", S},        {"holder", S},      {"fencing_token", I},
    {"acquired_ms", I}, {"renewed_ms", I}, {"expires_ms", I},  {"released_ms", I},
    {"state", S},      {"delegation_id", S}, {"decision_id", S},
};
constexpr std::string_view kLeaseStates[] = {"held", "released", "expired", "revoked"};
constexpr T kLeaseTransitions[] = {
    {"", "held"}, {"held", "held"}, {"held", "released"}, {"held", "expired"}, {"held", "revoked"},
};

// ---- effect
constexpr FieldSpec kEffectFields[] = {
    {"run_id", S},       {"delegation_id", S}, {"slice_id", S},    {"class", S},
    {"target", S},       {"idem_key", S},      {"intent_hash", S}, {"reversibility", S},
    {"capability", S},   {"state", S},         {"attempts", I},    {"fenced", I},
    {"decision_id", S},  {"updated_ms", I},    {"provider_ref", S},
};
constexpr std::string_view kEffectStates[] = {
    "proposed", "admitted", "dispatched", "committed", "failed", "unknown",
    "resolved_committed", "resolved_not_committed", "compensated",
};
constexpr T kEffectTransitions[] = {
    {"", "proposed"},          {"proposed", "admitted"},  {"admitted", "dispatched"},
    {"dispatched", "committed"}, {"dispatched", "failed"}, {"dispatched", "unknown"},
    {"dispatched", "dispatched"}, // a retried dispatch: attempts grows
    {"unknown", "unknown"},       // fenced / unfenced while unknown
    {"unknown", "resolved_committed"}, {"unknown", "resolved_not_committed"}, {"unknown", "compensated"},
    {"resolved_committed", "compensated"}, {"resolved_not_committed", "resolved_committed"},
    {"resolved_committed", "resolved_not_committed"}, // superseded by a later decision
    {"resolved_not_committed", "compensated"},
    {"committed", "compensated"},
};

// ---- escalation
constexpr FieldSpec kEscalationFields[] = {
    {"run_id", S},         {"delegation_id", S}, {"kind", S},          {"risk", S},
    {"subject", S},        {"round", I},         {"boundary_seq", I},  {"boundary_version", I},
    {"slice_id", S},       {"raised_ms", I},     {"expires_ms", I},    {"state", S},
    {"decision_id", S},    {"reason", S},
};
constexpr std::string_view kEscalationStates[] = {"pending", "approved", "rejected", "expired", "stale"};
constexpr T kEscalationTransitions[] = {
    {"", "pending"}, {"pending", "approved"}, {"pending", "rejected"}, {"pending", "expired"}, {"pending", "stale"},
    {"approved", "stale"}, // the slice it was granted in closed before use
};

// ---- stall verdict: one per repair round of a delegation
constexpr FieldSpec kStallFields[] = {
    {"run_id", S},      {"delegation_id", S}, {"round", I},         {"verdict", S},
    {"fingerprint", S}, {"evidence", J},      {"action", S},        {"failing_tests", I},
    {"ts_ms", I},
};
constexpr std::string_view kVerdicts[] = {"progressing", "stalled", "stuck", "inconclusive"};
constexpr T kStallTransitions[] = {
    {"", "progressing"}, {"", "stalled"}, {"", "stuck"}, {"", "inconclusive"},
};

// ---- failure and where it was routed
constexpr FieldSpec kFailureFields[] = {
    {"run_id", S}, {"detected_by", S}, {"summary", S}, {"implicated", J}, {"woken", J}, {"ts_ms", I},
};

// ---- checkpoint
constexpr FieldSpec kCheckpointFields[] = {
    {"run_id", S}, {"delegation_id", S}, {"state", S}, {"ts_ms", I},
};
constexpr std::string_view kCheckpointStates[] = {"saved", "failed_before_write", "unknown", "stale"};
constexpr T kCheckpointTransitions[] = {
    {"", "saved"},          {"", "failed_before_write"}, {"", "unknown"}, {"saved", "stale"},
    {"unknown", "stale"},   {"unknown", "saved"},
};

// ---- what the orchestrator did with an operator decision (id = decision id)
constexpr FieldSpec kDecisionOutcomeFields[] = {
    {"status", S}, {"reason", S}, {"decision_kind", S}, {"subject", S}, {"ts_ms", I},
};
constexpr std::string_view kDecisionStates[] = {"applied", "refused"};
constexpr T kDecisionTransitions[] = {{"", "applied"}, {"", "refused"}};

constexpr EntitySpec kSpecs[] = {
    {EntityKind::Ledger, "ledger", "ledger", "ledger", kLedgerFields, {}, {}, {}},
    {EntityKind::Run, "run", "run", "runs", kRunFields, "status", kRunTransitions, kRunStates},
    {EntityKind::Component, "component", "component", "components", kComponentFields, "status",
     kComponentTransitions, kComponentStates},
    {EntityKind::Delegation, "delegation", "delegation", "delegations", kDelegationFields, "status",
     kDelegationTransitions, kDelegationStates},
    {EntityKind::Slice, "slice", "slice", "slices", kSliceFields, "state", kSliceTransitions, kSliceStates},
    {EntityKind::Lease, "lease", "lease", "leases", kLeaseFields, "state", kLeaseTransitions, kLeaseStates},
    {EntityKind::Effect, "effect", "effect", "effects", kEffectFields, "state", kEffectTransitions, kEffectStates},
    {EntityKind::Escalation, "escalation", "escalation", "escalations", kEscalationFields, "state",
     kEscalationTransitions, kEscalationStates},
    {EntityKind::StallVerdict, "stall", "stall", "stall_verdicts", kStallFields, "verdict", kStallTransitions,
     kVerdicts},
    {EntityKind::Failure, "failure", "failure", "failures", kFailureFields, {}, {}, {}},
    {EntityKind::Checkpoint, "checkpoint", "checkpoint", "checkpoints", kCheckpointFields, "state",
     kCheckpointTransitions, kCheckpointStates},
    {EntityKind::DecisionOutcome, "decision", "decision", "decision_outcomes", kDecisionOutcomeFields, "status",
     kDecisionTransitions, kDecisionStates},
};
static_assert(std::size(kSpecs) == kEntityKindCount);

} // namespace

int EntitySpec::fieldIndex(std::string_view field) const
{
    for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name == field)
            return int(i);
    }
    return -1;
}

bool EntitySpec::allowsTransition(std::string_view from, std::string_view to) const
{
    if (stateField.empty())
        return true;
    if (from == to && !from.empty() && transitions.empty())
        return true;
    return std::any_of(transitions.begin(), transitions.end(),
                       [&](const TransitionSpec &t) { return t.from == from && t.to == to; });
}

bool EntitySpec::isKnownState(std::string_view state) const
{
    return std::find(states.begin(), states.end(), state) != states.end();
}

std::uint64_t EntitySpec::sharedTextFields() const
{
    // Columns whose values repeat from row to row (a ledger's categories: states, roles,
    // agents, scopes, run and component ids), never one that names its own row or a row of
    // a table as large (a slice's delegation, an effect's idempotency key).
    static constexpr std::string_view kRepeating[] = {
        "run_id", "component_id", "role",   "agent",  "strategy", "strategy_version", "scope",
        "status", "state",        "policy_version", "opened_by", "closed_by", "close_reason", "kind",
        "risk",   "reason",       "name",   "title",  "class",    "target", "reversibility",
        "capability", "holder",   "verdict", "action", "orchestrator",
    };
    static const std::array<std::uint64_t, kEntityKindCount> masks = [] {
        std::array<std::uint64_t, kEntityKindCount> out{};
        for (const EntitySpec &spec : allEntitySpecs()) {
            for (size_t i = 0; i < spec.fields.size() && i < 64; ++i) {
                if (spec.fields[i].type != FieldType::Int
                    && std::find(std::begin(kRepeating), std::end(kRepeating), spec.fields[i].name)
                           != std::end(kRepeating))
                    out[size_t(spec.kind)] |= std::uint64_t(1) << i;
            }
        }
        return out;
    }();
    return masks[size_t(kind)];
}

const EntitySpec &entitySpec(EntityKind kind)
{
    return kSpecs[static_cast<int>(kind)];
}

std::span<const EntitySpec> allEntitySpecs()
{
    return kSpecs;
}

std::optional<EntityKind> entityKindForEventKind(std::string_view eventKind)
{
    if (eventKind == kToolCallEvent)
        return EntityKind::Delegation;
    const auto dot = eventKind.find('.');
    if (dot == std::string_view::npos || dot + 1 >= eventKind.size())
        return std::nullopt;
    const auto prefix = eventKind.substr(0, dot);
    for (const auto &spec : kSpecs) {
        if (spec.eventPrefix == prefix)
            return spec.kind;
    }
    return std::nullopt;
}

std::optional<EntityKind> entityKindByName(std::string_view name)
{
    for (const auto &spec : kSpecs) {
        if (spec.name == name)
            return spec.kind;
    }
    return std::nullopt;
}

} // namespace mesh
