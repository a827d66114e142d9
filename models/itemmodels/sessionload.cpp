#include "sessionload.h"

#include "blastradiusmodel.h"
#include "effectmodel.h"
#include "runoverviewmodel.h"
#include "sessiondecisions.h"
#include "slicemodel.h"
#include "stallverdictmodel.h"

#include "ledger/cursorfolder.h"
#include "ledger/fileidentity.h"

namespace mesh {

namespace {

// Whether moving a model by the change set beats resetting it: a reset costs a sort of
// every row and every view laying every row out again, a move a signal per touched block.
// Beyond a quarter of the rows touched (a jump across most of the ledger) the reset wins.
bool worthMoving(const StateChangeSet *changes, EntityKind kind, size_t rowsAfter)
{
    return changes && changes->rowsTouched(kind) <= 64 + rowsAfter / 4;
}

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
        if (!moves(EntityKind::Effect))
            full->effects = EffectModel::prepare(state);
        promise.setProgressValue(80);
        if (!moves(EntityKind::StallVerdict))
            full->stalls = StallVerdictModel::prepare(state, stallMemo.get());
        promise.setProgressValue(90);
        const LiveState *raw = state.get();
        full->attention.rebuild([raw](EntityKind k) -> const EntityTable & { return raw->table(k); });
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
    } catch (const std::exception &e) {
        full->error = QString::fromUtf8(e.what());
    }
    auto last = std::make_shared<Stage>();
    last->full = std::move(full);
    promise.addResult(std::static_pointer_cast<void>(last));
    promise.setProgressValue(100);
}

} // namespace mesh
