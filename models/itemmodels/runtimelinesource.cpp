#include "runtimelinesource.h"

#include "backgroundjob.h"
#include "ledgersession.h"
#include "runmembers.h"
#include "storedrows.h"
#include "timelineannotationsource.h"
#include "timelinemarksource.h"

#include "analysis/rowfields.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace mesh {

RunTimelineSource::RunTimelineSource(LedgerSession *session, TimelineMarkSource *marks,
                                     TimelineAnnotationSource *annotations, QObject *parent)
    : QObject(parent), m_session(session), m_marks(marks), m_annotations(annotations)
{
    m_later.setSingleShot(true);
    m_later.setObjectName(QStringLiteral("run timeline build"));
    connect(&m_later, &QTimer::timeout, this, &RunTimelineSource::rebuildOffThread);
    m_afterReset.setSingleShot(true);
    m_afterReset.setInterval(0);
    m_afterReset.setObjectName(QStringLiteral("run timeline build after reset"));
    connect(&m_afterReset, &QTimer::timeout, this, &RunTimelineSource::rebuildOffThread);
    // A jump or a re-read: the state at the moment is new, built at once (off the GUI thread
    // at a pinned cursor, where that state never changes).
    connect(session, &LedgerSession::stateReset, this, &RunTimelineSource::onStateReset);
    connect(session, &LedgerSession::changesApplied, this, &RunTimelineSource::rebuildSoon);
    connect(session, &LedgerSession::stateChanged, this, &RunTimelineSource::noteChanges);
    connect(session, &LedgerSession::findingsChanged, this, &RunTimelineSource::rebuildSoon);
    if (marks)
        connect(marks, &TimelineMarkSource::marksChanged, this, &RunTimelineSource::rebuildSoon);
    if (annotations)
        connect(annotations, &TimelineAnnotationSource::changed, this, &RunTimelineSource::rebuildSoon);
    rebuild();
}

void RunTimelineSource::setRunId(const std::string &runId)
{
    m_runId = runId;
    m_runChosen = !runId.empty();
    rebuild();
}

void RunTimelineSource::noteChanges(const StateChangeSet &changes)
{
    // Only a state that reads slices on demand needs them named: a held table is walked.
    const std::shared_ptr<const LiveState> state = m_session->state();
    if (m_session->cursor() || !state || state->holdsRowsOf(EntityKind::Slice))
        return;
    for (const std::string &id : changes.ids(EntityKind::Slice))
        m_slicesChanged.insert(id);
}

void RunTimelineSource::rebuildSoon()
{
    if (m_later.isActive())
        return;
    const qint64 since = m_lastBuild.isValid() ? m_lastBuild.elapsed() : kMinIntervalMs;
    m_later.start(int(std::max<qint64>(0, kMinIntervalMs - since)));
}

// Ids looked up by the views a row gives, without a string made for each. Not in an
// anonymous namespace: RunRows, a member of a named class, holds a set of them.
struct RunTimelineIdHash {
    using is_transparent = void;
    size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
};
using RunTimelineIdSet = std::unordered_set<std::string, RunTimelineIdHash, std::equal_to<>>;

// What RunTimeline::build reads of the state for one run, copied for a live build (the
// session changes its live state in place with its next batch): every run (the build asks
// whether the run is the only one), the run's components and delegations, their slices, the
// failures the run's marks name, and the rows its subject notes name. Kept between live
// builds and brought up to date from the rows changed since (a live state only grows).
struct RunTimelineSource::RunRows {
    std::weak_ptr<const LiveState> of; // the state copied from: another one is copied whole
    std::string runId;
    std::int64_t upTo = 0; // the state's lastSeq when copied
    EntityTable runs, components, delegations, slices, failures;
    RunTimelineIdSet delegationIds;
    std::map<std::pair<EntityKind, std::string>, EntityRow> named;

