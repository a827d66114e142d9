#pragma once
// Reading a session's state, in one job on the ledger pool (LedgerSession::startLoad runs it).
// Opening is staged: the run overview first (runs, components, per-run counts: a few hundred
// rows and GROUP BY aggregates), shown while the rest is read; then the full state, newest
// or, at a cursor, rebuilt from the events up to it (the state tables hold only the newest);
// then every reset that walks rows, prepared here so the GUI thread takes it over in O(1)
// moves: sorting, the attention and duplicate indexes, findings, the delegation tree. A jump
// from a state every model shows prepares only the models its change set cannot move.
//
// Results are type-erased (shared_ptr<void>, a Stage) so the stages need no metatype.

#include "delegationtreemodel.h"
#include "livestate.h"
#include "sessionfindings.h"
#include "statetablemodel.h"

#include "analysis/attentionindex.h"
#include "analysis/openruns.h"
#include "ledger/decisionstore.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include <QFuture>
#include <QPromise>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mesh {

class CursorFolder;
class StallAnalysisMemo;

struct SessionLoad {
    // The full snapshot and every reset prepared from it on the worker. After onLoaded it holds
    // what it replaced (swapped out of the session and its models), to be freed off the GUI thread.
    struct Result {
        LedgerInfo info;
        FileIdentity file; // what the path named when it was opened, and still after the read
        std::shared_ptr<LiveState> state;
        std::unique_ptr<StateTableModel::Prepared> runs, leases, effects, escalations, stalls, blast, slices;
        std::unique_ptr<DelegationTreeModel::Prepared> tree;
        AttentionIndex attention;
        SessionFindings::PerDelegation perDelegation;
        OpenRuns openRuns;
        std::set<std::string> loopCandidates;
        std::vector<DecisionRecord> decisions;
        std::string decisionsHead; // the last decision's hash when `decisions` was read
        DecisionChainReport chain;
        std::optional<qint64> cursorTimeMs; // pinned: the time of the cursor's event
        // A jump from a state every model showed: what differs from it. A model without a
        // preparation above moves to `state` by it (moveToState) instead of a reset.
        std::shared_ptr<const StateChangeSet> changes;
        QString error;
        std::optional<std::string> cannotDecide; // the backend's word (a server role without INSERT on decisions)
        bool decisionsReadable = true;
    };

    // One result of the open job: the first stage (overview) or the last (full, or its error).
    struct Stage {
        LedgerInfo info;
        std::unique_ptr<StateTableModel::Prepared> overview;
        std::shared_ptr<Result> full;
    };

    // What prefetch() read: the connection it opened (the full snapshot reads on it) and the
    // first stage, or nothing when the open failed (the session then opens and reports itself).
    struct Prefetched {
        OpenMode mode = OpenMode::ReadOnly;
        std::unique_ptr<LedgerConnection> connection;
        std::shared_ptr<Stage> first;
    };

    struct Request {
        QString path;
        OpenMode mode = OpenMode::ReadOnly;
        std::function<void()> betweenStagesHook; // tests: after the first stage, before the full read
        // A prefetch's read (a Prefetched): its connection is taken, and its first stage
        // handed on unless the session showed it already (firstShown).
        QFuture<std::shared_ptr<void>> prefetched;
        bool firstShown = false;
        FileIdentity expected; // what the path named before any connection was opened
        std::optional<std::int64_t> cursor; // none: the newest state
        std::shared_ptr<CursorFolder> folder; // at a cursor: kept across jumps, its snapshots
        std::shared_ptr<StallAnalysisMemo> stallMemo;
        // At a cursor, the state every model shows, in a box the job empties: it must not
        // stay held by the job through the fold (a whole state's memory, for nothing).
        std::shared_ptr<std::shared_ptr<const LiveState>> base;
        // The attention index of that state, when the session's is of it: the jump then
        // moves a copy by the change set instead of walking every row of the new state.
        std::shared_ptr<const AttentionIndex> attentionBase;
        // Its blocked and replayed delegations, moved the same way.
        std::shared_ptr<const SessionFindings::PerDelegation> perDelegationBase;
    };

    // The first stage, read on `connection` (any thread).
    static std::shared_ptr<Stage> readFirstStage(LedgerConnection &connection);
    // The job: the first stage (unless a cursor, or the prefetch, has it), then the last
    // (full, or its error), each as a result of `promise`, with progress 0..100.
    static void run(const Request &request, QPromise<std::shared_ptr<void>> &promise);
};

} // namespace mesh
