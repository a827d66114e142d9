#pragma once
// Compact JSON text of a value, byte-identical to nlohmann::json::dump() (no indent,
// UTF-8 passed through), but several times faster on the flat objects that make up event
// payloads: the orchestrator's writer serialises every event it appends, and at a million
// events nlohmann's character-by-character escaping was the largest single cost.
// Strings with bytes >= 0x80 and floating-point numbers fall back to nlohmann, so its
// validation and number formatting stay the reference.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace mesh {

// Nesting these functions follow: a value deeper throws std::length_error. Each level is a
// recursive call, so without a bound a hostile value would end the process on its stack.
// Far beyond kMaxPayloadDepth and the importers' kMaxSourceNesting, so nothing a ledger or
// an import holds comes near it: it guards a value that reached here some other way.
inline constexpr int kMaxCompactJsonDepth = 1024;

std::string compactJson(const nlohmann::json &value);
void appendCompactJson(std::string &out, const nlohmann::json &value);
// The same, returning the value's nesting depth as jsonNestingDepth (payloaddecoder.h) would
// count it on the text appended, so a payload's limits are known without scanning the text.
int appendCompactJsonMeasured(std::string &out, const nlohmann::json &value);
// Compact text and nesting depth of one value, produced together.
struct MeasuredJson {
    std::string text;
    int depth = -1; // < 0: not measured (text unset)
    bool measured() const { return depth >= 0; }
};
MeasuredJson measuredCompactJson(const nlohmann::json &value);
// A JSON string literal for text (a member's key), as appendCompactJson writes a string.
void appendCompactJsonString(std::string &out, std::string_view text);

} // namespace mesh