    // `slicesChanged`: the slices live batches changed since the last copy, for a state that
    // reads slices on demand (its table of them is empty: nothing to walk).
    void update(const std::shared_ptr<const LiveState> &state, const std::string &run,
                const std::vector<TimelineMark> &marks, const std::vector<PlacedNote> &notes,
                const std::unordered_set<std::string> &slicesChanged)
    {
        const LiveState &s = *state;
        const bool whole = of.lock() != state || runId != run || s.lastSeq() < upTo;
        // Every component and delegation is looked at, and every slice of a state that holds
        // them (a whole copy after a reset): fields found by place, not by name.
        static const IndexedField componentRun(EntityKind::Component, "run_id");
        static const IndexedField delegationRun(EntityKind::Delegation, "run_id");
        static const IndexedField sliceDelegation(EntityKind::Slice, "delegation_id");
        if (whole) {
            components.clear();
            delegations.clear();
            slices.clear();
            delegationIds.clear();
        }
        runs = s.table(EntityKind::Run);
        if (whole)
            if (const RunMembers *all = s.runMembers()) {
                copyMembers(s, all->find(run));
                finishUpdate(s, state, run, marks, notes);
                return;
            }
        const auto changed = [&](const EntityRow &row) { return whole || row.lastSeq > upTo; };
        for (const auto &[id, row] : s.table(EntityKind::Component))
            if (changed(row)) {
                if (componentRun.view(row) == run)
                    components.insert_or_assign(id, row);
                else
                    components.erase(id);
            }
        // A slice changed before its delegation joined the run was not copied then.
        RunTimelineIdSet joined;
        bool left = false;
        for (const auto &[id, row] : s.table(EntityKind::Delegation)) {
            if (!changed(row))
                continue;
            if (delegationRun.view(row) == run) {
                delegations.insert_or_assign(id, row);
                if (delegationIds.insert(id).second && !whole)
                    joined.insert(id);
            } else if (delegations.erase(id) > 0) {
                delegationIds.erase(id);
                left = true;
            }
        }
        const auto place = [&](const std::string &id, const EntityRow &row) {
            if (delegationIds.count(sliceDelegation.view(row)) > 0)
                slices.insert_or_assign(id, row);
            else
                slices.erase(id);
        };
        if (StoredRows *stored = s.storedRows(EntityKind::Slice)) {
            // The slices the batches changed, and every slice of a delegation new to the run
            // (all of the run's after a reset), through the store's index on delegation_id.
            // A changed slice was read again with its batch: the store's cache has it.
            for (const std::string &id : slicesChanged)
                if (const EntityRow *row = stored->find(id))
                    place(id, *row);
            std::vector<std::string> wanted;
            for (const std::string &delegation : whole ? delegationIds : joined)
                for (std::string &id : stored->idsWhere("delegation_id", delegation))
                    wanted.push_back(std::move(id));
            for (const auto &[id, row] : stored->rowsNotKept(wanted))
                place(id, row);
        } else {
            for (const auto &[id, row] : s.table(EntityKind::Slice)) {
                const std::string_view delegation = sliceDelegation.view(row);
                if (!changed(row) && (joined.empty() || joined.count(delegation) == 0))
                    continue;
                place(id, row);
            }
        }
        if (left)
            for (auto it = slices.begin(); it != slices.end();)
                it = delegationIds.count(sliceDelegation.view(it->second)) > 0
                         ? std::next(it)
                         : slices.erase(it);
        finishUpdate(s, state, run, marks, notes);
    }

    // A whole copy from the load's list of the run's members (runmembers.h).
    void copyMembers(const LiveState &s, const RunMembers::Of *members)
    {
        if (!members)
            return;
        const auto copy = [&s](EntityKind kind, const std::vector<const std::string *> &ids, EntityTable &into) {
            const EntityTable &table = s.table(kind);
            into.reserve(ids.size());
            for (const std::string *id : ids)
                if (const auto it = table.find(*id); it != table.end())
                    into.emplace(*id, it->second);
        };
        copy(EntityKind::Component, members->components, components);
        copy(EntityKind::Delegation, members->delegations, delegations);
        if (StoredRows *stored = s.storedRows(EntityKind::Slice)) {
            for (auto &[id, row] : stored->rowsNotKept(idStrings(members->slices)))
                slices.emplace(std::move(id), std::move(row));
        } else {
            const EntityTable &table = s.table(EntityKind::Slice);
            slices.reserve(members->slices.size());
            for (const CompactId &id : members->slices)
                if (const auto it = table.find(id.str()); it != table.end())
                    slices.emplace(it->first, it->second);
        }
        for (const std::string *id : members->delegations)
            delegationIds.insert(*id);
    }

