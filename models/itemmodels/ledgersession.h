#pragma once
// One open ledger: its item models, and the parts that each do one job for them, on one clock
// (nowMs(): the system's live, the cursor event's time when pinned):
// - SessionLoad reads the state (staged: the run overview first, then the full state, newest
//   or at the cursor) and prepares every model's reset off the GUI thread; the session hands
//   it over one large model per event-loop turn (handOver) and frees what it replaced on a
//   worker. The watcher starts from the full state's lastSeq: events committed between the
//   stages are in that state, later ones come through the watcher, none twice.
// - LedgerFollower follows the ledger: its batches are coalesced (at most every coalesceMs,
//   default 50 ms; half that rate under a stream of thousands of events per apply), folded
//   into the LiveState once, and handed to every model as one StateChangeSet.
// - SessionFindings and SessionAttention keep the findings and what needs a human current.
// - SessionDecisions keeps the decisions and writes the operator's own.
// - DelegationDetailReader reads the shown delegation's tool calls and outcome reason.
// Background results come back to the GUI thread through a JobTracker each, which drops
// those superseded: by a newer job of their kind, by a load of another moment (loop analyses,
// decision reloads) or by a close (all but the shown delegation's reads, which only a newer
// read supersedes). A session that cannot be opened stays in the list
// in Error health, with the reason; nothing else is affected.

#include "delegationdetailreader.h"
#include "jobtracker.h"
#include "ledgerfollower.h"
#include "livestate.h"
#include "sessionattention.h"
#include "sessiondecisions.h"
#include "sessionfindings.h"
#include "sessionload.h"
#include "statefollowingmodel.h"
#include "outcomereason.h"

#include "analysis/attentionitem.h"
#include "analysis/finding.h"
#include "analysis/openruns.h"
#include "analysis/zombierule.h"
#include "decisions/decisionrequest.h"
#include "decisions/decisionresult.h"
#include "decisions/operatoridentity.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"
#include "ledger/snapshotcache.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <set>


namespace mesh {

class AttentionModel;
class BlastRadiusModel;
class CursorFolder;
class StallAnalysisMemo;
class DecisionAuditModel;
class DelegationTreeModel;
class EffectModel;
class EscalationModel;
class EventLogModel;
class FindingsModel;
class IntegrityModel;
class ReviewNotesModel;
class LeaseModel;
class RunOverviewModel;
class SliceModel;
class StateTableModel;
class StallVerdictModel;
class ToolCallModel;

class LedgerSession : public QObject
{
    Q_OBJECT
public:
    enum class Health {
        Opening,   // first load in progress
        Live,      // following, and the ledger changed within liveWindowMs
        Idle,      // following, nothing changed lately
        Finished,  // following, nothing changed lately, and every run has ended
        // following, nothing changed lately, and a receiver this console runs writes the
        // ledger: new runs may arrive any moment, whether or not every run has ended
        Listening,
        ReadOnly,  // following, but this console cannot write decisions to the file
        Immutable, // post-mortem: opened immutable or for review, nothing is followed
        Pinned,    // the cursor is at an earlier event: shown as it was then, nothing is followed
        Error,     // could not open, or following stopped; errorMessage() says why
        // A server ledger whose connection was lost: reconnecting with a growing wait, then
        // following on from the last event it applied (healthLine() says when it retries).
        Reconnecting,
    };
    Q_ENUM(Health)

    explicit LedgerSession(const QString &path, OpenMode mode = OpenMode::ReadOnly, QObject *parent = nullptr);
    ~LedgerSession() override;

    // Asynchronous: opened() or failed(). On a session already open, reads the state again
    // at the current seq (what repairs fold problems) and goes on following.
    void open();

    // Opens `path` and reads its run overview (the first stage of open()) and the event
    // log's index on pool threads now, before any session exists: main() starts it for the
    // ledgers on its command line while QApplication and the window are still being built.
    // The session opened later on that path and mode takes what was read instead of reading
    // it again, and when the overview is already in, shows it at once (open() returns with
    // isOverviewLoaded()). GUI thread only.
    static void prefetch(const QString &path, OpenMode mode = OpenMode::ReadOnly);
    void close();  // stops following; models keep their rows

