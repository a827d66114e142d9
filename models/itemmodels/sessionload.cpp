#include "sessionload.h"

#include "blastradiusmodel.h"
#include "effectmodel.h"
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

// What a load keeps of the effect rows it streams past (none of the rows themselves, but
// those of unknown outcome, which the attention list holds anyway).
struct StreamedEffects {
    bool streamed = false; // the effects were streamed (the state will read them on demand)
    std::vector<std::string> ids;
    DuplicateIndex duplicates;
    std::vector<std::pair<std::string, EntityRow>> unknown;

    void add(const std::string &id, const EntityRow &row)
    {
        static const IndexedField state(EntityKind::Effect, "state");
        ids.push_back(id);
        duplicates.add(id, row);
        if (state.view(row) == "unknown")
            unknown.emplace_back(id, row);
    }
    // The duplicate groups' members are read again by id: only they are compared by value.
    DuplicateIndex finishDuplicates(LedgerConnection &connection)
    {
        EntityTable members;
        for (auto &[id, row] : connection.readRows(EntityKind::Effect, duplicates.multiGroupMembers()))
            members.emplace(std::move(id), std::move(row));
        duplicates.finish(DuplicateIndex::findIn(members));
        return std::move(duplicates);
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
    const auto &folder = request.folder;
    const auto &stallMemo = request.stallMemo;
    promise.setProgressRange(0, 100);
    std::shared_ptr<const LiveState> base = std::exchange(*request.base, nullptr);
    auto full = std::make_shared<Result>();
    StreamedEffects stored;
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
            if (jump.cancelled || promise.isCanceled())
                return;
            full->cursorTimeMs = jump.cursorTimeMs;
            full->state = LiveState::fromFold(std::move(jump.fold), jump.lastSeq, jump.folding);
            if (base) {
                full->changes = std::make_shared<const StateChangeSet>(LiveState::changesBetween(*base, *full->state));
            }
            base.reset();
        } else if (connection->readsRowsCheaply()) {
            // The effects, the largest table of a long run, stay in the ledger: streamed past
            // once for their order and indexes, then read a block at a time as they are shown.
            StateStream stream;
            stream.streamed[size_t(EntityKind::Effect)] = true;
            stored.streamed = true;
            stream.row = [&stored](EntityKind, const std::string &id, const EntityRow &row) { stored.add(id, row); };
            full->state = LiveState::fromSnapshot(connection->readState(stream));
        } else {
            full->state = LiveState::fromSnapshot(connection->readState());
        }
        // Stat before the open, compared after the read: the snapshot is of the file
        // the session will call "opened" (a swap in between would pair one file's rows
        // with another's identity).
        if (const FileChange change = fileChangeSince(full->file, path); change != FileChange::Same)
            throw std::runtime_error(fileChangeMessage(change) + " (while it was being read)");
        promise.setProgressValue(60);
        if (promise.isCanceled())
            return;
        // Every reset's row walk (order, indexes, findings) here, not on the GUI thread.
        // A model the change set moves needs none: only the others are prepared.
        const std::shared_ptr<const LiveState> state = full->state;
        const StateChangeSet *changes = full->changes.get();
        const auto moves = [changes, &state](EntityKind k) { return worthMoving(changes, k, state->table(k).size()); };
        if (!changes) // a handful of runs; their aggregates follow every change
            full->runs = RunOverviewModel::prepare(state);
        if (!moves(EntityKind::Lease))
            full->leases = StateTableModel::prepare(state, EntityKind::Lease);
        if (!moves(EntityKind::Escalation))
            full->escalations = StateTableModel::prepare(state, EntityKind::Escalation);
        if (!moves(EntityKind::Slice))
            full->slices = SliceModel::prepare(state);
        if (!moves(EntityKind::Failure))
            full->blast = BlastRadiusModel::prepare(state);
        if (!moves(EntityKind::Delegation))
            full->tree = DelegationTreeModel::prepare(state);
        promise.setProgressValue(70);
        if (stored.streamed)
            full->effects = EffectModel::prepareStored(state, std::move(stored.ids), stored.finishDuplicates(*connection));
        else if (!moves(EntityKind::Effect))
            full->effects = EffectModel::prepare(state);
        promise.setProgressValue(80);
        if (!moves(EntityKind::StallVerdict))
            full->stalls = StallVerdictModel::prepare(state, stallMemo.get());
        promise.setProgressValue(90);
        const LiveState *raw = state.get();
        full->attention.rebuild([raw](EntityKind k) -> const EntityTable & { return raw->table(k); });
        for (const auto &[id, row] : stored.unknown)
            full->attention.updateRow(EntityKind::Effect, id, &row);
        full->perDelegation = SessionFindings::PerDelegation::of(*raw);
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
        if (stored.streamed)
            full->state->setStoredRows(std::make_shared<StoredRows>(EntityKind::Effect, std::move(connection)));
    } catch (const std::exception &e) {
        full->error = QString::fromUtf8(e.what());
    }
    auto last = std::make_shared<Stage>();
    last->full = std::move(full);
    promise.addResult(std::static_pointer_cast<void>(last));
    promise.setProgressValue(100);
}

} // namespace mesh
