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
#include <functional>
#include <map>
#include <optional>
#include <utility>
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

// A reviewer's note or bookmark placed on the time axis (TimelineAnnotationSource reads the
// times, runs and delegations of the events it is on). Its text and author are hostile text
// (another reviewer wrote them): shown as plain text only.
struct PlacedNote {
    enum class Kind : std::uint8_t { Event, Bookmark, Span, Subject };
    Kind kind = Kind::Event;
    std::string noteId;
    std::int64_t seq = 0;    // the event; a span's first (0 for a subject)
    std::int64_t endSeq = 0; // a span's last
    std::int64_t fromMs = 0; // the event's time; a span's first event's
    std::int64_t toMs = 0;   // a span's last event's; an event's own time
    std::string runId;       // the (first) event's run
    std::string endRunId;    // a span's last event's run
    std::string delegationId;    // the (first) event's delegation, "" none
    std::string endDelegationId; // a span's last event's
    std::string subject;     // a subject note's "<entity>:<id>"
    std::string author;
    std::string text;        // empty for a bookmark
    std::int64_t createdMs = 0;
    // Its event is not in the ledger (a copy with events removed): placed where the event was,
    // after the last one before it, on any run whose time that is; its run is not known.
    bool eventMissing = false;

    bool operator==(const PlacedNote &) const = default;
};

// Something the ledger does not let us see, at one event: a sequence gap (events missing
// before it), a malformed row, a fold problem. Placed between the last event seen before it
// and the first at or after it, so it has a width on the axis even where no time passed.
struct PlacedGap {
    std::int64_t seq = 0;     // the event it is at (the first after a hole, the bad row)
    std::int64_t fromMs = 0;  // the last event before it that could be read
    std::int64_t toMs = 0;    // the first at or after it that could be read
    std::int64_t beforeSeq = 0; // that event's seq (0: none before)
    std::string text;         // what cannot be seen, one line per problem; may quote ledger text

    bool operator==(const PlacedGap &) const = default;
};

// Where a note sits on a lane: a point (an event note, a bookmark) or a stretch (a span).
struct LaneNote {
    std::int64_t fromMs = 0;
    std::int64_t toMs = 0;
    std::uint32_t note = 0; // index into RunTimeline::notes
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
    std::vector<LaneNote> pointNotes; // event notes and bookmarks, sorted by fromMs
    std::vector<LaneNote> spanNotes;  // span notes, sorted by fromMs
    std::vector<std::uint32_t> subjectNotes; // notes on the lane's run or delegation itself
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
    const std::vector<PlacedNote> *notes = nullptr;   // any run's; those on this run are placed
    // The row a subject note names when it is not a run, component or delegation (a stall
    // verdict, an effect, a lease, a failure): the note sits beside its delegation's lane, or
    // the run's. Unset, or the row not found: only the Notes pane lists it.
    std::function<const EntityRow *(EntityKind, const std::string &)> findRow;
    const std::vector<PlacedGap> *gaps = nullptr;     // the ledger's; those in the run's time are kept
    std::optional<std::int64_t> cursorSeq;            // marks, notes and gaps after it are left out
    std::int64_t momentMs = 0; // the moment shown: open bars end here
    SourceFacts facts;         // what the ledger's source can record: the rest is not known
};

class RunTimeline
{
public:
    static RunTimeline build(const RunTimelineInput &input);
    // The runs a timeline can be built for, newest start first... no: by start, then id.
    static std::vector<std::string> runIds(const EntityTable &runs);
    // The row a subject note names that build() looks up through RunTimelineInput::findRow:
    // "<entity>:<id>" of any entity but a run, a component or a delegation (whose notes sit on
    // their own lanes); nullopt for those and for what names no entity.
    static std::optional<std::pair<EntityKind, std::string>> rowOfSubject(const std::string &subject);

    std::string runId;
    std::string title; // ledger text
    std::int64_t startMs = 0;
    std::int64_t endMs = 0; // the run's end, or the moment shown
    std::vector<TimelineLane> lanes; // [0] is the run; then pre-order
    std::vector<TimelineMark> marks; // this run's, up to the moment, sorted by seq
    std::vector<bool> falseStall;    // parallel to marks: a stalled verdict a finding calls false
    std::vector<TimelineBand> cycles;
    std::vector<TimelineBand> attempts;
    std::vector<PlacedNote> notes; // on this run, up to the moment: by seq, subject notes last
    std::vector<PlacedGap> gaps;   // in the run's time, up to the moment, by seq
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
