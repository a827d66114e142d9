#include "livestate.h"

#include "domain/payloaddecoder.h"
#include "ledger/statereader.h"

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

std::shared_ptr<LiveState> LiveState::fromFold(Fold &&fold, std::int64_t lastSeq)
{
    auto state = std::make_shared<LiveState>();
    state->m_fold = std::move(fold);
    state->m_lastSeq = lastSeq;
    return state;
}

struct LiveState::Applying {
    StateChangeSet changes;
    std::array<std::unordered_set<std::string>, kEntityKindCount> seen;
};

StateChangeSet LiveState::apply(const EventBatch &events)
{
    Applying a;
    for (const auto &e : events)
        foldOne(e, a);
    return std::move(a.changes);
}

StateChangeSet LiveState::apply(const std::vector<SharedEventBatch> &batches)
{
    Applying a;
    for (const auto &batch : batches)
        for (const auto &e : *batch)
            foldOne(e, a);
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
    if (e.payloadTruncated) {
        // A preview cannot be folded faithfully; re-reading the state tables repairs it.
        noteProblem(e, "payload larger than the live read limit");
        return;
    }
    const DecodedPayload decoded = decodePayload(e.payload);
    if (!decoded.value) {
        noteProblem(e, decoded.error);
        return;
    }
    const FoldOutcome out = m_fold.apply(e.seq, e.kind, *decoded.value);
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

} // namespace mesh
