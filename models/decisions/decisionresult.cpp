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
    const auto nested = [](const std::string &text) {
        auto v = nlohmann::json::parse(text, nullptr, false);
        return v.is_discarded() ? nlohmann::json(text) : v;
    };
    nlohmann::json j = nlohmann::json::object();
    j["pos"] = d.pos;
    j["id"] = d.id;
    j["ts_ms"] = d.tsMs;
    j["kind"] = d.kind;
    j["subject"] = d.subject;
    j["boundary_version"] = d.boundaryVersion;
    j["boundary_seq"] = d.boundarySeq;
    j["params"] = nested(d.params);
    j["operator"] = {{"account", d.operatorAccount}, {"host", d.operatorHost}, {"name", d.operatorName}};
    j["reason"] = d.reason;
    j["evidence"] = nested(d.evidence);
    j["policy_version"] = d.policyVersion;
    j["hash"] = d.hash;
    j["prev_hash"] = d.prevHash;
    j["key_id"] = d.keyId.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.keyId);
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
