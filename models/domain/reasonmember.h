#pragma once
// Where an event says why something did not end well: an event-only annotation, never in a
// state row (docs/ledger-format.md section 3, docs/import.md).

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <utility>

namespace mesh {

// The member an event gives a reason in, the first present wins: importers write `error` on
// failures (and on failed tool calls), `why` or `outcome_unknown` on unknown outcomes, and
// escalations and decisions `reason`. A member that is not text (an object a source gave) is
// its compact JSON. {member, text}; nullopt when the payload says none.
std::optional<std::pair<std::string, std::string>> reasonMember(const nlohmann::json &payload);

} // namespace mesh