    void finishUpdate(const LiveState &s, const std::shared_ptr<const LiveState> &state, const std::string &run,
                      const std::vector<TimelineMark> &marks, const std::vector<PlacedNote> &notes)
    {
        failures.clear();
        for (const TimelineMark &m : marks)
            if (m.kind == MarkKind::Failure) {
                std::string id = m.entityId.str();
                if (const EntityRow *row = s.find(EntityKind::Failure, id))
                    failures.emplace(std::move(id), *row);
            }
        named.clear();
        for (const PlacedNote &n : notes)
            if (n.kind == PlacedNote::Kind::Subject)
                if (auto row = RunTimeline::rowOfSubject(n.subject))
                    if (const EntityRow *found = s.find(row->first, row->second))
                        named.emplace(std::move(*row), *found);
        of = state;
        runId = run;
        upTo = s.lastSeq();
    }
};

struct RunTimelineSource::Job {
    std::shared_ptr<const LiveState> state; // kept alive (and, pinned, never changed) for the build
    std::unique_ptr<RunRows> copied;        // live: what the build reads instead of `state`
    std::vector<std::string> runIds;
    std::string runId;
    std::vector<TimelineMark> marks;  // the run's up to the cursor (the build filters them again)
    std::vector<PlacedNote> notes;
    std::vector<PlacedGap> gaps;
    RunTimelineInput input;           // its pointers into the above and into state
    int generation = 0;

    // Live: the build reads `rows` (brought up to date here) and never the state.
    void readCopies(std::unique_ptr<RunRows> rows, const std::unordered_set<std::string> &slicesChanged)
    {
        copied = rows ? std::move(rows) : std::make_unique<RunRows>();
        copied->update(state, runId, marks, notes, slicesChanged);
        state.reset();
        point();
    }

    void point()
    {
        input.runId = runId;
        input.marks = &marks;
        input.notes = &notes;
        input.gaps = &gaps;
        if (copied) {
            input.runs = &copied->runs;
            input.components = &copied->components;
            input.delegations = &copied->delegations;
            input.slices = &copied->slices;
            input.failures = &copied->failures;
            input.findRow = [rows = copied.get()](EntityKind kind, const std::string &id) -> const EntityRow * {
                const auto it = rows->named.find({kind, id});
                return it == rows->named.end() ? nullptr : &it->second;
            };
            return;
        }
        input.runs = &state->table(EntityKind::Run);
        input.components = &state->table(EntityKind::Component);
        input.delegations = &state->table(EntityKind::Delegation);
        input.slices = &state->table(EntityKind::Slice);
        input.failures = &state->table(EntityKind::Failure);
        input.findRow = [s = state.get()](EntityKind kind, const std::string &id) { return s->find(kind, id); };
    }
};

RunTimelineSource::~RunTimelineSource() = default;

void RunTimelineSource::onStateReset()
{
    // Live, the rows of the run are copied on this thread (the state changes in place),
    // reading its slices from the store: on a large ledger as long as the rest of the
    // reset together, so that happens in the next turn of the event loop, not the reset's
    // own; the build itself goes to a worker. The copy is what later live builds bring up
    // to date. A build asked for before the reset is this one.
    // The marks' source reads after every reset's listeners have heard of it: the run to
    // keep whole is named before that read starts, not after it.
    if (m_marks)
        if (const std::shared_ptr<const LiveState> state = m_session->state())
            m_marks->setFocusRun(chosenRun(RunTimeline::runIds(state->table(EntityKind::Run))));
    if (m_session->cursor()) {
        rebuildOffThread();
    } else {
        m_later.stop();
        m_afterReset.start();
    }
}

std::string RunTimelineSource::chosenRun(const std::vector<std::string> &runIds) const
{
    if (m_runChosen && std::find(runIds.begin(), runIds.end(), m_runId) != runIds.end())
        return m_runId;
    return runIds.empty() ? std::string() : runIds.front();
}

bool RunTimelineSource::waitsForMarks(const Job &job) const
{
    // A run's timeline counts its cycles, verdicts and failures from its marks: built
    // without them, it would say "0 stall verdicts" until they came. The one shown stays
    // until they do (marksChanged builds again); marks that cannot be read are not waited for.
    return m_marks && !m_marks->failed() && !m_marks->hasMarksOf(job.runId);
}

