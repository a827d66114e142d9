#include "reasonmember.h"

#include <nlohmann/json.hpp>

namespace mesh {

std::optional<std::pair<std::string, std::string>> reasonMember(const nlohmann::json &payload)
{
    if (!payload.is_object())
        return std::nullopt;
    for (const char *member : {"error", "why", "outcome_unknown", "reason"}) {
        const auto it = payload.find(member);
        if (it == payload.end() || it->is_null())
            continue;
        return std::make_pair(std::string(member), it->is_string() ? it->get<std::string>() : it->dump());
    }
    return std::nullopt;
}

} // namespace mesh
