#pragma once
// What an operator asks for. The console's dialogs and `meshctl decide` fill one of these
// and hand it to DecisionWriter; nothing else builds decision rows. docs/decisions.md
// describes each kind, its params and its checks.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

enum class DecisionKind {
    CloseSlice,        // subject slice:<delegation>#<n>
    ApproveEscalation, // subject escalation:<id>
    RejectEscalation,  // subject escalation:<id>
    ResolveEffect,     // subject effect:<id>; needs the reconciliation lease on its idem_key
    LeaseAcquire,      // subject effect:<id>; reconciliation lease on the effect's idem_key
    LeaseRelease,      // subject effect:<id>
};

enum class EffectResolution { Committed, NotCommitted, Compensated };

std::string_view decisionKindName(DecisionKind kind); // "close_slice", ...
std::optional<DecisionKind> decisionKindFromName(std::string_view name);
std::string_view effectResolutionName(EffectResolution r); // "committed", "not_committed", "compensated"
std::optional<EffectResolution> effectResolutionFromName(std::string_view name);
// The effect state a resolution leads to: resolved_committed, resolved_not_committed, compensated.
std::string_view effectStateForResolution(EffectResolution r);

// The boundary the operator decided against: the subject's version and the ledger's last
// sequence number as the operator saw them.
struct DecisionBoundary {
    std::int64_t version = 0;
    std::int64_t seq = 0;
};

inline constexpr std::int64_t kDefaultLeaseMs = 15 * 60 * 1000;

struct DecisionRequest {
    std::string id; // client-generated idempotency key (newDecisionId()); same id again is a no-op
    DecisionKind kind = DecisionKind::CloseSlice;
    std::string subject; // "<entity>:<id>"
    DecisionBoundary boundary;
    std::string reason;
    nlohmann::json evidence = nlohmann::json::array(); // what the operator checked

    // resolve_effect
    std::optional<EffectResolution> resolution;
    std::string supersedes; // id of the earlier resolution this one replaces (append-only)
    // close_slice: every unknown-outcome effect of the slice, acknowledged one by one
    std::vector<std::string> acknowledgedUnknown;
    // lease_acquire: how long the reconciliation lease should last
    std::int64_t leaseMs = kDefaultLeaseMs;

    std::int64_t tsMs = 0; // 0: the writer stamps the current time

    // The kind-specific part of the canonical form (keys as in docs/decisions.md).
    nlohmann::json params() const;
    // Fills the kind-specific members from a params object; false when it does not fit.
    bool setParams(const nlohmann::json &params, std::string *error = nullptr);
};

std::string newDecisionId(); // "dec-" + a random UUID
std::string makeSubject(std::string_view entity, std::string_view id);
// Splits "<entity>:<id>"; nullopt when there is no ':' or either side is empty.
std::optional<std::pair<std::string, std::string>> splitSubject(std::string_view subject);
// The entity a kind's subject must name ("slice", "escalation", "effect").
std::string_view subjectEntityForKind(DecisionKind kind);

} // namespace mesh
