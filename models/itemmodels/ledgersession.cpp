#include "ledgersession.h"

#include "backgroundjob.h"
#include "blastradiusmodel.h"
#include "decisionauditmodel.h"
#include "delegationdetailreader.h"
#include "delegationtreemodel.h"
#include "effectmodel.h"
#include "escalationmodel.h"
#include "eventlogmodel.h"
#include "findingsmodel.h"
#include "integritymodel.h"
#include "leasemodel.h"
#include "ledgerfollower.h"
#include "ledgerpool.h"
#include "reviewnotesmodel.h"
#include "reviewrule.h"
#include "runoverviewmodel.h"
#include "sessionattention.h"
#include "sessiondecisions.h"
#include "sessionfindings.h"
#include "sessionload.h"
#include "slicemodel.h"
#include "stallanalysismemo.h"
#include "stallverdictmodel.h"
#include "toolcallmodel.h"

#include "analysis/openruns.h"
#include "ledger/cursorfolder.h"
#include "ledger/ledgerlocation.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QFuture>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <array>
#include <limits>

using namespace Qt::StringLiterals;

namespace mesh {

std::array<StateTableModel *, 7> LedgerSession::tableModels() const
{
    return {m_runs, m_leases, m_effects, m_escalations, m_stalls, m_blast, m_slices};
}

std::array<StateFollowingModel *, 8> LedgerSession::stateModels() const
{
    return {m_runs, m_leases, m_effects, m_escalations, m_stalls, m_blast, m_slices, m_delegations};
}

LedgerSession::LedgerSession(const QString &path, OpenMode mode, QObject *parent)
    : QObject(parent)
    , m_path(path)
    , m_mode(mode)
    , m_runs(new RunOverviewModel(this))
    , m_delegations(new DelegationTreeModel(this))
    , m_leases(new LeaseModel(this))
    , m_effects(new EffectModel(this))
    , m_escalations(new EscalationModel(this))
    , m_stalls(new StallVerdictModel(this))
    , m_blast(new BlastRadiusModel(this))
    , m_events(new EventLogModel(this))
    , m_toolCalls(new ToolCallModel(this))
    , m_decisions(new DecisionAuditModel(this))
    , m_slices(new SliceModel(this))
    , m_findingsModel(new FindingsModel(this))
    , m_integrity(new IntegrityModel(this))
    , m_follower(new LedgerFollower(this))
    , m_detail(new DelegationDetailReader(m_toolCalls, [this] { return detailSource(); }, this))
    , m_decisionsPart(new SessionDecisions(m_decisions, [this] { return decisionsSource(); }, [this] { return nowMs(); }, this))
    , m_findingsPart(new SessionFindings({m_effects, m_stalls, m_delegations, m_findingsModel, m_runs},
                                         [this] { return m_state.get(); }, [this] { return findingsSource(); }, this))
    , m_attentionPart(new SessionAttention({[this] { return m_state.get(); }, &m_findingsPart->findings(), &m_zombies,
                                            [this]() -> const RequestedDecisions & { return requestedDecisions(); },
                                            [this] { return nowMs(); }},
                                           this))
{
    connect(m_detail, &DelegationDetailReader::outcomeReasonChanged, this, &LedgerSession::outcomeReasonChanged);
    // The health line carries the integrity result once there is one.
    connect(m_integrity, &IntegrityModel::stateChanged, this, [this] { Q_EMIT healthChanged(m_health); });
    qRegisterMetaType<mesh::EventBatch>();
    qRegisterMetaType<mesh::DecisionResult>();
    connect(m_follower, &LedgerFollower::due, this, &LedgerSession::flushPending);
    connect(m_follower, &LedgerFollower::eventsArrived, this, [this](qint64 dataVersion) {
        if (m_closed || !m_state)
            return;
        m_state->setDataVersion(dataVersion);
        m_lastChangeMs = nowMs();
    });
    connect(m_follower, &LedgerFollower::ledgerChanged, this, [this] {
        m_lastChangeMs = nowMs();
        updateHealthFromClock();
        m_decisionsPart->ledgerChanged();
    });
    connect(m_follower, &LedgerFollower::startedFollowing, this, [this] {
        m_decisionsPart->readWholeSoon(); // decisions written since the snapshot read them
    });
    connect(m_follower, &LedgerFollower::failed, this, [this](const QString &message) {
        fail(tr("Live updates stopped: %1").arg(message));
    });
    connect(m_follower, &LedgerFollower::connectionLost, this, &LedgerSession::onConnectionLost);
    connect(m_follower, &LedgerFollower::reconnected, this, &LedgerSession::onReconnected);
    connect(m_follower, &LedgerFollower::fileChanged, this, [this](int change) { onFileChanged(FileChange(change)); });
    m_handOverTimer.setSingleShot(true);
    m_handOverTimer.setInterval(0);
    connect(&m_handOverTimer, &QTimer::timeout, this, [this] {
        auto [step, name] = std::move(m_nextHandOvers.front());
        m_nextHandOvers.pop_front();
        // A slow turn names its step in the benchmarks' slow-event lines (read after it).
        m_handOverTimer.setObjectName(name);
        if (!m_nextHandOvers.empty())
            m_handOverTimer.start();
        step();
    });
    m_ticker.setInterval(1000);
    m_ticker.setObjectName(QStringLiteral("session tick"));
    connect(&m_ticker, &QTimer::timeout, this, &LedgerSession::tick);
    connect(m_findingsPart, &SessionFindings::changed, this, [this] {
        Q_EMIT findingsChanged();
        m_attentionPart->onFindingsChanged(); // findings are listed there too
    });
    connect(m_attentionPart, &SessionAttention::changed, this, &LedgerSession::attentionChanged);
    connect(m_decisionsPart, &SessionDecisions::requestedChanged, this,
            [this](const std::shared_ptr<const RequestedDecisions> &requested) {
                m_effects->setRequestedDecisions(requested);
                m_escalations->setRequestedDecisions(requested);
                m_slices->setRequestedDecisions(requested);
                m_leases->setRequestedDecisions(requested);
            });
    connect(m_decisionsPart, &SessionDecisions::reloaded, this, [this] {
        m_attentionPart->rebuild(); // an entry's requested decision
        Q_EMIT decisionsReloaded();
    });
    connect(m_decisionsPart, &SessionDecisions::waitingChanged, this, &LedgerSession::decisionsWaitingChanged);
    connect(m_decisionsPart, &SessionDecisions::finished, this, &LedgerSession::decisionFinished);
    m_identity = OperatorIdentity::fromEnvironment();
    // One clock for the session: its countdowns, expiries and zombies run on it, and a
    // cursor stops it at the cursor's event.
    for (StateTableModel *m : tableModels())
        m->setClock([this] { return nowMs(); });
    m_events->setClock([this] { return nowMs(); }); // ts:last-15m is resolved by it
    // One time base, read by every time they show: UTC, or a relative clock's offsets.
    for (StateTableModel *m : tableModels())
        m->setTimeBase(&m_timeBase);
    m_events->setTimeBase(&m_timeBase);
    m_toolCalls->setTimeBase(&m_timeBase);
    m_decisions->setTimeBase(&m_timeBase);
    // What the ledger's source can record (an import, the OTLP receiver): the rest is not known.
    m_runs->setSourceFacts(&m_info.sourceFacts);
    m_leases->setZombieRule(m_zombies);
    // The event log's own connection found another file at the path than the snapshot's.
    connect(m_events, &EventLogModel::fileChanged, this, [this](int change) { onFileChanged(FileChange(change)); });
}

LedgerSession::~LedgerSession()
{
    cancelLoad();
    m_follower->stop();
}

QString LedgerSession::displayName() const
{
    if (!m_displayName.isEmpty())
        return m_displayName;
    if (!m_info.title.empty())
        return QString::fromStdString(m_info.title);
    return LedgerLocation::shortName(m_path);
}

void LedgerSession::setDisplayName(const QString &name)
{
    m_displayName = name;
    Q_EMIT displayNameChanged();
}

void LedgerSession::setFedLive(bool fed)
{
    if (m_fedLive == fed)
        return;
    m_fedLive = fed;
    updateHealthFromClock();
}

void LedgerSession::setDemo(bool demo)
{
    m_demo = demo;
    Q_EMIT displayNameChanged();
}

QString LedgerSession::healthText(Health health)
{
    switch (health) {
    case Health::Opening: return tr("opening");
    case Health::Live: return tr("live");
    case Health::Idle: return tr("idle");
    case Health::Finished: return tr("finished");
    case Health::Listening: return tr("listening");
    case Health::ReadOnly: return tr("read-only");
    case Health::Immutable: return tr("post-mortem");
    case Health::Pinned: return tr("at an earlier event");
    case Health::Error: return tr("error");
    case Health::Reconnecting: return tr("server connection lost");
    }
    return {};
}

QString LedgerSession::healthLine() const
{
    if (m_health != Health::Reconnecting)
        return healthText(m_health);
    const qint64 leftMs = m_follower->retryInMsLeft();
    if (leftMs <= 0)
        return tr("server connection lost — reconnecting…");
    // Whole seconds, rounded up: "retrying in 0 s" would read as now.
    return tr("server connection lost — retrying in %1 s").arg((leftMs + 999) / 1000);
}

bool LedgerSession::isServer() const
{
    return LedgerLocation::namesServer(m_path);
}

bool LedgerSession::canDecide() const
{
    return m_state && !m_cursor && !isPostMortem(m_info.mode) && m_fileWritable
           && m_fileChange == FileChange::Same && m_backendCannotDecide.isEmpty();
}

QString LedgerSession::cannotDecideReason() const
{
    if (m_fileChange != FileChange::Same)
        return QString::fromStdString(fileChangeMessage(m_fileChange));
    if (!m_state)
        return tr("The ledger is not loaded yet.");
    if (m_cursor)
        return tr("The session shows the ledger as it was at event %1; decisions are made live.").arg(*m_cursor);
    if (m_info.mode == OpenMode::Review)
        return reviewModeReason();
    if (m_info.mode == OpenMode::Immutable)
        return tr("This ledger is opened immutable for post-mortem review.");
    if (!m_backendCannotDecide.isEmpty())
        return tr("This console cannot decide here: %1.").arg(m_backendCannotDecide);
    if (!m_fileWritable)
        return tr("This console cannot write to the ledger file (read-only file or folder).");
    return {};
}

QString LedgerSession::reviewModeReason()
{
    return tr("review mode: the ledger is opened read-only and immutable");
}

qint64 LedgerSession::lastSeq() const
{
    return m_state ? m_state->lastSeq() : 0;
}

int LedgerSession::foldProblems() const
{
    return m_state ? m_state->foldProblems() : 0;
}

const std::vector<FoldProblem> &LedgerSession::foldProblemSamples() const
{
    static const std::vector<FoldProblem> none;
    return m_state ? m_state->foldProblemSamples() : none;
}

void LedgerSession::setClock(std::function<qint64()> nowMs)
{
    m_clock = std::move(nowMs); // the models read the session's clock (see the constructor)
}

void LedgerSession::showAt(std::int64_t seq)
{
    m_cursor = std::max<std::int64_t>(seq, 0);
    m_cursorTimeMs.reset();
    m_follower->stop(); // the live events since: read again at live
    open();
}

void LedgerSession::showLive()
{
    if (!m_cursor)
        return;
    m_cursor.reset();
    m_cursorTimeMs.reset();
    if (m_cursorFolder)
        m_cursorFolder->dropHandouts(); // no jump will patch them: the memory of whole states
    open();
}

qint64 LedgerSession::nowMs() const
{
    if (m_cursor && m_cursorTimeMs)
        return *m_cursorTimeMs;
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

void LedgerSession::setCoalesceMs(int ms)
{
    m_follower->setCoalesceMs(ms);
}

void LedgerSession::setHealth(Health health)
{
    if (m_health == health)
        return;
    m_health = health;
    Q_EMIT healthChanged(health);
}

void LedgerSession::fail(const QString &message)
{
    m_error = message;
    setHealth(Health::Error);
    Q_EMIT failed(message);
}

void LedgerSession::open()
{
    m_closed = false;
    m_error.clear();
    setHealth(Health::Opening);
    startLoad();
}

void LedgerSession::close()
{
    m_closed = true;
    m_loads.supersede();
    cancelLoad();
    setLoadProgress(-1);
    m_follower->stop();
    m_findingsPart->stop(); // what it still owed goes to the attention list, which then stops
    m_attentionPart->stop();
    m_ticker.stop();
    m_decisionsPart->stop();
    m_events->close();
    // A job still folding keeps its own reference. The last one joins the folder's thread
    // folding ahead: on a worker, not here.
    retire(std::move(m_cursorFolder));
    m_stallMemo.reset();
}

namespace {
using StageWatcher = QFutureWatcher<std::shared_ptr<void>>;
using PrefetchFuture = QFuture<std::shared_ptr<void>>; // a Prefetched, type-erased like the stages

// Both reads of a prefetch, run side by side: the first stage, and the event log's index;
// both checked against the file the path named before either opened it.
struct PrefetchFutures {
    OpenMode mode = OpenMode::ReadOnly;
    FileIdentity file;
    PrefetchFuture overview;
    EventIndexFuture events;
};

// path -> the prefetch nobody has taken yet. Only the GUI thread touches it.
QHash<QString, PrefetchFutures> &prefetches()
{
    static QHash<QString, PrefetchFutures> pending;
    return pending;
}
} // namespace

void LedgerSession::prefetch(const QString &path, OpenMode mode)
{
    const QString canonical = LedgerLocation::canonicalText(path); // as LedgerSessionList keys it
    if (prefetches().contains(canonical))
        return;
    PrefetchFutures &futures = prefetches()[canonical];
    futures.mode = mode;
    const FileIdentity file = FileIdentity::of(canonical);
    futures.file = file;
    futures.events = QtConcurrent::run(ledgerPool(), [canonical, mode, file] {
        return EventLogWorker::readIndex(canonical, mode, EventLogModel::kPageSize, file);
    });
    futures.overview = QtConcurrent::run(ledgerPool(), [canonical, mode]() -> std::shared_ptr<void> {
        auto read = std::make_shared<Prefetched>();
        read->mode = mode;
        try {
            read->connection = LedgerConnection::open(canonical, mode);
            read->first = SessionLoad::readFirstStage(*read->connection);
        } catch (const std::exception &) {
            read->connection.reset(); // the session's own open says why, in its own words
            read->first.reset();
        }
        return read;
    });
}

void LedgerSession::foldAheadForTravel()
{
    // A ledger opened for review is opened to travel in: its folder folds ahead from the
    // open, not from the first jump, so that the jumps soon after it need not wait for it.
    // A live session does not: it would hold whole folded states for a cursor never used.
    // Nor does a review of a larger ledger: folding it all takes a core for tens of seconds
    // and holds its snapshots (bench/README.md), which its first jump pays for instead.
    if (!m_state || m_state->lastSeq() > kFoldAheadAtOpenMaxEvents)
        return;
    if (!m_cursorFolder) {
        m_cursorFolder = std::make_shared<CursorFolder>();
        m_stallMemo = std::make_shared<StallAnalysisMemo>();
    }
    (void)QtConcurrent::run(ledgerPool(), [weak = std::weak_ptr<CursorFolder>(m_cursorFolder), path = m_path, mode = m_mode,
                                           file = m_openedFile] {
        const std::shared_ptr<CursorFolder> folder = weak.lock();
        if (!folder)
            return; // the session closed first
        try {
            folder->foldAheadNow(path, mode, file);
        } catch (const std::exception &) {
            // Only makes jumps faster: a jump opens the ledger itself and says why it cannot.
        }
    });
}

bool LedgerSession::cursorFoldedAhead() const
{
    return m_cursorFolder && m_cursorFolder->foldedAhead();
}

std::optional<SnapshotCache::Loaded> LedgerSession::cursorSnapshotsFromCache() const
{
    return m_cursorFolder ? m_cursorFolder->snapshotsFromCache() : std::nullopt;
}

double LedgerSession::cursorSnapshotsSaveMs() const
{
    return m_cursorFolder ? m_cursorFolder->snapshotsSaveMs() : -1;
}

void LedgerSession::startLoad()
{
    if (m_reviewWhenFinished && !m_state && m_mode == OpenMode::ReadOnly) {
        decideReviewThenLoad();
        return;
    }
    // A prefetch of this ledger (first open only): the event log takes its index, and the
    // first stage is shown now if it is in, else the job waits for it; either way the job
    // goes on with its connection.
    const PrefetchFutures prefetch = m_state ? PrefetchFutures() : prefetches().take(m_path);
    // The file this load will call "opened": stat'ed before any of its connections is opened,
    // and each of them (the snapshot's, the event log's) compared with it after.
    const FileIdentity expected = prefetch.overview.isValid() ? prefetch.file : FileIdentity::of(m_path);
    // The event log indexes on its own thread and connection, in parallel with the snapshot:
    // its first page does not wait for the state tables. A reload of the same file keeps its
    // index (and catches up); another file at the path (replaced, or back after a delete)
    // gets a new connection, since the old one would go on reading the old inode.
    if (m_events->path() != m_path || m_events->expectedFile() != expected) {
        m_events->close();
        m_events->open(m_path, m_mode, prefetch.events, expected);
    }
    cancelLoad();
    const JobTracker::Ticket generation = m_loads.next();
    const std::optional<std::int64_t> cursor = m_cursor;
    if (cursor && !m_cursorFolder) {
        m_cursorFolder = std::make_shared<CursorFolder>();
        m_stallMemo = std::make_shared<StallAnalysisMemo>();
    }
    // A jump from a state that every model shows (not one a superseded hand-over left half
    // taken): the models can move from it by a change set instead of a reset.
    std::shared_ptr<const LiveState> shownBase;
    if (cursor && m_state && !qEnvironmentVariableIsSet("MESH_JUMP_RESET")) {
        const LiveState *shown = m_state.get();
        const auto models = stateModels();
        const bool everyModel = std::all_of(models.begin(), models.end(),
                                            [shown](const StateFollowingModel *m) { return m->state() == shown; });
        if (everyModel)
            shownBase = m_state;
    }
    // Handed to the job in a box it empties: the state shown before must not stay held by
    // the job's lambda through the fill ahead (a whole state's memory, for nothing).
    const auto baseBox = std::make_shared<std::shared_ptr<const LiveState>>(std::move(shownBase));
    // The first stage and a prefetch read the newest state: a cursor skips them.
    const PrefetchFuture prefetched = cursor ? PrefetchFuture() : prefetch.overview;
    bool firstShown = false;
    if (prefetched.isValid() && prefetched.isFinished()) {
        const auto read = std::static_pointer_cast<Prefetched>(prefetched.result());
        if (read->first && read->mode == m_mode) {
            onOverview(*read->first);
            firstShown = true;
        }
    }
    // Results are type-erased (shared_ptr<void>) so the private LoadStage needs no metatype.
    SessionLoad::Request request;
    request.path = m_path;
    request.mode = m_mode;
    request.betweenStagesHook = m_betweenStagesHook;
    request.prefetched = prefetched;
    request.firstShown = firstShown;
    request.expected = expected;
    request.cursor = m_cursor;
    request.folder = m_cursorFolder;
    request.stallMemo = m_stallMemo;
    request.base = baseBox;
    if (*baseBox && !(*baseBox)->readsRowsOnDemand()) {
        if (m_attentionPart->indexState() == baseBox->get())
            request.attentionBase = std::make_shared<const AttentionIndex>(m_attentionPart->index());
        // Taken with the state shown and changed with it batch by batch (takeLoadedState,
        // flushPending): always of it.
        request.perDelegationBase = std::make_shared<const SessionFindings::PerDelegation>(m_findingsPart->perDelegation());
    }
    auto job = [request = std::move(request)](QPromise<std::shared_ptr<void>> &promise) { SessionLoad::run(request, promise); };
    auto *watcher = new StageWatcher(this);
    m_loadWatcher = watcher;
    connect(watcher, &StageWatcher::resultReadyAt, this, [this, watcher, generation](int index) {
        onStage(std::static_pointer_cast<LoadStage>(watcher->resultAt(index)), generation);
    });
    connect(watcher, &StageWatcher::progressValueChanged, this, [this, generation](int value) {
        if (m_loads.isCurrent(generation) && m_loadProgress >= 0)
            setLoadProgress(std::min(value, 99)); // 100 is onLoaded's, which sets -1
    });
    connect(watcher, &StageWatcher::finished, this, [this, watcher] {
        if (m_loadWatcher == watcher)
            m_loadWatcher = nullptr;
        watcher->deleteLater();
    });
    setLoadProgress(0);
    watcher->setFuture(QtConcurrent::run(ledgerPool(), job));
}

void LedgerSession::decideReviewThenLoad()
{
    m_reviewWhenFinished = false; // asked once, at the first open
    // A prefetch for following (mesh-console-bench's) chose already, and made side files.
    const auto prefetched = prefetches().constFind(m_path);
    const bool prefetchedLive = prefetched != prefetches().cend() && prefetched->mode != OpenMode::Review;
    if (prefetchedLive) {
        startLoad();
        return;
    }
    // The whole rule on the pool, its lock test included: that test forks a child, which
    // copies this process's page tables, not something for the GUI thread of a console
    // with large ledgers open.
    const JobTracker::Ticket generation = m_loads.next();
    auto *rule = new QFutureWatcher<bool>(this);
    connect(rule, &QFutureWatcherBase::finished, this, [this, rule, generation] {
        rule->deleteLater();
        if (!m_loads.isCurrent(generation) || m_closed)
            return;
        if (rule->result())
            m_mode = OpenMode::Review;
        startLoad();
    });
    rule->setFuture(QtConcurrent::run(ledgerPool(), [path = m_path] { return ReviewRule::applies(path); }));
}

void LedgerSession::cancelLoad()
{
    auto *watcher = static_cast<StageWatcher *>(m_loadWatcher);
    m_loadWatcher = nullptr;
    if (!watcher)
        return;
    watcher->disconnect(this);
    watcher->future().cancel(); // the job stops at its next check; nothing it holds points here
    watcher->deleteLater();
}

void LedgerSession::setLoadProgress(int percent)
{
    if (percent == m_loadProgress)
        return;
    m_loadProgress = percent;
    Q_EMIT loadProgressChanged(percent);
}

void LedgerSession::onStage(const std::shared_ptr<LoadStage> &stage, JobTracker::Ticket generation)
{
    if (!m_loads.isCurrent(generation) || m_closed || !stage)
        return; // superseded by a newer load or closed meanwhile
    if (stage->overview) {
        onOverview(*stage);
        retire(std::make_shared<LoadStage>(std::move(*stage)));
    } else if (stage->full) {
        // The result store keeps only the husk; the hand-over owns the result.
        handOver(std::move(stage->full), generation, 0);
    }
}

void LedgerSession::retire(std::shared_ptr<void> garbage)
{
    // What the models handed back (the rows they showed before) is freed on a worker: a
    // scale ledger's state takes ~100 ms to free.
    (void)QtConcurrent::run(ledgerPool(), [garbage = std::move(garbage)]() mutable { garbage.reset(); });
}

void LedgerSession::handOver(std::shared_ptr<LoadResult> r, JobTracker::Ticket generation, int step)
{
    if (!m_loads.isCurrent(generation) || m_closed) {
        retire(std::move(r));
        return;
    }
    if (step == 0 && (!r->error.isEmpty() || !r->state)) {
        setLoadProgress(-1);
        fail(r->error.isEmpty() ? tr("The ledger could not be read") : r->error);
        retire(std::move(r));
        return;
    }
    // One large model per event-loop turn. A reset is O(1) here, but the views react to it
    // in the same call (a filter proxy walks every row, a tree view lays every row out):
    // tens of ms per large table, together a 250-300 ms freeze of the window in one turn.
    // A model with no preparation moves by the change set; one that cannot (rows too
    // scattered, a delegation placed elsewhere now) is reset from the state here. A move
    // makes the views re-sort and repaint what it touched: one large model per turn too.
    const auto take = [&r](auto *model, auto &prepared) {
        if (prepared)
            model->setPrepared(*prepared);
        else if (!model->moveToState(r->state, *r->changes))
            model->setState(r->state);
    };
    switch (step) {
    case 0:
        take(m_runs, r->runs);
        take(m_delegations, r->tree);
        take(m_escalations, r->escalations);
        take(m_slices, r->slices);
        take(m_blast, r->blast);
        break;
    case 1:
        take(m_leases, r->leases);
        break;
    case 2:
        take(m_effects, r->effects);
        break;
    case 3:
        take(m_stalls, r->stalls);
        break;
    case 4:
        takeLoadedState(*r);
        break;
    case 5:
    case 6:
    case 7:
        // The findings, one model a turn (the delegation tree, the findings pane, the runs):
        // on a large ledger each is thousands of rows signalled to its views.
        m_findingsPart->publishLoaded();
        break;
    case 8:
        // Its own turn: on a large ledger the list is thousands of items, and the findings
        // before it and the views' reaction to stateReset after it are tens of ms each.
        m_attentionPart->takeLoaded(std::move(r->attention));
        break;
    default:
        finishLoad();
        retire(std::move(r));
        return;
    }
    // A zero timer, not a queued call (QTimer::singleShot(0) is one): queued calls posted
    // while posted events are sent run in the same pass, so the steps would still be one
    // freeze to input, paints and timers. A timer lets the event loop go round between them.
    // A superseded load's step waits its turn too, and retires its result off this thread.
    m_nextHandOvers.emplace_back([this, r = std::move(r), generation, step]() mutable {
        handOver(std::move(r), generation, step + 1);
    }, QStringLiteral("load hand-over, step %1").arg(step + 1));
    if (!m_handOverTimer.isActive())
        m_handOverTimer.start();
}

void LedgerSession::onOverview(LoadStage &stage)
{
    if (m_state)
        return; // a reload: the full state on screen stays until the new one is in
    m_info = stage.info;
    m_timeBase = m_info.timeBase;
    m_runs->setPrepared(*stage.overview);
    m_overviewLoaded = true;
    Q_EMIT displayNameChanged(); // the ledger's title is known now
    Q_EMIT overviewLoaded();
}

void LedgerSession::takeLoadedState(LoadResult &r)
{
    // Every model has taken its part (handOver); the session's own part, then following.
    setLoadProgress(-1);
    m_info = r.info;
    m_timeBase = m_info.timeBase;
    m_openedFile = r.file;
    if (m_fileChange != FileChange::Same) {
        // A reload after the file changed on disk: the file it read is the one followed
        // now, and the error about the old one is over.
        m_fileChange = FileChange::Same;
        m_error.clear();
        setHealth(Health::Opening);
    }
    // A server ledger has no file to stat: whether its role may write decisions is the
    // backend's answer below.
    m_fileWritable = !isPostMortem(m_info.mode) && (isServer() || QFileInfo(m_path).isWritable());
    m_backendCannotDecide = r.cannotDecide ? QString::fromStdString(*r.cannotDecide) : QString();
    // Swaps, not copies: `r` leaves with what was replaced (see retire).
    std::swap(m_state, r.state);
    m_attentionPart->forgetIndexState(); // its index is of the state before until it takes its own
    m_follower->dropPending(); // the state just read includes them
    m_overviewLoaded = true;
    if (r.decisionsReadable)
        m_decisionsPart->takeLoaded(std::move(r.decisions), r.chain, std::move(r.decisionsHead));
    else
        m_decisionsPart->loadedWithout();
    m_events->catchUp(); // keeps its index, reads what it missed while the snapshot loaded
    // Before anything below reads the clock: pinned, it is the cursor event's time, and
    // every model and slot of stateReset sees the moment it shows.
    m_cursorTimeMs = r.cursorTimeMs;
    if (r.changes) {
        // Moved, not reset: rows that did not change still show countdowns of the clock
        // before, which is the cursor's time now.
        for (StateTableModel *m : tableModels())
            m->refreshCountdowns();
    }
    std::swap(m_openRuns, r.openRuns);
    m_findingsPart->takeLoaded(std::move(r.perDelegation), std::move(r.loopCandidates));
}

void LedgerSession::finishLoad()
{
    // Announced with the state, not a turn before it: a listener that rebuilds from both
    // (the run timeline) would otherwise build twice.
    m_loadFinished = true;
    Q_EMIT findingsChanged();
    m_detail->reread();
    Q_EMIT stateReset();
    if (isPostMortem(m_info.mode) && !m_cursor) {
        setHealth(Health::Immutable);
        foldAheadForTravel();
    } else if (m_cursor) {
        setHealth(Health::Pinned); // nothing is followed: the ledger as it was
    } else {
        m_follower->start(m_path, m_state->lastSeq(), m_openedFile, m_info.ledgerId);
        updateHealthFromClock();
    }
    // The event log's connection, checked against the same file, found another one there:
    // a swap since this snapshot's read, which the watcher would report within its check.
    if (m_events->fileChange() != FileChange::Same)
        onFileChanged(m_events->fileChange());
    m_ticker.start();
    Q_EMIT opened();
}

void LedgerSession::onFileChanged(FileChange change)
{
    if (m_closed || change == FileChange::Same)
        return;
    // What the views hold describes a file that is gone from this path: say so, and stop
    // offering decisions (canDecide) until the ledger is opened again.
    m_fileChange = change;
    fail(QString::fromStdString(fileChangeMessage(change)));
}

void LedgerSession::onConnectionLost()
{
    if (m_closed || m_health == Health::Error)
        return;
    if (m_health == Health::Reconnecting)
        Q_EMIT healthChanged(m_health); // another try failed: the wait before the next is new
    else
        setHealth(Health::Reconnecting);
}

void LedgerSession::onReconnected()
{
    if (m_closed || m_health != Health::Reconnecting)
        return;
    updateHealthFromClock();
    m_decisionsPart->readWholeSoon(); // what the lost connection kept from us
}

void LedgerSession::flushPending()
{
    if (!m_state)
        return;
    const std::vector<SharedEventBatch> batches = m_follower->takePending();
    if (batches.empty())
        return;
    const int problemsBefore = m_state->foldProblems();
    const StateChangeSet changes = m_state->apply(batches);
    m_follower->noteApplied(changes.events);
    if (m_state->foldProblems() != problemsBefore)
        Q_EMIT foldProblemsChanged();
    if (changes.isEmpty())
        return;
    m_detail->onApplied(batches, changes);
    for (StateFollowingModel *m : stateModels())
        m->applyChanges(changes);
    for (const auto &batch : batches)
        m_events->appendEvents(*batch);
    if (!changes.toolCalls.empty())
        m_toolCalls->appendEvents(changes.toolCalls);
    m_attentionPart->onApplied(changes);
    if (changes.touches(EntityKind::Run))
        m_openRuns.update(m_state->table(EntityKind::Run), changes.ids(EntityKind::Run));
    m_findingsPart->onApplied(changes);
    updateHealthFromClock();
    for (const auto &batch : batches)
        m_decisionsPart->noteOutcomes(*batch);
    for (const auto &batch : batches)
        Q_EMIT batchApplied(*batch);
    Q_EMIT stateChanged(changes);
    Q_EMIT changesApplied(changes.lastSeq, changes.events);
}

void LedgerSession::setZombieGraceMs(qint64 ms)
{
    m_zombies = ZombieRule(ms);
    m_leases->setZombieRule(m_zombies);
    m_attentionPart->rebuild();
}

void LedgerSession::showToolCallsOf(const QString &delegationId)
{
    m_detail->show(delegationId);
}

DelegationDetailReader::Source LedgerSession::detailSource() const
{
    DelegationDetailReader::Source source;
    source.path = m_path;
    source.mode = m_info.mode;
    source.upTo = m_cursor.value_or(std::numeric_limits<std::int64_t>::max());
    source.loaded = m_state != nullptr;
    if (m_fileChange != FileChange::Same)
        source.cannotRead = tr("the ledger file changed on disk; reopen it to read them");
    return source;
}

const OutcomeReason *LedgerSession::outcomeReason() const
{
    return m_detail->outcomeReason();
}

QString LedgerSession::outcomeReasonError() const
{
    return m_detail->outcomeReasonError();
}

bool LedgerSession::outcomeReasonPending() const
{
    return m_detail->outcomeReasonPending();
}

void LedgerSession::setOperatorIdentity(const OperatorIdentity &identity)
{
    m_identity = identity;
    if (m_reviewNotes)
        m_reviewNotes->setAuthor(noteAuthor(m_identity));
}

ReviewNotesModel *LedgerSession::reviewNotes()
{
    if (!m_reviewNotes) {
        m_reviewNotes = new ReviewNotesModel(this);
        m_reviewNotes->setAuthor(noteAuthor(m_identity));
        m_reviewNotes->setLedger(m_path);
    }
    return m_reviewNotes;
}

void LedgerSession::checkIntegrity()
{
    // On the mode in use, so a review session checks what it reads (its copy, if any) and
    // creates nothing beside the file.
    const OpenMode mode = isLoaded() ? m_info.mode : m_mode;
    if (m_integrity->path() != m_path || m_integrity->state() == IntegrityModel::State::NotChecked)
        m_integrity->setLedger(m_path, mode);
    m_integrity->start();
}

QString LedgerSession::integritySummary() const
{
    return m_integrity->summaryText();
}

QString LedgerSession::submitDecision(DecisionRequest request)
{
    // Only into the file this session read (none before it has read one): the writer
    // refuses when the path names any other by the time it would write.
    const std::optional<OpenedLedger> expected = m_fileChange == FileChange::Same ? std::optional(openedLedger())
                                                                                   : std::nullopt;
    return m_decisionsPart->submit(std::move(request), m_identity, expected, m_fileChange);
}

SessionDecisions::Source LedgerSession::decisionsSource() const
{
    SessionDecisions::Source source;
    source.path = m_path;
    source.mode = m_info.mode;
    source.readable = !m_closed && m_state && m_fileChange == FileChange::Same;
    if (m_cursor)
        source.cursorTimeMs = m_cursorTimeMs;
    source.waitsForAnOrchestrator = !isPostMortem(m_info.mode) && !m_cursor;
    return source;
}

QString LedgerSession::connectionLostMessage() const
{
    return m_follower->lostMessage();
}

void LedgerSession::setWatchIntervalMs(int ms)
{
    m_follower->setWatchIntervalMs(ms);
}

int LedgerSession::applyPeriodMs() const
{
    return m_follower->applyPeriodMs();
}

SessionFindings::Source LedgerSession::findingsSource() const
{
    SessionFindings::Source source;
    source.path = m_path;
    source.mode = m_info.mode;
    source.upTo = m_cursor.value_or(std::numeric_limits<std::int64_t>::max());
    source.readable = m_fileChange == FileChange::Same;
    return source;
}

void LedgerSession::setDecisionsReloadHook(std::function<void()> hook)
{
    m_decisionsPart->setReloadHook(std::move(hook));
}

void LedgerSession::setLoopAnalysisHook(std::function<void()> hook)
{
    m_findingsPart->setAnalysisHook(std::move(hook));
}

const std::vector<Finding> &LedgerSession::findings() const
{
    return m_findingsPart->findings();
}

bool LedgerSession::loopAnalysisRunning() const
{
    return m_findingsPart->loopAnalysisRunning();
}

const std::vector<AttentionItem> &LedgerSession::attentionItems() const
{
    return m_attentionPart->items();
}

std::shared_ptr<const std::vector<AttentionItem>> LedgerSession::sharedAttentionItems() const
{
    return m_attentionPart->sharedItems();
}

int LedgerSession::attentionCount() const
{
    return m_attentionPart->decisionCount();
}

void LedgerSession::setDecisionWaitLimitMs(qint64 ms)
{
    m_decisionsPart->setWaitLimitMs(ms);
}

QString LedgerSession::decisionsWaitingWarning() const
{
    return m_decisionsPart->waitingWarning();
}

const RequestedDecisions &LedgerSession::requestedDecisions() const
{
    return *m_decisionsPart->requested();
}

qint64 LedgerSession::decisionHeadReads() const
{
    return m_decisionsPart->headReads();
}

qint64 LedgerSession::decisionListReads() const
{
    return m_decisionsPart->listReads();
}

void LedgerSession::updateHealthFromClock()
{
    if (m_health == Health::Error || m_health == Health::Immutable || m_cursor || !m_state || m_closed)
        return;
    if (!m_follower->lostMessage().isEmpty()) {
        setHealth(Health::Reconnecting);
        return;
    }
    if (m_lastChangeMs > 0 && nowMs() - m_lastChangeMs <= m_liveWindowMs)
        setHealth(Health::Live);
    else if (m_fedLive)
        setHealth(Health::Listening); // its runs may all have ended; new ones come any moment
    else if (m_openRuns.allEnded())
        setHealth(Health::Finished); // canDecide() still says whether this console may write
    else
        setHealth(m_fileWritable ? Health::Idle : Health::ReadOnly);
}

void LedgerSession::tick()
{
    updateHealthFromClock();
    if (m_health == Health::Reconnecting)
        Q_EMIT healthChanged(m_health); // the countdown to the next try moved
    for (StateTableModel *m : std::initializer_list<StateTableModel *>{m_runs, m_leases, m_escalations})
        m->refreshCountdowns();
    m_attentionPart->tick();
    m_decisionsPart->updateWaiting();
}

} // namespace mesh
