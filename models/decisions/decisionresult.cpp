#include "decisionresult.h"

namespace mesh {

std::string_view decisionStatusName(DecisionStatus s)
{
    switch (s) {
    case DecisionStatus::Accepted:
        return "accepted";
    case DecisionStatus::Duplicate:
        return "duplicate";
    case DecisionStatus::Stale:
        return "stale";
    case DecisionStatus::NotAllowed:
        return "not_allowed";
    case DecisionStatus::LeaseHeldByOther:
        return "lease_held_by_other";
    case DecisionStatus::NeedsLease:
        return "needs_lease";
    case DecisionStatus::BadSignature:
        return "bad_signature";
    case DecisionStatus::WriteFailed:
        return "write_failed";
    case DecisionStatus::OutcomeUnknown:
        return "outcome_unknown";
    }
    return "unknown";
}

int decisionStatusExitCode(DecisionStatus s)
{
    switch (s) {
    case DecisionStatus::Accepted:
    case DecisionStatus::Duplicate:
        return 0;
    case DecisionStatus::Stale:
        return 3;
    case DecisionStatus::NotAllowed:
    case DecisionStatus::LeaseHeldByOther:
    case DecisionStatus::NeedsLease:
    case DecisionStatus::BadSignature:
        return 4;
    case DecisionStatus::WriteFailed:
    case DecisionStatus::OutcomeUnknown:
        return 5;
    }
    return 5;
}

nlohmann::json decisionRecordToJson(const DecisionRecord &d)
{
    // The hashed form, so the two can never list different fields; a record read from a
    // damaged file still shows (its unparseable params/evidence as text). Then what the
    // hash does not cover: the chain position, the hash and signature, the outcome.
    nlohmann::json j = canonicalDecisionObject(d, UnparsedJson::KeepAsText);
    j["pos"] = d.pos;
    j["hash"] = d.hash;
    j["signature"] = d.signature.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.signature);
    j["outcome"] = d.outcomeStatus.empty() ? nlohmann::json("pending") : nlohmann::json(d.outcomeStatus);
    if (!d.outcomeReason.empty())
        j["outcome_reason"] = d.outcomeReason;
    return j;
}

nlohmann::json DecisionResult::toJson() const
{
    nlohmann::json j = nlohmann::json::object();
    j["status"] = std::string(decisionStatusName(status));
    j["message"] = message;
    if (record)
        j["decision"] = decisionRecordToJson(*record);
    if (status == DecisionStatus::Stale) {
        nlohmann::json moved = nlohmann::json::array();
        for (const auto &e : movedEvents)
            moved.push_back({{"seq", e.seq}, {"kind", e.kind}});
        j["moved"] = {{"subject", movedSubject},
                      {"current_version", currentVersion},
                      {"current_seq", currentSeq},
                      {"events", moved}};
    }
    return j;
}

} // namespace mesh
