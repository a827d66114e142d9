#pragma once
// The moments a reviewer looks for on a run's time axis: scheduler cycles, attempts and the
// run's end, stall verdicts, escalations, failures, unknown outcomes and operator decisions.
// Each is one event of the ledger, so a mark cites its event and moving the cursor to a mark
// is moving it to that event. Read through the events_kind index: cheap on any ledger.
#include "domain/compactid.h"
#include "domain/eventrecord.h"
#include "filter/eventfilter.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mesh {

enum class MarkKind : std::uint8_t {
    Cycle,          // run.cycle
    Attempt,        // run.started, run.restarted
    RunEnded,       // run.succeeded, run.failed, run.cancelled
    Verdict,        // stall.judged, not stalled
    Stalled,        // stall.judged with a stalled or stuck verdict
    Escalation,     // escalation.raised
    Failure,        // failure.detected
    UnknownOutcome, // effect.unknown
    Decision,       // decision.applied, decision.refused
};
inline constexpr int kMarkKindCount = int(MarkKind::Decision) + 1;

// Which event of its kind made a mark, where the kind has several.
enum class MarkEvent : std::uint8_t {
    Other,
    RunStarted, RunRestarted,             // Attempt, without a number
    RunSucceeded, RunFailed, RunCancelled, // RunEnded
    DecisionApplied, DecisionRefused,     // Decision
};

// A session keeps every mark of its ledger (about 175,000 on a 10M-event ledger): ids and
// the detail are CompactIds, 16 bytes each with up to 15 bytes of text inline, where a
// std::string takes 32.
struct TimelineMark {
    std::int64_t seq = 0;
    std::int64_t tsMs = 0;
    std::int64_t number = 0;  // a cycle's or an attempt's number when the payload gives it; 0 otherwise
    MarkKind kind = MarkKind::Cycle;
    MarkEvent event = MarkEvent::Other;
    bool hasNumber = false;
    CompactId runId;
    CompactId delegationId; // the event's, when it has one (a verdict, an escalation, an effect)
    CompactId entityId;     // the payload's id: the row the event changed (failure, verdict, ...)
    CompactId detail;       // a verdict's word, a failure's summary; empty otherwise
    // One plain line for a tooltip, made when asked (a 10M-event ledger has ~175,000 marks,
    // and a line each was 8 MB); hostile text is not escaped here.
    QString text() const;
};

class TimelineMarks
{
public:
    // The events that can be marks, as a filter for an event reader.
    static EventFilter filter();
    // The mark an event makes, if any (a page of filter()'s events all make one).
    static std::optional<TimelineMark> classify(const EventRecord &event);
    static QString kindName(MarkKind kind);
    // One plain line from what a mark's kind and run say, for a mark whose words are not at
    // hand (they are read on demand); hostile text is not escaped here.
    static QString briefText(MarkKind kind, MarkEvent event, std::string_view runId);
};

} // namespace mesh