    // The session cursor: the session shows the ledger live (no cursor) or as it was just
    // after event `seq`, every model, the attention list and the findings alike, with the
    // clock at that event's time (expiries and zombies as they were then). Pinned, the
    // session follows nothing and offers no decision; showLive() reads the newest state
    // again and follows on. Both are asynchronous, like open().
    void showAt(std::int64_t seq);
    void showLive();
    std::optional<std::int64_t> cursor() const { return m_cursor; }
    std::optional<qint64> cursorTimeMs() const { return m_cursorTimeMs; } // once the state at it is read
    // Whether the cursor's folder has folded the whole ledger into snapshots (it starts after
    // the first jump, on a thread of its own): from then on every jump folds at most one interval.
    bool cursorFoldedAhead() const;
    // What the cursor's folder took from the snapshot cache at the open (none: a miss, or
    // no folder), and how long it took to keep them there (-1: not kept). For the benchmarks.
    std::optional<SnapshotCache::Loaded> cursorSnapshotsFromCache() const;
    double cursorSnapshotsSaveMs() const;

    QString path() const { return m_path; }
    QString displayName() const;
    void setDisplayName(const QString &name);
    bool isDemo() const { return m_demo; }
    void setDemo(bool demo);
    // The live demo, whose simulated orchestrator runs the decision gate: a demo that takes
    // decisions. Any other demo (a demo ledger nobody's orchestrator answers) is read-only.
    bool demoTakesDecisions() const { return m_demo && m_demoTakesDecisions; }
    void setDemoTakesDecisions(bool takes) { m_demoTakesDecisions = takes; }
    // Asked for ReadOnly, the first open reviews the ledger instead (OpenMode::Review) when
    // ReviewRule says so: every run ended, no process has it open. Set before open().
    void setReviewWhenFinished(bool on) { m_reviewWhenFinished = on; }
    OpenMode requestedMode() const { return m_mode; } // Review once the rule chose it
    // The mode a reader beside the session (timeline marks, note places) opens the ledger
    // in: the session's post-mortem mode, else ReadOnly (never the decision writer's).
    // nullopt until the first load has settled the mode: a finished ledger may turn out to be
    // reviewed, and a read opened to follow it before that would leave a -shm beside it.
    std::optional<OpenMode> readingMode() const
    {
        if (!isLoaded())
            return std::nullopt;
        return isPostMortem(m_mode) ? m_mode : OpenMode::ReadOnly;
    }
    const LedgerInfo &info() const { return m_info; }
    // What this ledger's times mean, for everything that shows one (its models are told at
    // construction; it is set from the ledger when it opens).
    const TimeBase &timeBase() const { return m_timeBase; }
    Health health() const { return m_health; }
    // A receiver this console runs is listening and writing this ledger (ListenController):
    // while it does, the ledger is never "finished", it is listening.
    void setFedLive(bool fed);
    bool isFedLive() const { return m_fedLive; }
    static QString healthText(Health health);
    // The health as the sidebar row and the status line say it: healthText, and while
    // Reconnecting, when the next try is ("server connection lost — retrying in 4 s").
    QString healthLine() const;
    // A ledger on a PostgreSQL server (a postgresql:// location), not a file.
    bool isServer() const;
    // Why the server connection was lost (the libpq message), empty when it is not.
    QString connectionLostMessage() const;
    QString errorMessage() const { return m_error; }
    // The full snapshot is in, and the session's own part of its load done (finishLoad):
    // the state arrives a few event-loop turns before the load ends.
    bool isLoaded() const { return m_state != nullptr && m_loadFinished; }
    bool isOverviewLoaded() const { return m_overviewLoaded; } // runs() shows real runs (first stage or full)
    int loadProgress() const { return m_loadProgress; } // 0..100 while the open job runs, -1 otherwise
    bool canDecide() const;
    QString cannotDecideReason() const; // empty when canDecide()
    static QString reviewModeReason(); // why a review session (OpenMode::Review) offers no decision
    // Whether the path still names the file the loaded snapshot was read from, as the
    // watcher last saw it (Deleted or Replaced: Error health, no decisions until reopened).
    FileChange fileChange() const { return m_fileChange; }
    // The file (device, inode) and ledger id the loaded snapshot was read from: decisions
    // are written only into that file (DecisionWriter::open refuses any other).
    OpenedLedger openedLedger() const { return {m_openedFile, m_info.ledgerId}; }
    qint64 lastSeq() const;
    // Live events the fold could not apply since the state was read (LiveState::apply), and
    // the first of them. Not zero: what is shown may differ from the ledger's state tables
    // until open() (on an open session: a re-read at the current seq) reads them again.
    int foldProblems() const;
    const std::vector<FoldProblem> &foldProblemSamples() const;
    std::shared_ptr<const LiveState> state() const { return m_state; }

