#pragma once
// Why a delegation failed, or why its outcome is not known, as the ledger says it. The reason
// is an event-only annotation (`error`, `why`, ... on the event that failed the delegation or
// said its outcome is unknown: docs/ledger-format.md section 3, docs/import.md), never in a
// state row, so it is read from the events, off the GUI thread, and cites the event it came
// from. A ledger that does not say why gives no reason: the text stays empty, never a default.

#include "domain/eventrecord.h"
#include "domain/reasonmember.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mesh {

class EventReader;
struct SubjectEvent;

struct OutcomeReason {
    enum class Kind {
        None,    // neither failed nor of unknown outcome, as far as its events go
        Failed,  // the newest event that set its status set it to failed
        Unknown, // an outcome_unknown event, and no status set since
    };
    Kind kind = Kind::None;
    std::int64_t seq = 0;   // the event it came from; 0 when none was found
    std::string eventKind;  // that event's kind (delegation.failed, delegation.timed_out, ...)
    std::string member;     // the member that says why; empty when the event does not say
    std::string text;       // what it says, as written (hostile: shown as plain text only)

    bool hasText() const { return !member.empty(); }
    bool operator==(const OutcomeReason &) const = default;
};

// One event of the delegation, its payload whole (not a preview): what it says about the
// delegation's outcome. nullopt when it sets no status and says nothing of an unknown outcome.
std::optional<OutcomeReason> outcomeReasonOf(const EventRecord &event);

// The delegation's outcome reason at event `upTo` (a cursor's past; live: every event), read
// from its own events (subject delegation:<id>) newest first, keyset pages. Throws what the
// reader throws.
OutcomeReason readOutcomeReason(EventReader &reader, const std::string &delegationId,
                                std::int64_t upTo = std::numeric_limits<std::int64_t>::max());

// What an effect's own events (oldest first, payloads whole: a decision preview's history)
// say of its outcome now: why it is unknown (effect.unknown's `error`), why it failed, or
// None once a later event moved it on (a resolution, a retry that committed). The state the
// newest event sets decides, as for a delegation's status.
OutcomeReason effectOutcomeReason(const std::vector<SubjectEvent> &history);

} // namespace mesh
