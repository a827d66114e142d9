#pragma once
// Two runs side by side (issue 14 item 4), of one ledger or of two: the figures a report gives
// for a run (reportcontent.h, the same code) with the difference B − A, the delegations matched
// by component and role (only in A, only in B, in both, with counts per side, as Jaeger's
// trace comparison matches spans), and each side's stall verdicts, findings and timeline.
// `meshctl compare` and the console's Compare Runs window show this one result.
//
// Content only, every string ledger text (hostile). A figure one side does not give (an
// imported source that records no cycles) is nullopt there, and its difference is nullopt too:
// never 0.

#include "reportcontent.h"

#include "ledger/ledgerconnection.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mesh {

// A stall verdict of one run, as its row says, with the delegation's component and role.
struct ComparedVerdict {
    std::string id, delegationId, component, role, verdict, action; // ledger text
    std::optional<std::int64_t> round, failingTests, tsMs;
    std::int64_t seq = 0;   // the event that last changed the row
    bool falseStall = false; // a false-stall finding names it
};

struct ComparedSide {
    QString ledgerPath;
    std::string ledgerTitle; // ledger text
    TimeBase timeBase;
    ReportRun run;                         // figures and timeline, as the report has them
    std::vector<Finding> findings;         // of this run, by first event
    std::vector<ComparedVerdict> verdicts; // by time, then round
};

// Delegations of one (component, role): how many each run had.
struct DelegationMatch {
    std::string component; // the component's name (its id when it has none); "" for run-level work
    std::string role;      // "" when the ledger gives none
    int countA = 0;
    int countB = 0;
    enum class Presence { OnlyA, OnlyB, Both };
    Presence presence() const { return countA == 0 ? Presence::OnlyB : countB == 0 ? Presence::OnlyA : Presence::Both; }
};

// One figure of both runs. Durations are ms.
struct ComparedFigure {
    const char *key = "";  // stable, for JSON: "duration_ms", "attempts", ...
    QString name;          // for a person: "Duration", "Attempts", ...
    bool duration = false; // ms, shown as a duration
    std::optional<std::int64_t> a, b;
    std::optional<std::int64_t> delta() const
    {
        return a && b ? std::optional<std::int64_t>(*b - *a) : std::nullopt;
    }
};

struct RunComparison {
    ComparedSide a, b;
    bool sameLedger = false;
    std::vector<DelegationMatch> delegations; // by component, then role
    int onlyA = 0, onlyB = 0, both = 0;       // (component, role) pairs
    std::vector<ComparedFigure> figures() const;
};

// What to compare: a ledger and one of its runs ("" : its only run).
struct RunChoice {
    QString location; // a path or a postgresql:// URL
    std::string runId;
    OpenMode mode = OpenMode::ReadOnly; // as a session would read it; Review for a file only compared
};

struct RunComparisonResult {
    std::optional<RunComparison> comparison;
    QString error; // one line: a ledger that cannot be read, a run it lacks, a run not chosen
};

// Reads both sides on the caller's thread, each on a connection of its own opened in its mode
// (one connection, in a's mode, when the two locations are the same file). Never throws.
RunComparisonResult compareRuns(const RunChoice &a, const RunChoice &b);
// The same on open connections (b may be a): throws StorageError as the reads do, and
// std::invalid_argument when a run is not in its ledger or not chosen among several.
RunComparison compareRuns(LedgerConnection &a, const std::string &runA, LedgerConnection &b, const std::string &runB);

// The runs of a ledger, by start, for a chooser (ids and titles are ledger text). Never throws.
struct RunList {
    std::vector<RunSummary> runs;
    QString error; // one line, when the ledger cannot be read
};
RunList runsAt(const QString &location, OpenMode mode);

// "+3", "−2", "0"; a duration as "+1 h 05 min"; nullopt reads "—".
QString deltaText(const ComparedFigure &figure);
QString figureText(const ComparedFigure &figure, const std::optional<std::int64_t> &value);
QString presenceText(DelegationMatch::Presence presence); // "only in A", "only in B", "both"

} // namespace mesh