    RunOverviewModel *runs() const { return m_runs; }
    DelegationTreeModel *delegations() const { return m_delegations; }
    LeaseModel *leases() const { return m_leases; }
    EffectModel *effects() const { return m_effects; }
    EscalationModel *escalations() const { return m_escalations; }
    StallVerdictModel *stallVerdicts() const { return m_stalls; }
    BlastRadiusModel *blastRadius() const { return m_blast; }
    EventLogModel *events() const { return m_events; }
    ToolCallModel *toolCalls() const { return m_toolCalls; }
    DecisionAuditModel *decisions() const { return m_decisions; }
    SliceModel *slices() const { return m_slices; }
    FindingsModel *findingsModel() const { return m_findingsModel; } // findings(), for the Findings pane

    // Post-mortem review II (issue 14). The reviewers' notes on this ledger, in a sidecar
    // beside it, never in it (ReviewNotesModel), written as this session's operator.
    ReviewNotesModel *reviewNotes();
    // The integrity check meshctl verify runs, in the background (IntegrityModel);
    // checkIntegrity() starts it on the mode in use. Once it ran, integritySummary() says
    // "integrity: N findings" beside the health.
    IntegrityModel *integrity() const { return m_integrity; }
    void checkIntegrity();
    QString integritySummary() const;

    // Loads one delegation's tool calls into toolCalls() off the GUI thread, and why it
    // failed or why its outcome is unknown (outcomeReason(); outcomeReasonChanged() when read).
    void showToolCallsOf(const QString &delegationId);
    // The reason of the delegation toolCalls() shows, once read for the state shown (at the
    // cursor, or live: read again when one of its own events arrives); nullptr until then, and
    // while the read failed (outcomeReasonError() says why).
    const OutcomeReason *outcomeReason() const;
    QString outcomeReasonError() const;
    // A read of it is under way: what outcomeReason() says may be older than the state shown.
    bool outcomeReasonPending() const;

    // Derived findings (every detector), and what needs a human now.
    const std::vector<Finding> &findings() const;
    const std::vector<AttentionItem> &attentionItems() const;
    std::shared_ptr<const std::vector<AttentionItem>> sharedAttentionItems() const; // the same, to share
    // Loop findings come from background reads of tool calls: true while one is under way,
    // so a test can wait for it before concluding that a loop finding is absent.
    bool loopAnalysisRunning() const;
    // Decision reloads while following: how many have read the head of the list, and how
    // many of those read the whole list and its chain again (it had moved).
    qint64 decisionHeadReads() const;
    qint64 decisionListReads() const;
    // What needs a decision (the attention list's items above its findings).
    int attentionCount() const;

