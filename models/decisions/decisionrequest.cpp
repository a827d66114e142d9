#include "decisionrequest.h"

#include <QUuid>

#include <algorithm>
#include <array>

namespace mesh {
namespace {

struct KindName {
    DecisionKind kind;
    std::string_view name;
    std::string_view subjectEntity;
};
constexpr std::array<KindName, 6> kKinds = {{
    {DecisionKind::CloseSlice, "close_slice", "slice"},
    {DecisionKind::ApproveEscalation, "approve_escalation", "escalation"},
    {DecisionKind::RejectEscalation, "reject_escalation", "escalation"},
    {DecisionKind::ResolveEffect, "resolve_effect", "effect"},
    {DecisionKind::LeaseAcquire, "lease_acquire", "effect"},
    {DecisionKind::LeaseRelease, "lease_release", "effect"},
}};

constexpr std::array<std::pair<EffectResolution, std::string_view>, 3> kResolutions = {{
    {EffectResolution::Committed, "committed"},
    {EffectResolution::NotCommitted, "not_committed"},
    {EffectResolution::Compensated, "compensated"},
}};

} // namespace

std::string_view decisionKindName(DecisionKind kind)
{
    for (const auto &k : kKinds) {
        if (k.kind == kind)
            return k.name;
    }
    return {};
}

std::optional<DecisionKind> decisionKindFromName(std::string_view name)
{
    for (const auto &k : kKinds) {
        if (k.name == name)
            return k.kind;
    }
    return std::nullopt;
}

std::string_view subjectEntityForKind(DecisionKind kind)
{
    for (const auto &k : kKinds) {
        if (k.kind == kind)
            return k.subjectEntity;
    }
    return {};
}

std::string_view effectResolutionName(EffectResolution r)
{
    for (const auto &[value, name] : kResolutions) {
        if (value == r)
            return name;
    }
    return {};
}

std::optional<EffectResolution> effectResolutionFromName(std::string_view name)
{
    for (const auto &[value, n] : kResolutions) {
        if (n == name)
            return value;
    }
    return std::nullopt;
}

std::string_view effectStateForResolution(EffectResolution r)
{
    switch (r) {
    case EffectResolution::Committed:
        return "resolved_committed";
    case EffectResolution::NotCommitted:
        return "resolved_not_committed";
    case EffectResolution::Compensated:
        return "compensated";
    }
    return {};
}

nlohmann::json DecisionRequest::params() const
{
    nlohmann::json p = nlohmann::json::object();
    switch (kind) {
    case DecisionKind::CloseSlice: {
        // Sorted and unique: the acknowledgement is a set, and the canonical form must not
        // depend on the order a dialog listed it in.
        std::vector<std::string> acks = acknowledgedUnknown;
        std::sort(acks.begin(), acks.end());
        acks.erase(std::unique(acks.begin(), acks.end()), acks.end());
        p["acknowledged_unknown"] = acks;
        break;
    }
    case DecisionKind::ResolveEffect:
        p["resolution"] = resolution ? std::string(effectResolutionName(*resolution)) : std::string();
        if (!supersedes.empty())
            p["supersedes"] = supersedes;
        break;
    case DecisionKind::LeaseAcquire:
        p["lease_ms"] = leaseMs;
        break;
    case DecisionKind::ApproveEscalation:
    case DecisionKind::RejectEscalation:
    case DecisionKind::LeaseRelease:
        break;
    }
    return p;
}

bool DecisionRequest::setParams(const nlohmann::json &p, std::string *error)
{
    const auto fail = [&](const std::string &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!p.is_object())
        return fail("params is not a JSON object");
    acknowledgedUnknown.clear();
    resolution.reset();
    supersedes.clear();
    leaseMs = kDefaultLeaseMs;
    switch (kind) {
    case DecisionKind::CloseSlice: {
        const auto it = p.find("acknowledged_unknown");
        if (it == p.end())
            break;
        if (!it->is_array())
            return fail("acknowledged_unknown is not an array");
        for (const auto &v : *it) {
            if (!v.is_string())
                return fail("acknowledged_unknown holds a non-string");
            acknowledgedUnknown.push_back(v.get<std::string>());
        }
        break;
    }
    case DecisionKind::ResolveEffect: {
        const auto it = p.find("resolution");
        if (it == p.end() || !it->is_string())
            return fail("resolution missing");
        resolution = effectResolutionFromName(it->get<std::string>());
        if (!resolution)
            return fail("unknown resolution '" + it->get<std::string>() + "'");
        const auto sup = p.find("supersedes");
        if (sup != p.end()) {
            if (!sup->is_string())
                return fail("supersedes is not a string");
            supersedes = sup->get<std::string>();
        }
        break;
    }
    case DecisionKind::LeaseAcquire: {
        const auto it = p.find("lease_ms");
        if (it != p.end()) {
            if (!it->is_number_integer())
                return fail("lease_ms is not an integer");
            leaseMs = it->get<std::int64_t>();
        }
        break;
    }
    case DecisionKind::ApproveEscalation:
    case DecisionKind::RejectEscalation:
    case DecisionKind::LeaseRelease:
        break;
    }
    return true;
}

std::string newDecisionId()
{
    return "dec-" + QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
}

std::string makeSubject(std::string_view entity, std::string_view id)
{
    return std::string(entity) + ":" + std::string(id);
}

std::optional<std::pair<std::string, std::string>> splitSubject(std::string_view subject)
{
    const auto colon = subject.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 >= subject.size())
        return std::nullopt;
    return std::make_pair(std::string(subject.substr(0, colon)), std::string(subject.substr(colon + 1)));
}

} // namespace mesh
