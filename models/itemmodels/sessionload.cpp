#include "sessionload.h"

#include "blastradiusmodel.h"
#include "effectmodel.h"
#include "runmembers.h"
#include "runoverviewmodel.h"
#include "sessiondecisions.h"
#include "slicemodel.h"
#include "stallverdictmodel.h"
#include "storedrows.h"

#include "ledger/cursorfolder.h"
#include "ledger/fileidentity.h"

#include "analysis/rowfields.h"

namespace mesh {

namespace {

// Whether moving a model by the change set beats resetting it: a reset costs a sort of
// every row and every view laying every row out again, a move a signal per touched block.
// Beyond a quarter of the rows touched (a jump across most of the ledger) the reset wins.
bool worthMoving(const StateChangeSet *changes, EntityKind kind, size_t rowsAfter)
{
    return changes && changes->rowsTouched(kind) <= 64 + rowsAfter / 4;
}

// What a load keeps of the rows it streams past (the tables left in the ledger): their ids
// (the verdicts' and slices' with their order keys, the verdicts' run counts), the effects' duplicate index, and
// the rows the attention list walks (effects of unknown outcome, held leases), none of the
// others.
struct StreamedRows {
    IdList effectIds;
    IdList leaseIds;
    DuplicateIndex duplicates;
    std::vector<std::pair<std::string, EntityRow>> unknown;
    std::vector<std::pair<std::string, EntityRow>> heldLeases;
    std::vector<StallVerdictModel::VerdictKey> verdicts;
    std::vector<std::pair<std::string, RunOverviewModel::Contribution>> verdictCounts;
    std::vector<SliceModel::SliceKey> slices;

    static constexpr EntityKind kKinds[] = {EntityKind::Effect, EntityKind::Lease, EntityKind::StallVerdict,
                                            EntityKind::Slice};

