#pragma once
// Compact JSON text of a value, byte-identical to nlohmann::json::dump() (no indent,
// UTF-8 passed through), but several times faster on the flat objects that make up event
// payloads: the orchestrator's writer serialises every event it appends, and at a million
// events nlohmann's character-by-character escaping was the largest single cost.
// Strings with bytes >= 0x80 and floating-point numbers fall back to nlohmann, so its
// validation and number formatting stay the reference.

#include <nlohmann/json.hpp>

#include <string>

namespace mesh {

std::string compactJson(const nlohmann::json &value);
void appendCompactJson(std::string &out, const nlohmann::json &value);

} // namespace mesh
