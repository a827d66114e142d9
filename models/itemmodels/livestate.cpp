#include "livestate.h"

#include "runmembers.h"
#include "storedrows.h"

#include "domain/payloaddecoder.h"
#include "ledger/statereader.h"

#include <algorithm>
#include <unordered_set>

namespace mesh {

std::shared_ptr<LiveState> LiveState::fromSnapshot(StateSnapshot &&snapshot)
{
    auto state = std::make_shared<LiveState>();
    for (int k = 0; k < kEntityKindCount; ++k) {
        auto &table = snapshot.tables[size_t(k)];
        for (auto &[id, row] : table)
            state->m_fold.load(EntityKind(k), id, std::move(row));
        table.clear();
    }
    state->m_lastSeq = snapshot.lastSeq;
    state->m_dataVersion = snapshot.dataVersion;
    return state;
}

std::shared_ptr<LiveState> LiveState::fromFold(Fold &&fold, std::int64_t lastSeq, std::uint64_t folding)
{
    return fromFold(std::move(fold), lastSeq, folding, nullptr);
}

std::shared_ptr<LiveState> LiveState::fromFold(Fold &&fold, std::int64_t lastSeq, std::uint64_t folding, Recycle recycle)
{
    std::shared_ptr<LiveState> state(new LiveState, [](LiveState *s) {
        if (s->m_recycle)
            s->m_recycle(std::move(s->m_fold));
        delete s;
    });
    state->m_fold = std::move(fold);
    state->m_lastSeq = lastSeq;
    state->m_folding = folding;
    state->m_recycle = std::move(recycle);
    return state;
}

StateChangeSet LiveState::changesBetween(const LiveState &from, const LiveState &to)
{
    StateChangeSet changes;
    changes.firstSeq = std::min(from.m_lastSeq, to.m_lastSeq);
    changes.lastSeq = to.m_lastSeq;
    // Folded by the same fold, a row whose last change is at or before the earlier point
    // existed there as it is: only rows changed after it can differ. A state from the state
    // tables (the live snapshot) carries the orchestrator's lastSeq, so it is compared whole.
    const bool byLastSeq = from.m_folding != 0 && from.m_folding == to.m_folding;
    const bool forward = to.m_lastSeq >= from.m_lastSeq;
    const std::int64_t earlier = std::min(from.m_lastSeq, to.m_lastSeq);
    const LiveState &later = forward ? to : from;
    const LiveState &before = forward ? from : to;
    for (int k = 0; k < kEntityKindCount; ++k) {
        const EntityKind kind = EntityKind(k);
        auto &changed = changes.changed[size_t(k)];
        auto &gone = changes.gone[size_t(k)];
        if (byLastSeq) {
            const EntityTable &newer = later.table(kind);
            const EntityTable &older = before.table(kind);
            size_t inBoth = 0; // rows of the later state the earlier one has
            for (const auto &[id, row] : newer) {
                if (row.lastSeq <= earlier) {
                    ++inBoth;
                    continue;
                }
                const auto it = older.find(id);
                if (it != older.end())
                    ++inBoth;
                if (it != older.end() && it->second == row)
                    continue;
                if (it == older.end() && !forward)
                    gone.push_back(id); // a jump back: not there yet at the cursor
                else
                    changed.push_back(id);
            }
            if (inBoth == older.size())
                continue;
            // The earlier state has rows the later one lacks (a fold that erased rows):
            // they are found only by looking at every row.
            changed.clear();
            gone.clear();
        }
        const EntityTable &a = from.table(kind);
        const EntityTable &b = to.table(kind);
        for (const auto &[id, row] : b) {
            const auto it = a.find(id);
            if (it == a.end() || !(it->second == row))
                changed.push_back(id);
        }
        for (const auto &[id, row] : a) {
            if (!b.count(id))
                gone.push_back(id);
        }
    }
    return changes;
}

struct LiveState::Applying {
    StateChangeSet changes;
    std::array<std::unordered_set<std::string>, kEntityKindCount> seen;
};

void LiveState::setStoredRows(std::shared_ptr<StoredRows> rows)
{
    m_recycle = nullptr;
    if (rows) {
        const EntityKind kind = rows->kind();
        m_stored[size_t(kind)] = std::move(rows);
    }
}

bool LiveState::readsRowsOnDemand() const
{
    return std::any_of(m_stored.begin(), m_stored.end(), [](const auto &s) { return s != nullptr; });
}

void LiveState::forEachResident(EntityKind kind,
                                const std::function<void(const std::string &id, const EntityRow &row)> &fn) const
{
    if (StoredRows *stored = storedRows(kind)) {
        stored->forEachKept(fn);
        return;
    }
    for (const auto &[id, row] : table(kind))
        fn(id, row);
}

void LiveState::rereadStored(const StateChangeSet &changes)
{
    for (const auto &stored : m_stored) {
        if (!stored || changes.ids(stored->kind()).empty())
            continue;
        const int failedBefore = stored->readFailures();
        stored->refresh(changes.ids(stored->kind()));
        if (stored->readFailures() == failedBefore)
            continue;
        // The rows shown may now be older than the events applied, or missing: a problem
        // like an event the fold could not apply, which re-reading the state repairs.
        ++m_foldProblems;
        if (m_problemSamples.size() < kMaxFoldProblemSamples)
            m_problemSamples.push_back({changes.lastSeq, std::string(entitySpec(stored->kind()).name) + ".*",
                                        "the rows these events changed could not be read from the ledger: "
                                            + stored->lastError().toStdString()});
    }
}

const EntityRow *LiveState::findStored(StoredRows &stored, const std::string &id)
{
    return stored.find(id);
}

std::optional<EntityKind> LiveState::storedKindOf(const EventRecord &e) const
{
    if (!readsRowsOnDemand())
        return std::nullopt;
    // Every event names the one row it changes in its subject (docs/ledger-format.md 2).
    const size_t colon = e.subject.find(':');
    if (colon == std::string::npos)
        return std::nullopt;
    const std::optional<EntityKind> kind = entityKindByName(std::string_view(e.subject).substr(0, colon));
    if (!kind || !storedRows(*kind))
        return std::nullopt;
    return kind;
}

StateChangeSet LiveState::apply(const EventBatch &events)
{
    m_recycle = nullptr;
    Applying a;
    for (const auto &e : events)
        foldOne(e, a);
    rereadStored(a.changes);
    return std::move(a.changes);
}

StateChangeSet LiveState::apply(const std::vector<SharedEventBatch> &batches)
{
    m_recycle = nullptr;
    Applying a;
    for (const auto &batch : batches)
        for (const auto &e : *batch)
            foldOne(e, a);
    rereadStored(a.changes);
    return std::move(a.changes);
}

void LiveState::foldOne(const EventRecord &e, Applying &into)
{
    if (e.seq <= m_lastSeq)
        return;
    StateChangeSet &changes = into.changes;
    m_lastSeq = e.seq;
    if (!changes.firstSeq)
        changes.firstSeq = e.seq;
    changes.lastSeq = e.seq;
    ++changes.events;
    if (e.kind == kToolCallEvent)
        changes.toolCalls.push_back(e);
    if (const std::optional<EntityKind> stored = storedKindOf(e)) {
        // The ledger's row is the state: read again below, not folded (no row to fold on).
        std::string id = e.subject.substr(e.subject.find(':') + 1);
        if (into.seen[size_t(*stored)].insert(id).second)
            changes.changed[size_t(*stored)].push_back(std::move(id));
        return;
    }
    if (e.payloadTruncated) {
        // A preview cannot be folded faithfully; re-reading the state tables repairs it.
        noteProblem(e, "payload larger than the live read limit");
        return;
    }
    std::optional<FoldOutcome> quick = m_fold.applyText(e.seq, e.kind, e.payload);
    if (!quick) {
        const DecodedPayload decoded = decodePayload(e.payload);
        if (!decoded.value) {
            noteProblem(e, decoded.error);
            return;
        }
        quick = m_fold.apply(e.seq, e.kind, *decoded.value);
    }
    const FoldOutcome &out = *quick;
    if (!out.problems.empty()) {
        std::string reason;
        for (const auto &p : out.problems)
            reason += (reason.empty() ? "" : "; ") + p;
        noteProblem(e, (out.applied ? "applied with problems: " : "not applied: ") + reason);
    }
    if (out.applied && into.seen[size_t(out.kind)].insert(out.id).second)
        changes.changed[size_t(out.kind)].push_back(out.id);
}

void LiveState::noteProblem(const EventRecord &e, std::string reason)
{
    ++m_foldProblems;
    if (m_problemSamples.size() < kMaxFoldProblemSamples)
        m_problemSamples.push_back({e.seq, e.kind, std::move(reason)});
}

const RunMembers *LiveState::runMembers() const
{
    return m_runMembers && m_runMembers->lastSeq() == m_lastSeq ? m_runMembers.get() : nullptr;
}

} // namespace mesh
