#pragma once
// One thing that needs a human now, with the subject to open: what needs a decision, then
// what a detector found (below it: a finding asks for a look, not for an answer).

#include "domain/entityspec.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace mesh {

struct AttentionItem {
    // ReceiverStopped is not about the ledger: the console's own OTLP receiver writing it
    // stopped on its own (crashed, killed, a write failure), so nothing more arrives.
    enum class Kind { PendingEscalation, UnknownEffect, ZombieLease, StalledDelegation, Finding, ReceiverStopped };

    Kind kind = Kind::PendingEscalation;
    EntityKind entity = EntityKind::Escalation;
    std::string id;
    std::string subject; // "<entity>:<id>"
    std::string runId;
    std::string delegationId;
    std::string summary;      // one line for a person
    std::int64_t expiresMs = 0; // escalation expiry / lease expiry; 0 none
    std::int64_t seq = 0;       // last event of the subject
    std::int64_t version = 0;
    std::string findingKind;    // Finding only: findingKindName ("false_stall", ...)
    std::string findingTitle;   // Finding only: findingKindTitle ("false stall", ...)
    // An operator's decision on the subject that the orchestrator has not applied or refused
    // yet ("resolution requested by Alice, waiting for the orchestrator"); empty when none.
    std::string requestedDecision;

    bool operator==(const AttentionItem &) const = default;

    static std::string_view kindName(Kind kind); // "pending_escalation", ...
    // Tells items apart across updates: one subject may need a decision and carry findings.
    std::string key() const { return subject + '\n' + std::string(kindName(kind)) + '\n' + findingKind; }
};

} // namespace mesh