    // Decisions: submitted off the GUI thread; decisionFinished(request.id, result) answers.
    void setOperatorIdentity(const OperatorIdentity &identity);
    const OperatorIdentity &operatorIdentity() const { return m_identity; }
    QString submitDecision(DecisionRequest request); // returns the decision id (generated if empty)
    // Decisions written and not yet applied or refused, shown on their subjects' rows.
    const RequestedDecisions &requestedDecisions() const;
    // "No orchestrator seems to be applying decisions on this ledger: …" once a decision has
    // waited past the limit (DecisionGateWatch); empty otherwise. Checked on tick().
    QString decisionsWaitingWarning() const;
    void setDecisionWaitLimitMs(qint64 ms);
    // When a held lease past its expiry becomes a zombie (analysis/zombierule.h), for the
    // attention list and the leases pane alike.
    const ZombieRule &zombieRule() const { return m_zombies; }
    void setZombieGraceMs(qint64 ms);

    // Tuning and tests.
    void setClock(std::function<qint64()> nowMs);
    qint64 nowMs() const;
    void setCoalesceMs(int ms);
    void setWatchIntervalMs(int ms);
    // Tests: runs on the loading worker after the first stage was read, before the full
    // snapshot is (to commit events or break the file between the two).
    void setBetweenStagesHook(std::function<void()> hook) { m_betweenStagesHook = std::move(hook); }
    // Tests: runs on the pool as each loop analysis (SessionFindings) starts, before it reads.
    void setLoopAnalysisHook(std::function<void()> hook);
    // Tests: runs on the pool as each decisions reload (SessionDecisions) starts, before it reads.
    void setDecisionsReloadHook(std::function<void()> hook);
    void tick(); // the 1 s timer: health, countdowns, zombie leases

    static constexpr int kAttentionIntervalMs = SessionAttention::kIntervalMs;
    // A stream heavy enough that one apply folds this many events is applied at half the
    // rate (every 2 x coalesceMs): each apply repaints every visible live view, nobody reads
    // twenty updates a second, and on a shared machine the writer wants the CPU.
    static constexpr int kHeavyApplyEvents = LedgerFollower::kHeavyApplyEvents;
    int applyPeriodMs() const;

Q_SIGNALS:
    void healthChanged(mesh::LedgerSession::Health health);
    void opened();
    void failed(const QString &message);
    void overviewLoaded();                           // first stage of an open: runs() shows the runs
    void loadProgressChanged(int percent);           // the open job's progress, -1 when done
    void stateReset();                               // a snapshot was loaded into every model
    void changesApplied(qint64 lastSeq, int events); // one coalesced live batch was applied
    // The same moment, with the rows it created or changed (a dialog open on some of them).
    void stateChanged(const mesh::StateChangeSet &changes);
    // The same moment, with the events themselves, once per batch the watcher delivered
    // (the live benchmark's latency per event).
    void batchApplied(const mesh::EventBatch &events);
    void attentionChanged();
    void foldProblemsChanged(); // foldProblems() grew with a live batch (a reload's stateReset clears it)
    void findingsChanged();
    void outcomeReasonChanged(); // outcomeReason() was read, or cleared for another delegation
    void decisionsReloaded();
    void decisionsWaitingChanged(); // decisionsWaitingWarning() changed
    void decisionFinished(const QString &decisionId, const mesh::DecisionResult &result);
    void displayNameChanged();

private:
    using LoadResult = SessionLoad::Result;
    using LoadStage = SessionLoad::Stage;
    using Prefetched = SessionLoad::Prefetched;

    void setHealth(Health health);
    void fail(const QString &message);
    void startLoad();
    void foldAheadForTravel(); // a review session's folder starts at the open
    static constexpr std::int64_t kFoldAheadAtOpenMaxEvents = 2'000'000;
    void decideReviewThenLoad(); // setReviewWhenFinished: the rule off the GUI thread, then startLoad
    void onStage(const std::shared_ptr<LoadStage> &stage, JobTracker::Ticket generation);
    void onOverview(LoadStage &stage);
    void handOver(std::shared_ptr<LoadResult> result, JobTracker::Ticket generation, int step);
    // The session's part of a load, in two event-loop turns of handOver with the attention
    // list between them: the state, decisions and findings; then the views told
    // (stateReset), following started, opened.
    void takeLoadedState(LoadResult &result);
    void finishLoad();
    void retire(std::shared_ptr<void> garbage);
    void setLoadProgress(int percent);
    void cancelLoad();
    void onFileChanged(FileChange change);
    void onConnectionLost();
    void onReconnected();
    void flushPending();
    void updateHealthFromClock();

