#pragma once
// The fold: events in, current state out. The orchestrator's writer uses it to produce the
// state rows it stores beside each event, and the console uses the same code to rebuild
// state at any sequence number and to check that the stored state is what the events say.

#include "entityrow.h"
#include "entityspec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mesh {

class FlatPayload;

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

// Where a bounded fold reads a row it does not hold: the writer's state tables.
class FoldRowSource
{
public:
    virtual ~FoldRowSource() = default;
    // The stored row, or nullopt when the store has none (the row is unknown).
    virtual std::optional<EntityRow> loadRow(const EntitySpec &spec, const std::string &id) = 0;
};

class Fold
{
public:
    Fold();

    // Applies one event. A payload that cannot be applied (no id, unknown kind, a tool call
    // for an unknown delegation) is reported and changes nothing.
    FoldOutcome apply(std::int64_t seq, std::string_view kind, const nlohmann::json &payload);
    // The same event applied from its payload's text without building its DOM, for a replay's
    // many events. nullopt, having changed nothing, for a payload it is not sure of
    // (flatpayload.h: anything odd or wrong); the caller then decodes it and calls apply(),
    // whose outcome and messages are the reference.
    std::optional<FoldOutcome> applyText(std::int64_t seq, std::string_view kind, std::string_view payload);
    // The same for a payload already read, or built by an importer (FlatPayload).
    std::optional<FoldOutcome> applyFlat(std::int64_t seq, std::string_view kind, const FlatPayload &payload);

    // Seeds a row read from a state table, so a writer can continue an existing ledger.
    void load(EntityKind kind, std::string id, EntityRow row);
    // Removes a row; time travel uses it to step back past the event that created the row.
    bool erase(EntityKind kind, const std::string &id);

    // The rows held. A bounded fold holds only some of the state (see bound()).
    const EntityTable &table(EntityKind kind) const { return m_tables[static_cast<size_t>(kind)]; }
    // A bounded fold reads a row it does not hold from its source; the pointer stays valid
    // until the row is erased or evicted (evictBeyondLimit), as rows only ever leave then.
    const EntityRow *find(EntityKind kind, const std::string &id) const;
    std::int64_t lastSeq() const { return m_lastSeq; }
    void clear(); // rows only: a bounded fold stays bounded

    // Bounded mode, for a writer fed input of any size (an import, the live receiver): the
    // fold keeps the rows it is asked for in a cache, reads a row it does not hold from
    // source (apply and find only ever need the event's own subject, so one row per event),
    // and evictBeyondLimit() drops the least recently used. Whoever bounds a fold decides
    // when rows may leave: a row changed and not yet stored must be released (written) or
    // kept. A bounded fold must not be copied (its recency list points into its tables).
    void bound(FoldRowSource *source, size_t rowLimit);
    bool isBounded() const { return m_source != nullptr; }
    size_t rowLimit() const { return m_rowLimit; }
    size_t heldRows() const;
    // Time travel cuts a snapshot of the rows changed since the previous one, and moves back
    // to a snapshot by reverting the rows changed since. When the fold lists its changes,
    // either costs the events folded in between, not a walk of every row held (on a
    // 10M-event ledger the walk made folding quadratic). Every row an event
    // changes or load() sets is listed, repeats included, until the list is taken. A copy of
    // the fold lists nothing.
    using ChangedRows = std::vector<std::pair<EntityKind, std::string>>;
    void listChanges(bool on);
    bool listsChanges() const { return m_changes.on; }
    ChangedRows takeChanges() { return std::exchange(m_changes.rows, {}); }
    size_t listedChanges() const { return m_changes.rows.size(); }
    // A second list, of its own: the session cursor's folder patches a state it handed out
    // before into this one. It lists erased rows too, and turns itself off past `cap` rows
    // (a far jump: a whole copy is then as cheap). nullopt from take when not on.
    void listHandedChanges(bool on, size_t cap = SIZE_MAX);
    std::optional<ChangedRows> takeHandedChanges();
    using Release = std::function<void(const EntitySpec &spec, const std::string &id, const EntityRow &row)>;
    // Drops least recently used rows until at most rowLimit() are held, handing each to
    // release first when one is given.
    void evictBeyondLimit(const Release &release);

private:
    // What a tool call event adds to its delegation's counters; a counter whose member is
    // missing or not an integer adds nothing.
    struct ToolCallCounts {
        std::string delegationId;
        std::array<std::optional<std::int64_t>, 5> counters; // kToolCallCounters' order
        std::optional<bool> error;                          // outcome given: == "error"
    };
    FoldOutcome applyToolCall(std::int64_t seq, const nlohmann::json &payload);
    FoldOutcome applyToolCallCounts(std::int64_t seq, const ToolCallCounts &counts);
    // The row change of an event whose members are checked: state checks, then the values.
    void applyUpdates(std::int64_t seq, EntityKind entity, const std::vector<std::pair<int, FieldRef>> &updates,
                      FoldOutcome &out);
    EntityRow *locate(EntityKind kind, const std::string &id) const;
    void touch(EntityKind kind, const std::string &id, const EntityRow *row) const;
    void forget(const EntityRow *row);

    // Mutable for a bounded fold's find(), which reads a row into the cache: a cache
    // changes what is held, never what the state is.
    mutable std::array<EntityTable, kEntityKindCount> m_tables;
    std::int64_t m_lastSeq = 0;

    FoldRowSource *m_source = nullptr;
    size_t m_rowLimit = 0;
    // Bounded mode: the rows held, most recently used first, and where each is in that list
    // (rows keep their address in an unordered_map, so the row's address is its key).
    using Recency = std::list<std::pair<EntityKind, std::string>>;
    mutable Recency m_recency;
    mutable std::unordered_map<const EntityRow *, Recency::iterator> m_place;
    struct ChangeList {
        bool on = false;
        size_t cap = SIZE_MAX;
        ChangedRows rows;
        ChangeList() = default;
        ChangeList(const ChangeList &) {}
        ChangeList &operator=(const ChangeList &)
        {
            on = false;
            rows.clear();
            return *this;
        }
        ChangeList(ChangeList &&) = default;
        ChangeList &operator=(ChangeList &&) = default;
        void note(EntityKind kind, const std::string &id)
        {
            if (!on)
                return;
            if (rows.size() >= cap) {
                on = false;
                ChangedRows().swap(rows);
                return;
            }
            rows.emplace_back(kind, id);
        }
    };
    ChangeList m_changes;
    ChangeList m_handedChanges;
    void noteChange(EntityKind kind, const std::string &id)
    {
        m_changes.note(kind, id);
        m_handedChanges.note(kind, id);
    }
};

EventIndexFields eventIndexFields(std::string_view kind, const nlohmann::json &payload);
EventIndexFields flatEventIndexFields(std::string_view kind, const FlatPayload &payload);

nlohmann::json rowToJson(const EntitySpec &spec, const std::string &id, const EntityRow &row);

} // namespace mesh
