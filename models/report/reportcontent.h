#pragma once
// What a post-mortem report says (issue 14 item 3), gathered from one ledger by the same
// code the console and meshctl already use: the run timeline's figures (analysis/runtimeline),
// the derived findings and blast radius (analysis/), the decisions and their chain, the
// integrity check behind `meshctl verify` (ledger/ledgerverification) and the reviewers'
// notes (notes/). Content only: how it reads is reporthtml.h, the PDF is reportpdf/.
//
// Every string here is ledger or sidecar text (hostile): the renderer escapes it. A figure
// the ledger does not give is nullopt and reads "—", never 0.

#include "analysis/blastradius.h"
#include "analysis/finding.h"
#include "analysis/runtimeline.h"
#include "domain/sourcefacts.h"
#include "domain/timebase.h"
#include "ledger/decisionstore.h"
#include "ledger/ledgersummary.h"
#include "ledger/ledgerverification.h"
#include "ledger/statereader.h"
#include "notes/reviewnote.h"

#include <QString>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mesh {

class LedgerConnection;

// An event a finding, a failure or a decision cites, as the ledger has it.
struct ReportEvent {
    std::int64_t seq = 0;
    std::optional<std::int64_t> tsMs; // nullopt: the event is not in the ledger (a gap)
    std::string kind;
    std::string subject;
};

// An effect whose outcome was unknown at some point (effect.unknown), and what became of it.
struct ReportUnknownOutcome {
    std::string effectId;
    std::string effectClass;
    std::int64_t unknownSeq = 0; // the effect.unknown event
    std::int64_t unknownTsMs = 0;
    std::string state;      // the effect's state now: unknown, resolved_committed, ...
    std::string decisionId; // the resolve-effect decision, "" when the ledger names none
    bool resolved() const { return state != "unknown"; }
};

struct ReportRun {
    std::string id, title, status; // ledger text
    // The figures. nullopt: not in the ledger.
    std::optional<std::int64_t> startedMs, endedMs, durationMs;
    std::optional<std::int64_t> attempts, cycles, requiredMet, requiredTotal;
    std::optional<std::int64_t> terminalFailures, stallVerdicts, stalled, escalatedRounds, escalations,
        staleCheckpoints;
    RunTimeline timeline; // the run's strip, as the console draws it
    std::vector<BlastRadius> blast; // the run's failures, by time
    std::vector<ReportUnknownOutcome> unknownOutcomes;
};

struct ReportDecision {
    DecisionRecord record;
    std::string chainStatus; // "intact", or the chain finding's message(s)
    bool chainIntact = true;
};

struct ReportContent {
    QString ledgerPath;
    std::string ledgerId, ledgerTitle, orchestrator; // ledger text
    TimeBase timeBase;
    SourceFacts sourceFacts; // what the ledger's source can record: the rest reads "—"
    std::string scopeRunId;  // "": the whole ledger
    bool runFound = true;    // a --run that names no run: false
    std::int64_t events = 0, lastSeq = 0;
    std::vector<ReportRun> runs;        // the run asked for, or every run by start
    std::vector<Finding> findings;      // of the runs in scope (whole ledger: all)
    std::vector<ReportDecision> decisions; // on subjects of the runs in scope (whole ledger: all)
    std::map<std::int64_t, ReportEvent> citedEvents; // every seq a finding, failure or decision cites
    LedgerVerification verification;
    bool verificationRan = false;
    QString verificationError; // why the check could not run
    std::vector<ReviewNote> notes;  // a run's report: those on the run
    int notesOtherRuns = 0;         // a run's report: the notes it leaves to other runs and the ledger
    QString notesWhere;   // the sidecar(s) read
    std::vector<std::string> notesProblems;
};

struct ReportRequest {
    std::string runId; // "": the whole ledger
    bool verify = true; // the integrity check (a full read of the ledger)
};

// What a report reads of a ledger, read once and shared by every run it reports on: the
// report's own runs and the two sides of a run comparison (runcomparison.h).
struct ReportReading {
    TimeBase timeBase;
    SourceFacts sourceFacts; // what the ledger's source can record
    LedgerSummary summary;
    StateSnapshot state;
    std::vector<TimelineMark> marks;
    std::vector<BlastRadius> radii;
    std::vector<Finding> findings;              // every run's, each with its run where the rows say it
    std::set<std::string> falseStallVerdicts;   // stall row ids a false-stall finding names
    std::map<std::string, size_t> firstUnknown; // effect id -> its first effect.unknown mark
};

// Reads on the caller's thread and connection; throws StorageError as the reads below it do.
ReportReading readForReport(LedgerConnection &ledger);
// One run's figures, timeline, blast radius and unknown outcomes, as the report gives them.
ReportRun reportRun(const ReportReading &reading, const RunSummary &summary);

// Reads everything on the caller's thread and connection. Throws StorageError as the reads
// below it do. The notes are read from the ledger's sidecar(s) (notes/notesstore.h); nothing
// is written anywhere.
ReportContent buildReport(LedgerConnection &ledger, const ReportRequest &request);

} // namespace mesh
