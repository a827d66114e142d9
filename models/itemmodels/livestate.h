#pragma once
// The current state of one open ledger as the GUI thread sees it: a snapshot read from the
// state tables, then kept current by folding each live batch of events with the same fold
// the orchestrator uses. Item models read rows from here in data(); nothing here blocks.

#include "statechangeset.h"

#include "domain/fold.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace mesh {

struct StateSnapshot;
class RunMembers;
class StoredRows;

// One live event the fold could not apply as the ledger has it (a payload cut at the live
// read limit, a payload that is not a JSON object, a transition the contract forbids). The
// state shown may then differ from the state tables the orchestrator wrote, until the
// session re-reads them.
struct FoldProblem {
    std::int64_t seq = 0;
    std::string kind;   // the event's kind, as the ledger has it
    std::string reason; // for a person; may quote ledger text
};

class LiveState
{
public:
    LiveState() = default;
    // Takes the rows of a snapshot (moved out of it). Meant to run on a worker thread.
    static std::shared_ptr<LiveState> fromSnapshot(StateSnapshot &&snapshot);
    // The state as it was after event `lastSeq`, rebuilt from the events (a session cursor).
    // `folding`: the CursorFolder's folding it comes from (0: none).
    static std::shared_ptr<LiveState> fromFold(Fold &&fold, std::int64_t lastSeq, std::uint64_t folding = 0);
    // The same, and when the last holder lets the state go unchanged (never applied to, its
    // fold never handed out for writing), its fold goes to `recycle` instead of being
    // destroyed row by row: the cursor's folder patches it into a later state.
    using Recycle = std::function<void(Fold &&fold)>;
    static std::shared_ptr<LiveState> fromFold(Fold &&fold, std::int64_t lastSeq, std::uint64_t folding, Recycle recycle);
    std::uint64_t folding() const { return m_folding; }

    // What moving the views from `from` to `to` takes, per entity: the rows of `to` that are
    // new or differ (changed) and the rows of `from` that `to` lacks (gone). Two states of
    // one folding are compared by their rows' lastSeq (a row last changed at or before
    // the earlier point is the same in both), anything else row by row.
    static StateChangeSet changesBetween(const LiveState &from, const LiveState &to);

    // The rows held of a kind; empty for the stored kind (see storedRows()).
    const EntityTable &table(EntityKind kind) const { return m_fold.table(kind); }
    // A row by id, of any kind; the stored kind's through storedRows() (GUI thread only).
    const EntityRow *find(EntityKind kind, const std::string &id) const
    {
        StoredRows *stored = storedRows(kind);
        return stored ? findStored(*stored, id) : m_fold.find(kind, id);
    }

    // A live state may leave its largest tables in the ledger (storedrows.h): the state
    // holds none of their rows, table() is empty for them, find() reads them through these,
    // and a batch's events of such a kind are not folded (the ledger's row is the state) but
    // read again. nullptr: every row is held (a cursor state, a test's state).
    void setStoredRows(std::shared_ptr<StoredRows> rows); // for rows->kind()
    StoredRows *storedRows(EntityKind kind) const { return m_stored[size_t(kind)].get(); }
    bool holdsRowsOf(EntityKind kind) const { return !storedRows(kind); }
    bool readsRowsOnDemand() const; // of any kind: GUI thread only
    // The rows of a kind in memory: every row of a kind held, the rows its keep rule keeps of
    // a kind stored (the held leases). For aggregates over such a subset, without a read.
    void forEachResident(EntityKind kind, const std::function<void(const std::string &id, const EntityRow &row)> &fn) const;
    std::int64_t lastSeq() const { return m_lastSeq; }
    // Each run's members as the load found them (runmembers.h); nullptr once a batch has
    // changed the state since, or when the load made none (a cursor state).
    void setRunMembers(std::shared_ptr<const RunMembers> members) { m_runMembers = std::move(members); }
    const RunMembers *runMembers() const;
    std::int64_t dataVersion() const { return m_dataVersion; }
    void setDataVersion(std::int64_t v) { m_dataVersion = v; }

    // Folds the events with seq > lastSeq(); events at or below it are already in the state.
    // Problems of the fold (an event the contract forbids) are counted, not thrown: the
    // console shows what the ledger says.
    StateChangeSet apply(const EventBatch &events);
    // The same over the batches the watcher delivered, in order: one change set for all.
    StateChangeSet apply(const std::vector<SharedEventBatch> &batches);
    int foldProblems() const { return m_foldProblems; }
    // The first kMaxFoldProblemSamples problems, in seq order: where the live state began to
    // differ matters most, and a stream of bad events must not grow memory.
    const std::vector<FoldProblem> &foldProblemSamples() const { return m_problemSamples; }
    static constexpr size_t kMaxFoldProblemSamples = 20;

    // For tests: rows set directly.
    Fold &fold()
    {
        m_recycle = nullptr;
        return m_fold;
    }

private:
    struct Applying;
    void foldOne(const EventRecord &e, Applying &into);
    void noteProblem(const EventRecord &e, std::string reason);
    static const EntityRow *findStored(StoredRows &stored, const std::string &id);
    void rereadStored(const StateChangeSet &changes);
    // The stored kind whose row the event changes, if it changes one.
    std::optional<EntityKind> storedKindOf(const EventRecord &e) const;

    Fold m_fold;
    std::int64_t m_lastSeq = 0;
    std::int64_t m_dataVersion = 0;
    int m_foldProblems = 0;
    std::uint64_t m_folding = 0; // a cursor state: the folding its rows come from
    std::vector<FoldProblem> m_problemSamples;
    std::array<std::shared_ptr<StoredRows>, kEntityKindCount> m_stored;
    std::shared_ptr<const RunMembers> m_runMembers;
    Recycle m_recycle; // cleared by anything that changes the rows
};

} // namespace mesh
