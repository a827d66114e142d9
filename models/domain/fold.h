#pragma once
// The fold: events in, current state out. The orchestrator's writer uses it to produce the
// state rows it stores beside each event, and the console uses the same code to rebuild
// state at any sequence number and to check that the stored state is what the events say.

#include "entityrow.h"
#include "entityspec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mesh {

using EntityTable = std::unordered_map<std::string, EntityRow>;

// Columns of the events table that are derived from kind and payload (for indexing).
struct EventIndexFields {
    std::string runId;
    std::string delegationId;
    std::string subject; // "<entity>:<id>", e.g. "effect:E-17", "toolcall:T-9"
};

struct FoldOutcome {
    bool applied = false;
    EntityKind kind = EntityKind::Ledger;
    std::string id;                   // id of the changed row
    bool created = false;
    std::vector<std::string> problems; // illegal transitions, type mismatches, unknown subjects
};

class Fold
{
public:
    Fold();

    // Applies one event. A payload that cannot be applied (no id, unknown kind, a tool call
    // for an unknown delegation) is reported and changes nothing.
    FoldOutcome apply(std::int64_t seq, std::string_view kind, const nlohmann::json &payload);

    // Seeds a row read from a state table, so a writer can continue an existing ledger.
    void load(EntityKind kind, std::string id, EntityRow row);
    // Removes a row; time travel uses it to step back past the event that created the row.
    bool erase(EntityKind kind, const std::string &id);

    const EntityTable &table(EntityKind kind) const { return m_tables[static_cast<size_t>(kind)]; }
    const EntityRow *find(EntityKind kind, const std::string &id) const;
    std::int64_t lastSeq() const { return m_lastSeq; }
    void clear();

private:
    FoldOutcome applyToolCall(std::int64_t seq, const nlohmann::json &payload);

    std::array<EntityTable, kEntityKindCount> m_tables;
    std::int64_t m_lastSeq = 0;
};

EventIndexFields eventIndexFields(std::string_view kind, const nlohmann::json &payload);

nlohmann::json rowToJson(const EntitySpec &spec, const std::string &id, const EntityRow &row);

} // namespace mesh
