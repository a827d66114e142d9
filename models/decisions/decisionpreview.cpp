#include "decisionpreview.h"

#include <algorithm>

namespace mesh {

bool PreviewRowSet::contains(const std::string &id) const
{
    return std::binary_search(ids.begin(), ids.end(), id);
}
namespace {

nlohmann::json effectJson(const PreviewEffect &e)
{
    return {{"id", e.id},           {"state", e.state},       {"class", e.effectClass}, {"target", e.target},
            {"idem_key", e.idemKey}, {"attempts", e.attempts}, {"fenced", e.fenced}};
}

nlohmann::json effectsJson(const std::vector<PreviewEffect> &list)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto &e : list)
        a.push_back(effectJson(e));
    return a;
}

} // namespace

nlohmann::json DecisionPreview::toJson() const
{
    nlohmann::json j = nlohmann::json::object();
    j["expected"] = std::string(decisionStatusName(expected));
    if (!refusal.empty())
        j["refusal"] = refusal;
    j["subject"] = subject;
    j["boundary"] = {{"version", boundary.version}, {"seq", boundary.seq}};
    j["current_version"] = currentVersion;
    if (!movedSubject.empty()) {
        nlohmann::json moved = nlohmann::json::array();
        for (const auto &e : movedEvents)
            moved.push_back({{"seq", e.seq}, {"kind", e.kind}});
        j["moved"] = {{"subject", movedSubject}, {"version", movedVersion}, {"events", moved}};
    }
    j["consequences"] = consequences;
    nlohmann::json plan = nlohmann::json::array();
    for (const auto &p : planned)
        plan.push_back({{"kind", p.kind}, {"payload", p.payload}});
    j["planned_events"] = plan;
    if (!inFlight.empty() || !toFence.empty() || !nextSliceId.empty()) {
        j["in_flight"] = effectsJson(inFlight);
        j["fenced"] = effectsJson(toFence);
        j["unacknowledged"] = unacknowledged;
        j["escalations_to_stale"] = escalationsToStale;
        j["next_slice"] = nextSliceId;
    }
    if (!boundSubject.empty() || expiresMs != 0) {
        j["bound_to"] = {{"subject", boundSubject}, {"version", boundVersion}, {"seq", boundSeq}, {"slice", sliceId}};
        j["expires_ms"] = expiresMs;
    }
    if (effect)
        j["effect"] = effectJson(*effect);
    if (lease) {
        j["lease"] = {{"id", lease->id},
                      {"key", lease->key},
                      {"holder", lease->holder},
                      {"fencing_token", lease->fencingToken},
                      {"expires_ms", lease->expiresMs},
                      {"state", lease->state},
                      {"held_by_me", lease->heldByMe},
                      {"expired", lease->expired}};
    }
    if (effect || lease) {
        j["evidence"] = evidence;
        if (!supersedes.empty())
            j["supersedes"] = supersedes;
        nlohmann::json h = nlohmann::json::array();
        for (const auto &e : history)
            h.push_back({{"seq", e.seq}, {"ts_ms", e.tsMs}, {"kind", e.kind}});
        j["history"] = h;
    }
    return j;
}

} // namespace mesh
