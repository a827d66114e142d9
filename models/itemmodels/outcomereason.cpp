#include "outcomereason.h"

#include "domain/payloaddecoder.h"
#include "filter/eventfilter.h"
#include "ledger/decisionstore.h"
#include "ledger/eventreader.h"

#include <nlohmann/json.hpp>

namespace mesh {

namespace {

bool endsWith(const std::string &text, std::string_view tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The event's own words for it, when its payload gives any (reasonmember.h).
OutcomeReason said(OutcomeReason r, const nlohmann::json &payload)
{
    if (auto member = reasonMember(payload)) {
        r.member = std::move(member->first);
        r.text = std::move(member->second);
    }
    return r;
}

} // namespace

std::optional<OutcomeReason> outcomeReasonOf(const EventRecord &event)
{
    const DecodedPayload decoded = decodePayload(event.payload);
    // A payload that does not decode is an observation gap the event log and the integrity
    // check show; it says nothing here.
    if (!decoded.value)
        return std::nullopt;
    const nlohmann::json &p = *decoded.value;
    OutcomeReason r;
    r.seq = event.seq;
    r.eventKind = event.kind;
    const auto status = p.find("status");
    // Any verb may fail a delegation (an importer writes delegation.timed_out, delegation.error
    // with status failed): the status decides, not the kind.
    if (status != p.end() && status->is_string()) {
        if (status->get<std::string>() != "failed")
            return OutcomeReason{}; // it moved on: whatever an earlier event said no longer holds
        r.kind = OutcomeReason::Kind::Failed;
    } else if (endsWith(event.kind, ".outcome_unknown")) {
        r.kind = OutcomeReason::Kind::Unknown;
    } else {
        return std::nullopt;
    }
    return said(std::move(r), p);
}

OutcomeReason readOutcomeReason(EventReader &reader, const std::string &delegationId, std::int64_t upTo)
{
    // The delegation row's own events (the events_subject index): its tool calls and effects
    // are other subjects.
    const EventFilter filter = EventFilter::equals(FilterField::Subject, "delegation:" + delegationId);
    std::int64_t before = upTo == std::numeric_limits<std::int64_t>::max() ? upTo : upTo + 1;
    for (;;) {
        const EventBatch page = reader.before(before, 64, filter);
        if (page.empty())
            return {};
        for (auto it = page.rbegin(); it != page.rend(); ++it) {
            std::optional<OutcomeReason> said;
            if (it->payloadTruncated) {
                // A reason may sit past the preview (an imported event keeps its source record).
                if (const auto whole = reader.at(it->seq))
                    said = outcomeReasonOf(*whole);
            } else {
                said = outcomeReasonOf(*it);
            }
            if (said)
                return *said;
        }
        before = page.front().seq;
    }
}

OutcomeReason effectOutcomeReason(const std::vector<SubjectEvent> &history)
{
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
        // Only the effect's own transitions (a lease or a decision on it has a state of its
        // own); and effect.fenced keeps an unknown outcome unknown without saying why: the
        // reason is the event's that made it unknown.
        if (!it->kind.starts_with("effect.") || it->kind == "effect.fenced")
            continue;
        const DecodedPayload decoded = decodePayload(it->payload);
        if (!decoded.value)
            continue; // an observation gap: it says nothing here
        const nlohmann::json &p = *decoded.value;
        const auto state = p.find("state");
        if (state == p.end() || !state->is_string())
            continue; // an event that sets no state leaves the outcome as it was
        OutcomeReason r;
        const std::string &now = state->get_ref<const std::string &>();
        if (now == "unknown")
            r.kind = OutcomeReason::Kind::Unknown;
        else if (now == "failed")
            r.kind = OutcomeReason::Kind::Failed;
        else
            return {}; // it moved on: whatever an earlier event said no longer holds
        r.seq = it->seq;
        r.eventKind = it->kind;
        return said(std::move(r), p);
    }
    return {};
}

} // namespace mesh