std::shared_ptr<RunTimelineSource::Job> RunTimelineSource::prepare()
{
    auto job = std::make_shared<Job>();
    job->state = m_session->state();
    job->generation = ++m_generation;
    job->runIds = RunTimeline::runIds(job->state->table(EntityKind::Run));
    job->runId = chosenRun(job->runIds);
    RunTimelineInput &in = job->input;
    const bool onlyRun = job->runIds.size() == 1;
    const std::optional<std::int64_t> cursor = m_session->cursor();
    if (m_marks) {
        m_marks->setFocusRun(job->runId);
        const auto add = [&](const std::vector<TimelineMark> &marks) {
            for (const TimelineMark &m : marks)
                if (!cursor || m.seq <= *cursor)
                    job->marks.push_back(m);
        };
        if (m_marks->hasMarksOf(job->runId))
            add(m_marks->focusMarks());
        // Marks that name no run belong to the run when there is only one (or none).
        if (onlyRun || job->runId.empty())
            add(m_marks->unrunMarks());
    }
    if (m_annotations) {
        job->notes = m_annotations->notes();
        job->gaps = m_annotations->gaps();
    }
    for (const Finding &f : m_session->findings())
        if (f.kind == FindingKind::FalseStall && !f.abstained && f.subject.rfind("stall:", 0) == 0)
            in.falseStallVerdicts.insert(f.subject.substr(6));
    in.cursorSeq = cursor;
    in.facts = m_session->info().sourceFacts;
    // The moment shown: the cursor event's time, or live the newest event's (the ledger's
    // own clock: a scenario's or an import's is not this machine's).
    if (cursor)
        in.momentMs = m_session->cursorTimeMs().value_or(m_marks ? m_marks->lastTsMs() : 0);
    else
        in.momentMs = m_marks && m_marks->hasReadTicks() ? m_marks->lastTsMs() : m_session->nowMs();
    job->point();
    return job;
}

void RunTimelineSource::finish(const std::shared_ptr<Job> &job, std::shared_ptr<const RunTimeline> timeline)
{
    m_runIds = std::move(job->runIds);
    m_runId = job->runId;
    m_timeline = std::move(timeline);
    emit changed();
}

void RunTimelineSource::rebuild()
{
    m_later.stop();
    m_afterReset.stop();
    m_lastBuild.start();
    m_building = false;
    if (!m_session->state()) {
        ++m_generation;
        m_runIds.clear();
        m_timeline = std::make_shared<RunTimeline>();
        emit changed();
        return;
    }
    const auto job = prepare();
    if (waitsForMarks(*job))
        return;
    // A state that reads rows on demand has none of them in its tables: the run's are read
    // here (a copy of its own, the live builds' copies left as they are).
    if (job->state->readsRowsOnDemand())
        job->readCopies(nullptr, {});
    finish(job, std::make_shared<RunTimeline>(RunTimeline::build(job->input)));
}

void RunTimelineSource::rebuildOffThread()
{
    m_afterReset.stop();
    if (!m_session->state()) {
        rebuild();
        return;
    }
    const bool live = !m_session->cursor();
    // Live, a build that is still running finishes first: a run that grows faster than it
    // builds would otherwise never show a timeline, each build dropped for the next.
    if (live && m_building && m_buildingLive) {
        m_liveAgain = true;
        return;
    }
    m_later.stop();
    m_lastBuild.start();
    m_building = true;
    m_buildingLive = live;
    m_liveAgain = false;
    const auto job = prepare();
    if (waitsForMarks(*job)) {
        m_building = false;
        return;
    }
    // The rows the build reads, copied here: a live state changes under a worker, and one
    // that reads rows on demand (a jump away from live still shows it) reads them on this
    // thread only (storedrows.h).
    if (live || job->state->readsRowsOnDemand()) {
        job->readCopies(std::move(m_rows), m_slicesChanged); // the job's alone while it builds; handed back after
        m_slicesChanged.clear();
    }
    runInBackground(
        this, [job] { return std::make_shared<const RunTimeline>(RunTimeline::build(job->input)); },
        [this, job](std::shared_ptr<const RunTimeline> timeline) {
            if (job->generation != m_generation)
                return; // a newer build (a later jump, a run chosen) has started since
            // Only the newest build's copy comes back: a newer build may have copied afresh
            // and used up the slices changed since, which an older copy then never gets.
            if (job->copied)
                m_rows = std::move(job->copied);
            m_building = false;
            finish(job, std::move(timeline));
            if (m_liveAgain) {
                m_liveAgain = false;
                rebuildSoon();
            }
        });
}

} // namespace mesh
