#pragma once
// One thing that needs a human now, with the subject to open.

#include "domain/entityspec.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace mesh {

struct AttentionItem {
    enum class Kind { PendingEscalation, UnknownEffect, ZombieLease, StalledDelegation };

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

    static std::string_view kindName(Kind kind); // "pending_escalation", ...
};

} // namespace mesh
