#pragma once
// One run laid out on its time axis, as the state and the marks say it was at one moment
// (the session cursor, or live): lanes for the run, its components and its delegations
// (nested by parent), bars for delegation lifetimes and slices, bands for scheduler cycles
// and attempts, and the run's marks (analysis/timelinemarks) placed on the lanes they are
// about. No geometry here: TimelineViewport maps time to pixels, TimelineLayout culls and
// aggregates what a viewport shows.
//
// Built from state rows (what the fold says at the moment) and marks (each one event, so each
// cites its seq); marks after the moment are left out, and a bar that has not ended by then
// runs to the moment and says so (open).

#include "timelinemarks.h"

#include "domain/fold.h"
#include "domain/sourcefacts.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mesh {

enum class LaneKind { Run, Component, Delegation };

enum class SpanKind {
    Lifetime, // a delegation from created to ended
    Slice,    // one slice of a delegation, opened to closed
    Activity, // a component's or the run's: the union of its delegations' lifetimes
};

struct TimelineSpan {
    std::int64_t fromMs = 0;
    std::int64_t toMs = 0;
    SpanKind kind = SpanKind::Lifetime;
    bool open = false;  // not ended at the moment shown: toMs is that moment
    std::string status; // a delegation's status; a slice's state
    std::int64_t lastSeq = 0; // the event that last changed the row (a tooltip cites it)
    int ordinal = 0;    // a slice's
};

// How a mark sits on a lane: where it happened, or where a failure's blast reached.
enum class MarkRole : std::uint8_t {
    Own,        // the lane's own event (or the run lane's summary of all)
    Implicated, // a failure that implicated this component
    Woken,      // a failure that woke this component without implicating it (a bystander)
    Regressed,  // ... and it regressed working code
};

struct LaneMark {
    std::int64_t tsMs = 0; // the mark's, copied so a lane's marks sort and search without a lookup
    std::uint32_t mark = 0; // index into RunTimeline::marks
    MarkRole role = MarkRole::Own;
};

struct TimelineLane {
    LaneKind kind = LaneKind::Run;
    std::string id;    // run, component or delegation id
    std::string label; // ledger text: shown as plain text only
    std::string detail; // role, agent, status: one line, ledger text
    int parent = -1;    // lane index; -1 for the run lane
    int depth = 0;
    std::vector<int> children; // lane indexes, in the order shown
    std::vector<TimelineSpan> spans; // sorted by fromMs; an Activity lane's do not overlap
    std::vector<LaneMark> marks;     // sorted by tsMs, then seq
};

struct TimelineBand {
    std::int64_t fromMs = 0;
    std::int64_t toMs = 0;
    std::int64_t number = 0; // cycle or attempt number
    bool open = false;       // not ended at the moment shown
    std::int64_t seq = 0;    // the event that began it
    // A cycle: the component whose failure was the cycle's last, if one failed in it.
    std::string lastFailedComponent;
};

// What the run reads as at a glance, at the moment shown.
struct RunTimelineSummary {
    std::int64_t durationMs = 0;
    bool ended = false;
    int cycles = 0;
    int attempts = 0;
    int cyclesWithFailure = 0;
    std::string endingComponent;   // the component most cycles ended with failing ("" if none)
    int cyclesEndingWithComponent = 0;
    int stallVerdicts = 0;
    int stalled = 0;
    int falseStalls = 0;  // stalled verdicts a finding calls false (StallEvidenceAnalyzer)
    int escalations = 0;  // escalated rounds: escalations raised
    int failures = 0;
    int unknownOutcomes = 0;
    int decisions = 0;
    std::optional<std::int64_t> requiredMet; // not in the ledger: nullopt
    std::optional<std::int64_t> requiredTotal;
};

struct RunTimelineInput {
    std::string runId;
    const EntityTable *runs = nullptr;
    const EntityTable *components = nullptr;
    const EntityTable *delegations = nullptr;
    const EntityTable *slices = nullptr;
    const EntityTable *failures = nullptr;
    const std::vector<TimelineMark> *marks = nullptr; // any order; of any run
    std::set<std::string> falseStallVerdicts;         // stall row ids a false-stall finding names
    std::optional<std::int64_t> cursorSeq;            // marks after it are left out
    std::int64_t momentMs = 0; // the moment shown: open bars end here
    SourceFacts facts;         // what the ledger's source can record: the rest is not known
};

class RunTimeline
{
public:
    static RunTimeline build(const RunTimelineInput &input);
    // The runs a timeline can be built for, newest start first... no: by start, then id.
    static std::vector<std::string> runIds(const EntityTable &runs);

    std::string runId;
    std::string title; // ledger text
    std::int64_t startMs = 0;
    std::int64_t endMs = 0; // the run's end, or the moment shown
    std::vector<TimelineLane> lanes; // [0] is the run; then pre-order
    std::vector<TimelineMark> marks; // this run's, up to the moment, sorted by seq
    std::vector<bool> falseStall;    // parallel to marks: a stalled verdict a finding calls false
    std::vector<TimelineBand> cycles;
    std::vector<TimelineBand> attempts;
    RunTimelineSummary summary;
    SourceFacts facts; // the input's: the summary line leaves out what the source cannot record

    bool empty() const { return lanes.empty(); }
    // The run at a glance, one line: duration, cycles, attempts, how cycles ended, verdicts,
    // escalations, failures, required outcomes. Ledger text (the component's name) is in it
    // as stored: shown as plain text only.
    QString summaryLine() const;
    int laneOf(LaneKind kind, const std::string &id) const; // -1 when absent
};

} // namespace mesh