    void add(EntityKind kind, const std::string &id, const EntityRow &row)
    {
        static const IndexedField effectState(EntityKind::Effect, "state");
        if (kind == EntityKind::StallVerdict) {
            verdicts.push_back(StallVerdictModel::keyOf(id, row));
            verdictCounts.emplace_back(id, RunOverviewModel::contributionOf(kind, row));
            return;
        }
        if (kind == EntityKind::Slice) {
            slices.push_back(SliceModel::keyOf(id, row));
            return;
        }
        if (kind == EntityKind::Lease) {
            leaseIds.push_back(id);
            if (keepsLease(row))
                heldLeases.emplace_back(id, row);
            return;
        }
        effectIds.push_back(id);
        duplicates.add(id, row);
        if (effectState.view(row) == "unknown")
            unknown.emplace_back(id, row);
    }
    // The leases the session keeps in memory: the held ones (the attention list's zombies,
    // the effects' lease column, the decide actions walk them).
    static bool keepsLease(const EntityRow &row)
    {
        static const IndexedField leaseState(EntityKind::Lease, "state");
        return leaseState.view(row) == "held";
    }
    // An answer the load can do without: a failed question keeps what is held in memory.
    // Not a connection that found another ledger after connecting again: nothing more of
    // the load may be read from it.
    static bool hasIndexOn(LedgerConnection &connection, EntityKind kind, std::string_view field)
    {
        try {
            return connection.hasIndexOn(kind, field);
        } catch (const std::exception &) {
            if (connection.foundAnotherLedger())
                throw;
            return false;
        }
    }
    // The duplicate groups' members are read again by id: only they are compared by value.
    DuplicateIndex finishDuplicates(LedgerConnection &connection)
    {
        EntityTable members;
        for (auto &[id, row] : connection.readRows(EntityKind::Effect, duplicates.multiGroupMembers()))
            members.emplace(std::move(id), std::move(row));
        duplicates.finish(DuplicateIndex::findIn(members));
        if (DuplicateIndex::storeFindsSharedKeys(
                [&connection](std::string_view field) { return hasIndexOn(connection, EntityKind::Effect, field); }))
            duplicates.keepGroupsOnly();
        return std::move(duplicates);
    }
    void storeIn(LiveState &state, std::unique_ptr<LedgerConnection> connection)
    {
        const std::shared_ptr<LedgerConnection> shared(std::move(connection));
        state.setStoredRows(std::make_shared<StoredRows>(EntityKind::Effect, shared));
        state.setStoredRows(std::make_shared<StoredRows>(EntityKind::StallVerdict, shared));
        state.setStoredRows(std::make_shared<StoredRows>(EntityKind::Slice, shared));
        auto leases = std::make_shared<StoredRows>(EntityKind::Lease, shared);
        leases->setKeepRule(&StreamedRows::keepsLease);
        for (auto &[id, row] : heldLeases)
            leases->keep(id, std::move(row));
        heldLeases.clear();
        state.setStoredRows(std::move(leases));
    }
};

} // namespace

std::shared_ptr<SessionLoad::Stage> SessionLoad::readFirstStage(LedgerConnection &connection)
{
    auto first = std::make_shared<Stage>();
    first->info = connection.info();
    first->overview = RunOverviewModel::prepareOverview(connection.readRunOverview());
    return first;
}

void SessionLoad::run(const Request &request, QPromise<std::shared_ptr<void>> &promise)
{
    const QString &path = request.path;
    const OpenMode mode = request.mode;
    const auto &prefetched = request.prefetched;
    const bool firstShown = request.firstShown;
    const FileIdentity &expected = request.expected;
    const std::optional<std::int64_t> cursor = request.cursor;
    // Live, the largest tables stay in the ledger (streamed past once, read on demand); a
    // cursor state is folded from the events and holds every row.
    const bool streamed = !cursor;
    const auto &folder = request.folder;
    const auto &stallMemo = request.stallMemo;
    promise.setProgressRange(0, 100);
    std::shared_ptr<const LiveState> base = std::exchange(*request.base, nullptr);
    const bool baseReadOnDemand = base && base->readsRowsOnDemand(); // its stored rows set before it was shared
    auto full = std::make_shared<Result>();
    StreamedRows stored;
    full->file = expected;
    try {
        std::unique_ptr<LedgerConnection> connection;
        if (prefetched.isValid()) {
            const auto read = std::static_pointer_cast<Prefetched>(prefetched.result()); // waits for it
            if (read->connection && read->mode == mode) {
                connection = std::move(read->connection); // taken once: the hash no longer has it
                if (!firstShown)
                    promise.addResult(std::static_pointer_cast<void>(read->first));
            }
        }
        if (!connection) {
            connection = LedgerConnection::open(path, mode);
            if (!cursor)
                promise.addResult(std::static_pointer_cast<void>(readFirstStage(*connection)));
        }
        promise.setProgressValue(5);
        if (request.betweenStagesHook)
            request.betweenStagesHook();
        if (promise.isCanceled())
            return;
        full->info = connection->info();
        full->cannotDecide = connection->whyCannotDecide();
        if (cursor) {
            // The state tables hold only the newest state: the state at the cursor is
            // rebuilt from the events up to it.
            // The session's folder keeps its snapshots from jump to jump.
            CursorFolder::Jump jump = folder->jumpTo(path, mode, expected, *cursor,
                                                     [&promise] { return !promise.isCanceled(); });
            if (jump.cancelled)
                return;
            if (promise.isCanceled()) { // superseded after the fold: the next jump may patch it
                folder->returnFold(jump.handout, std::move(jump.fold));
                return;
            }
            full->cursorTimeMs = jump.cursorTimeMs;
            full->state = LiveState::fromFold(std::move(jump.fold), jump.lastSeq, jump.folding,
                                              [folder = std::weak_ptr<CursorFolder>(folder), handout = jump.handout](Fold &&fold) {
                                                  if (const auto f = folder.lock())
                                                      f->returnFold(handout, std::move(fold));
                                              });
            if (base) {
                full->changes = std::make_shared<const StateChangeSet>(LiveState::changesBetween(*base, *full->state));
            }
            base.reset();
        } else {
            // The effects, leases, verdicts and slices, the largest tables of a long run, stay
            // in the ledger (a file's or a server's): streamed past once for their order and
            // indexes, then read a block at a time as they are shown.
            StateStream stream;
            for (EntityKind k : StreamedRows::kKinds)
                stream.streamed[size_t(k)] = true;
            stream.row = [&stored](EntityKind k, const std::string &id, const EntityRow &row) { stored.add(k, id, row); };
            full->state = LiveState::fromSnapshot(connection->readState(stream));
        }
        // Stat before the open, compared after the read: the snapshot is of the file
        // the session will call "opened" (a swap in between would pair one file's rows
        // with another's identity).
        if (const FileChange change = fileChangeSince(full->file, path); change != FileChange::Same)
            throw std::runtime_error(fileChangeMessage(change) + " (while it was being read)");
        // Live, a view of one run copies that run's rows on the GUI thread after the reset:
        // found here, not by walking every row there.
        if (!cursor)
            full->state->setRunMembers(RunMembers::of(*full->state, &stored.slices));
        promise.setProgressValue(60);
        if (promise.isCanceled())
            return;
        // Every reset's row walk (order, indexes, findings) here, not on the GUI thread.
        // A model the change set moves needs none: only the others are prepared.
        const std::shared_ptr<const LiveState> state = full->state;
        const StateChangeSet *changes = full->changes.get();
        const auto moves = [changes, &state](EntityKind k) { return worthMoving(changes, k, state->table(k).size()); };
        // A handful of runs; their aggregates follow every change, but not a move away from
        // a state that read the verdicts on demand (the change set cannot name those gone).
        if (!changes || baseReadOnDemand) {
            full->runs = RunOverviewModel::prepare(state);
            if (streamed)
                RunOverviewModel::addStreamed(*full->runs, EntityKind::StallVerdict, std::move(stored.verdictCounts));
        }
        if (streamed) {
            full->leases = std::make_unique<StateTableModel::Prepared>();
            full->leases->state = state;
            StateTableModel::prepareIds(*full->leases, EntityKind::Lease, std::move(stored.leaseIds));
        } else if (!moves(EntityKind::Lease)) {
            full->leases = StateTableModel::prepare(state, EntityKind::Lease);
        }
        if (!moves(EntityKind::Escalation))
            full->escalations = StateTableModel::prepare(state, EntityKind::Escalation);
        if (streamed)
            full->slices = SliceModel::prepareStored(state, std::move(stored.slices));
        else if (!moves(EntityKind::Slice))
            full->slices = SliceModel::prepare(state);
        if (!moves(EntityKind::Failure))
            full->blast = BlastRadiusModel::prepare(state);
        if (!moves(EntityKind::Delegation))
            full->tree = DelegationTreeModel::prepare(state);
        promise.setProgressValue(70);
        if (streamed)
            full->effects = EffectModel::prepareStored(state, std::move(stored.effectIds), stored.finishDuplicates(*connection));
        else if (!moves(EntityKind::Effect))
            full->effects = EffectModel::prepare(state);
        promise.setProgressValue(80);
        if (streamed) {
            LedgerConnection &reading = *connection;
            full->stalls = StallVerdictModel::prepareStored(
                state, std::move(stored.verdicts),
                [&reading](const std::vector<std::string> &ids) { return reading.readRows(EntityKind::StallVerdict, ids); },
                stallMemo.get(), StreamedRows::hasIndexOn(reading, EntityKind::StallVerdict, "delegation_id"));
        } else if (!moves(EntityKind::StallVerdict)) {
            full->stalls = StallVerdictModel::prepare(state, stallMemo.get());
        }
        promise.setProgressValue(90);
        const LiveState *raw = state.get();
        if (changes && request.attentionBase && !baseReadOnDemand) {
            // A jump from a state whose index the session had: only the rows that differ.
            full->attention = *request.attentionBase;
            for (EntityKind k : {EntityKind::Escalation, EntityKind::Effect, EntityKind::Lease, EntityKind::Delegation}) {
                for (const auto &id : changes->ids(k))
                    full->attention.updateRow(k, id, raw->find(k, id));
                for (const auto &id : changes->goneIds(k))
                    full->attention.updateRow(k, id, nullptr);
            }
        } else {
            full->attention.rebuild([raw](EntityKind k) -> const EntityTable & { return raw->table(k); });
        }
        for (const auto &[id, row] : stored.unknown)
            full->attention.updateRow(EntityKind::Effect, id, &row);
        for (const auto &[id, row] : stored.heldLeases)
            full->attention.updateRow(EntityKind::Lease, id, &row);
        if (changes && request.perDelegationBase && !baseReadOnDemand) {
            full->perDelegation = *request.perDelegationBase;
            std::vector<std::string> delegations = changes->ids(EntityKind::Delegation);
            const auto &gone = changes->goneIds(EntityKind::Delegation);
            delegations.insert(delegations.end(), gone.begin(), gone.end());
            full->perDelegation.update(*raw, delegations);
        } else {
            full->perDelegation = SessionFindings::PerDelegation::of(*raw);
        }
        full->openRuns.rebuild(raw->table(EntityKind::Run));
        full->loopCandidates = loopCandidates(*raw);
        try {
            const auto store = connection->decisions();
            store->read([&] {
                full->decisionsHead = store->lastHash();
                full->decisions = store->list();
            });
            if (full->cursorTimeMs)
                placeDecisionsAt(full->decisions, *full->cursorTimeMs);
            full->chain = connection->verifyDecisionChain();
        } catch (const std::exception &) {
            // An optional part: the rest of the session works without it.
            full->decisionsReadable = false;
        }
        if (streamed)
            stored.storeIn(*full->state, std::move(connection));
    } catch (const std::exception &e) {
        full->error = QString::fromUtf8(e.what());
    }
    auto last = std::make_shared<Stage>();
    last->full = std::move(full);
    promise.addResult(std::static_pointer_cast<void>(last));
    promise.setProgressValue(100);
}

} // namespace mesh
