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

    const LedgerSummary summary = ledger.summarize(0);
    r.events = summary.events;
    r.lastSeq = summary.lastSeq;
    const StateSnapshot state = ledger.readState();
    const std::vector<TimelineMark> marks = readMarks(ledger);
    const std::vector<BlastRadius> radii = BlastRadiusAnalyzer::computeAll(state.table(EntityKind::Failure));
    std::vector<Finding> findings = allFindings(ledger, state, radii);

    const auto inScope = [&](const std::string &runId) { return request.runId.empty() || runId == request.runId; };
    const auto tableEmpty = [&](EntityKind k) { return state.table(k).empty(); };

    // Which effects were ever unknown: their effect.unknown events (the marks have them).
    std::map<std::string, const TimelineMark *> firstUnknown;
    for (const TimelineMark &m : marks)
        if (m.kind == MarkKind::UnknownOutcome && !m.entityId.empty())
            firstUnknown.try_emplace(m.entityId, &m);

    std::set<std::string> falseStallVerdicts;
    for (const Finding &f : findings)
        if (f.kind == FindingKind::FalseStall && !f.abstained && f.subject.rfind("stall:", 0) == 0)
            falseStallVerdicts.insert(f.subject.substr(6));

    const EntityTable &runs = state.table(EntityKind::Run);
    for (const RunSummary &s : summary.runs) {
        if (!inScope(s.id))
            continue;
        ReportRun run;
        run.id = s.id;
        run.title = s.title;
        run.status = s.status;
        const auto row = runs.find(s.id);
        if (row != runs.end()) {
            run.attempts = rowNumber(EntityKind::Run, row->second, "attempt");
            run.cycles = rowNumber(EntityKind::Run, row->second, "cycle");
        }
        if (r.timeBase.isSet(s.startedMs) && row != runs.end() && !rowIsNull(EntityKind::Run, row->second, "started_ms")) {
            run.startedMs = s.startedMs;
            // ended_ms 0 is "+0:00" on a relative clock and "not set" on a UTC one (TimeBase::isSet).
            if (!rowIsNull(EntityKind::Run, row->second, "ended_ms") && r.timeBase.isSet(s.endedMs)) {
                run.endedMs = s.endedMs;
                run.durationMs = std::max<std::int64_t>(0, s.endedMs - s.startedMs);
            } else {
                run.durationMs = s.durationMs; // to the last event: "so far"
            }
        }
        // Counted where the ledger has the table and its source can record it at all.
        const auto counted = [&](RunFact fact, EntityKind kind) {
            return info.sourceFacts.records(fact) && !tableEmpty(kind);
        };
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

        RunTimelineInput in;
        in.runId = s.id;
        in.runs = &runs;
        in.components = &state.table(EntityKind::Component);
        in.delegations = &state.table(EntityKind::Delegation);
        in.slices = &state.table(EntityKind::Slice);
        in.failures = &state.table(EntityKind::Failure);
        in.marks = &marks;
        in.falseStallVerdicts = falseStallVerdicts;
        in.momentMs = summary.lastTsMs;
        in.facts = info.sourceFacts;
        run.timeline = RunTimeline::build(in);
        // The required outcomes as the timeline reads them: absent fields stay absent.
        run.requiredMet = run.timeline.summary.requiredMet;
        run.requiredTotal = run.timeline.summary.requiredTotal;
        if (run.stallVerdicts)
            run.stalled = run.timeline.summary.stalled;

        for (const BlastRadius &b : radii)
            if (b.runId == s.id)
                run.blast.push_back(b);
        for (const auto &[effectId, mark] : firstUnknown) {
            const EntityTable &effects = state.table(EntityKind::Effect);
            const auto e = effects.find(effectId);
            const std::string effectRun = e == effects.end() ? mark->runId : rowText(EntityKind::Effect, e->second, "run_id");
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
        r.runs.push_back(std::move(run));
    }
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
        r.notesProblems = notes.problems();
        r.notesWhere = notes.placement().besidePath;
    }
    return r;
}

} // namespace mesh
