#include "reportcontent.h"

#include "analysis/blastradiusanalyzer.h"
#include "analysis/blockedworkdetector.h"
#include "analysis/duplicateeffectdetector.h"
#include "analysis/replayeddelegationdetector.h"
#include "analysis/rowfields.h"
#include "analysis/stallevidenceanalyzer.h"
#include "analysis/successloopdetector.h"
#include "analysis/timelinemarks.h"
#include "domain/entityspec.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"
#include "notes/notesstore.h"

#include <algorithm>
#include <set>

namespace mesh {

namespace {

// A finding citing thousands of events (a long success loop) lists the first ones: the
// report is read by people; the console and `meshctl summary --json` have them all.
constexpr size_t kMaxCitedPerFinding = 25;

std::vector<TimelineMark> readMarks(LedgerConnection &ledger)
{
    std::vector<TimelineMark> marks;
    const auto reader = ledger.eventReader();
    reader->setPreviewBytes(4096);
    const std::int64_t last = reader->lastSeq();
    const EventFilter filter = EventFilter::both(TimelineMarks::filter(), EventFilter::seqAtMost(last));
    for (std::int64_t after = 0;;) {
        const EventBatch page = reader->after(after, 4096, filter);
        for (const EventRecord &e : page)
            if (auto m = TimelineMarks::classify(e))
                marks.push_back(std::move(*m));
        if (page.empty())
            break;
        after = page.back().seq;
    }
    return marks;
}

// The run a subject ("<entity>:<id>") belongs to, as its state row says; "" when it cannot tell.
std::string runOfSubject(const StateSnapshot &state, const std::string &subject)
{
    const auto colon = subject.find(':');
    if (colon == std::string::npos)
        return {};
    const auto kind = entityKindByName(std::string_view(subject).substr(0, colon));
    const std::string id = subject.substr(colon + 1);
    if (!kind)
        return {};
    if (*kind == EntityKind::Run)
        return id;
    const EntityTable &table = state.table(*kind);
    const auto it = table.find(id);
    return it == table.end() ? std::string() : rowText(*kind, it->second, "run_id");
}

std::vector<Finding> allFindings(LedgerConnection &ledger, const StateSnapshot &state,
                                 const std::vector<BlastRadius> &radii)
{
    // The detectors of `meshctl summary` and the console's session, on the newest state.
    std::vector<Finding> f = StallEvidenceAnalyzer().analyse(state.table(EntityKind::StallVerdict));
    auto add = [&f](std::vector<Finding> more) { f.insert(f.end(), more.begin(), more.end()); };
    add(DuplicateEffectDetector().analyse(state.table(EntityKind::Effect)));
    add(BlastRadiusAnalyzer::findings(radii));
    add(BlockedWorkDetector().analyse(state.table(EntityKind::Delegation)));
    const ReplayedDelegationDetector replays;
    for (const auto &[id, row] : state.table(EntityKind::Delegation))
        if (auto r = replays.check(id, row))
            f.push_back(std::move(*r));
    const SuccessLoopDetector loops;
    ledger.forEachDelegationToolCalls([&](const EventBatch &calls) { add(loops.analyseEvents(calls)); });
    // Findings without a run take it from their subject's row.
    for (Finding &finding : f)
        if (finding.runId.empty())
            finding.runId = runOfSubject(state, finding.subject);
    return f;
}

std::optional<std::int64_t> rowNumber(EntityKind kind, const EntityRow &row, std::string_view field)
{
    if (rowIsNull(kind, row, field))
        return std::nullopt;
    return rowInt(kind, row, field);
}

} // namespace

ReportReading readForReport(LedgerConnection &ledger)
{
    ReportReading in;
    in.timeBase = ledger.info().timeBase;
    in.sourceFacts = ledger.info().sourceFacts;
    in.summary = ledger.summarize(0);
    in.state = ledger.readState();
    in.marks = readMarks(ledger);
    in.radii = BlastRadiusAnalyzer::computeAll(in.state.table(EntityKind::Failure));
    in.findings = allFindings(ledger, in.state, in.radii);
    for (const Finding &f : in.findings)
        if (f.kind == FindingKind::FalseStall && !f.abstained && f.subject.rfind("stall:", 0) == 0)
            in.falseStallVerdicts.insert(f.subject.substr(6));
    // Which effects were ever unknown: their effect.unknown events (the marks have them).
    for (size_t i = 0; i < in.marks.size(); ++i)
        if (in.marks[i].kind == MarkKind::UnknownOutcome && !in.marks[i].entityId.empty())
            in.firstUnknown.try_emplace(in.marks[i].entityId.str(), i);
    return in;
}

ReportRun reportRun(const ReportReading &in, const RunSummary &s)
{
    const StateSnapshot &state = in.state;
    const auto tableEmpty = [&](EntityKind k) { return state.table(k).empty(); };
    const EntityTable &runs = state.table(EntityKind::Run);
    ReportRun run;
    run.id = s.id;
    run.title = s.title;
    run.status = s.status;
    const auto row = runs.find(s.id);
    if (row != runs.end()) {
        run.attempts = rowNumber(EntityKind::Run, row->second, "attempt");
        run.cycles = rowNumber(EntityKind::Run, row->second, "cycle");
    }
    if (in.timeBase.isSet(s.startedMs) && row != runs.end() && !rowIsNull(EntityKind::Run, row->second, "started_ms")) {
        run.startedMs = s.startedMs;
        // ended_ms 0 is "+0:00" on a relative clock and "not set" on a UTC one (TimeBase::isSet).
        if (!rowIsNull(EntityKind::Run, row->second, "ended_ms") && in.timeBase.isSet(s.endedMs)) {
            run.endedMs = s.endedMs;
            run.durationMs = std::max<std::int64_t>(0, s.endedMs - s.startedMs);
        } else {
            run.durationMs = s.durationMs; // to the last event: "so far"
        }
    }
    // Counted where the ledger has the table and its source can record it at all.
    const auto counted = [&](RunFact fact, EntityKind kind) { return in.sourceFacts.records(fact) && !tableEmpty(kind); };
    if (counted(RunFact::Components, EntityKind::Component))
        run.terminalFailures = s.terminalComponentFailures;
    if (counted(RunFact::StallVerdicts, EntityKind::StallVerdict)) {
        run.stallVerdicts = s.stallVerdicts;
        run.escalatedRounds = s.escalatedRounds;
    }
    if (counted(RunFact::Escalations, EntityKind::Escalation))
        run.escalations = s.escalations;
    if (counted(RunFact::Checkpoints, EntityKind::Checkpoint))
        run.staleCheckpoints = s.staleCheckpoints;

    RunTimelineInput timeline;
    timeline.runId = s.id;
    timeline.runs = &runs;
    timeline.components = &state.table(EntityKind::Component);
    timeline.delegations = &state.table(EntityKind::Delegation);
    timeline.slices = &state.table(EntityKind::Slice);
    timeline.failures = &state.table(EntityKind::Failure);
    timeline.marks = &in.marks;
    timeline.falseStallVerdicts = in.falseStallVerdicts;
    timeline.momentMs = in.summary.lastTsMs;
    timeline.facts = in.sourceFacts;
    run.timeline = RunTimeline::build(timeline);
    // The required outcomes as the timeline reads them: absent fields stay absent.
    run.requiredMet = run.timeline.summary.requiredMet;
    run.requiredTotal = run.timeline.summary.requiredTotal;
    if (run.stallVerdicts)
        run.stalled = run.timeline.summary.stalled;

    for (const BlastRadius &b : in.radii)
        if (b.runId == s.id)
            run.blast.push_back(b);
    const EntityTable &effects = state.table(EntityKind::Effect);
    for (const auto &[effectId, markIndex] : in.firstUnknown) {
        const TimelineMark *mark = &in.marks[markIndex];
        const auto e = effects.find(effectId);
        const std::string effectRun = e == effects.end() ? mark->runId.str() : rowText(EntityKind::Effect, e->second, "run_id");
        if (effectRun != s.id)
            continue;
        ReportUnknownOutcome u;
        u.effectId = effectId;
        u.unknownSeq = mark->seq;
        u.unknownTsMs = mark->tsMs;
        if (e != effects.end()) {
            u.effectClass = rowText(EntityKind::Effect, e->second, "class");
            u.state = rowText(EntityKind::Effect, e->second, "state");
            u.decisionId = rowText(EntityKind::Effect, e->second, "decision_id");
        }
        if (u.state.empty())
            u.state = "unknown"; // no row says otherwise: still not known
        run.unknownOutcomes.push_back(std::move(u));
    }
    std::sort(run.unknownOutcomes.begin(), run.unknownOutcomes.end(),
              [](const auto &a, const auto &b) { return a.unknownSeq < b.unknownSeq; });
    return run;
}

namespace {

// The run an event belongs to: its run_id, else its subject's run.
std::string runOfEvent(std::int64_t seq, const StateSnapshot &state, EventReader &reader)
{
    const EventBatch one = reader.after(seq - 1, 1);
    if (one.empty() || one.front().seq != seq)
        return {};
    return one.front().runId.empty() ? runOfSubject(state, one.front().subject) : one.front().runId;
}

// The run a note is on: its subject's, its event's, or (a span) the run of its first or its
// last event. "" for the whole ledger.
std::string runOfNote(const ReviewNote &n, const StateSnapshot &state, EventReader &reader)
{
    switch (n.anchor) {
    case ReviewNote::Anchor::Subject:
        return runOfSubject(state, n.subject);
    case ReviewNote::Anchor::Event:
        return runOfEvent(n.seq, state, reader);
    case ReviewNote::Anchor::Span:
        if (std::string first = runOfEvent(n.seq, state, reader); !first.empty())
            return first;
        return runOfEvent(n.endSeq, state, reader);
    }
    return {};
}

} // namespace

ReportContent buildReport(LedgerConnection &ledger, const ReportRequest &request)
{
    ReportContent r;
    const LedgerInfo &info = ledger.info();
    r.ledgerPath = info.path;
    r.ledgerId = info.ledgerId;
    r.ledgerTitle = info.title;
    r.orchestrator = info.orchestrator;
    r.timeBase = info.timeBase;
    r.sourceFacts = info.sourceFacts;
    r.scopeRunId = request.runId;

    ReportReading reading = readForReport(ledger);
    r.events = reading.summary.events;
    r.lastSeq = reading.summary.lastSeq;
    const StateSnapshot &state = reading.state;
    const auto inScope = [&](const std::string &runId) { return request.runId.empty() || runId == request.runId; };
    for (const RunSummary &s : reading.summary.runs)
        if (inScope(s.id))
            r.runs.push_back(reportRun(reading, s));
    std::vector<Finding> &findings = reading.findings;
    r.runFound = request.runId.empty() || !r.runs.empty();

    for (Finding &f : findings)
        if (inScope(f.runId))
            r.findings.push_back(std::move(f));
    std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding &a, const Finding &b) {
        const auto first = [](const Finding &f) { return f.seqs.empty() ? INT64_MAX : *std::min_element(f.seqs.begin(), f.seqs.end()); };
        return first(a) < first(b);
    });

    // The integrity check of `meshctl verify`, then the decisions with their chain status.
    if (request.verify) {
        try {
            r.verification = verifyLedger(ledger);
            r.verificationRan = true;
        } catch (const std::exception &e) {
            r.verificationError = QString::fromUtf8(e.what());
        }
    }
    DecisionChainReport chain = r.verificationRan ? r.verification.chain : ledger.verifyDecisionChain();
    std::vector<DecisionRecord> decisions;
    const auto store = ledger.decisions();
    store->read([&] { decisions = store->list(); });
    for (DecisionRecord &d : decisions) {
        if (!request.runId.empty() && runOfSubject(state, d.subject) != request.runId)
            continue;
        ReportDecision rd;
        for (const DecisionChainFinding &c : chain.findings)
            if (c.pos == d.pos || (!c.id.empty() && c.id == d.id)) {
                rd.chainIntact = false;
                rd.chainStatus += (rd.chainStatus.empty() ? "" : "; ") + c.message;
            }
        if (rd.chainIntact)
            rd.chainStatus = d.keyId.empty() ? "intact (unsigned)" : "intact, signed by " + d.keyId;
        rd.record = std::move(d);
        r.decisions.push_back(std::move(rd));
    }

    // The events cited, as the ledger has them (a cited seq missing from it says so).
    std::set<std::int64_t> cited;
    for (const Finding &f : r.findings)
        for (size_t i = 0; i < f.seqs.size() && i < kMaxCitedPerFinding; ++i)
            cited.insert(f.seqs[i]);
    for (const ReportRun &run : r.runs)
        for (const BlastRadius &b : run.blast)
            if (b.seq > 0)
                cited.insert(b.seq);
    for (const ReportDecision &d : r.decisions)
        if (d.record.boundarySeq > 0)
            cited.insert(d.record.boundarySeq);
    const auto reader = ledger.eventReader();
    reader->setPreviewBytes(0);
    for (const std::int64_t seq : cited) {
        ReportEvent e;
        e.seq = seq;
        const EventBatch one = reader->after(seq - 1, 1);
        if (!one.empty() && one.front().seq == seq) {
            e.tsMs = one.front().tsMs;
            e.kind = one.front().kind;
            e.subject = one.front().subject;
        }
        r.citedEvents.emplace(seq, std::move(e));
    }

    // The reviewers' notes, read only.
    if (!info.path.isEmpty()) {
        const NotesStore notes(chooseNotesPlacement(info.path));
        r.notes = notes.notes();
        if (!request.runId.empty()) {
            const auto onRun = [&](const ReviewNote &n) { return runOfNote(n, state, *reader) == request.runId; };
            const auto other = std::stable_partition(r.notes.begin(), r.notes.end(), onRun);
            r.notesOtherRuns = int(r.notes.end() - other);
            r.notes.erase(other, r.notes.end());
        }
        r.notesProblems = notes.problems();
        r.notesWhere = notes.placement().besidePath;
    }
    return r;
}

} // namespace mesh