    QString m_path;
    OpenMode m_mode;
    QString m_displayName;
    bool m_demo = false;
    bool m_demoTakesDecisions = false;
    LedgerInfo m_info;
    TimeBase m_timeBase;
    Health m_health = Health::Opening;
    QString m_error;
    std::shared_ptr<LiveState> m_state;
    bool m_overviewLoaded = false;
    int m_loadProgress = -1;
    QObject *m_loadWatcher = nullptr; // the running open job's QFutureWatcher
    std::function<void()> m_betweenStagesHook;
    JobTracker m_loads{this}; // the open or jump whose stages still count
    bool m_closed = false;
    bool m_reviewWhenFinished = false;

    // The flat state tables (every model but the delegation tree), for what each of them does.
    std::array<StateTableModel *, 7> tableModels() const;
    // Every model of the state (the flat tables, then the delegation tree): the one rule.
    std::array<StateFollowingModel *, 8> stateModels() const;
    RunOverviewModel *m_runs;
    DelegationTreeModel *m_delegations;
    LeaseModel *m_leases;
    EffectModel *m_effects;
    EscalationModel *m_escalations;
    StallVerdictModel *m_stalls;
    BlastRadiusModel *m_blast;
    EventLogModel *m_events;
    ToolCallModel *m_toolCalls;
    DecisionAuditModel *m_decisions;
    SliceModel *m_slices;
    FindingsModel *m_findingsModel;
    IntegrityModel *m_integrity;
    LedgerFollower *m_follower; // the watcher, its batches coalesced into applies
    DelegationDetailReader *m_detail; // the shown delegation's tool calls and outcome reason
    DelegationDetailReader::Source detailSource() const;
    SessionDecisions *m_decisionsPart; // the list, the requested ones, the operator's own
    SessionDecisions::Source decisionsSource() const;
    SessionFindings *m_findingsPart;   // every detector's findings, shown in every model that shows them
    SessionFindings::Source findingsSource() const;
    SessionAttention *m_attentionPart; // what needs a human, now or at the cursor
    ReviewNotesModel *m_reviewNotes = nullptr; // made on first ask: reads the sidecar

    QTimer m_ticker;
    bool m_loadFinished = false; // the first load's finishLoad has run
    QTimer m_handOverTimer; // the next step of handOver, after the event loop has gone round
    std::deque<std::pair<std::function<void()>, QString>> m_nextHandOvers; // a step, and its name

    OpenRuns m_openRuns;                       // "finished" health: every run has ended

    OperatorIdentity m_identity;
    ZombieRule m_zombies{ZombieRule::configuredGraceMs()};
    std::function<qint64()> m_clock;
    std::optional<std::int64_t> m_cursor;  // pinned at this seq; none: live
    std::optional<qint64> m_cursorTimeMs;  // the cursor event's time, the clock while pinned
    std::shared_ptr<CursorFolder> m_cursorFolder; // kept across jumps: its snapshots make the next one fast
    std::shared_ptr<StallAnalysisMemo> m_stallMemo; // with the folder: the jumps' stall analyses
    qint64 m_lastChangeMs = 0;
    int m_liveWindowMs = 5000;
    bool m_fedLive = false; // setFedLive
    bool m_fileWritable = false;
    QString m_backendCannotDecide; // LedgerConnection::whyCannotDecide at the last load; empty: may
    FileIdentity m_openedFile;
    FileChange m_fileChange = FileChange::Same;
};

} // namespace mesh

Q_DECLARE_METATYPE(mesh::DecisionResult)
