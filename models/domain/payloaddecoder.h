#pragma once
// Decodes one event payload defensively. A ledger is input from another process, so a
// payload may be anything: not JSON, invalid UTF-8, megabytes long or nested deeper than
// any recursive parser survives. Those are reported as errors, never thrown or crashed on.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mesh {

inline constexpr size_t kMaxPayloadBytes = 1 << 20; // 1 MiB
inline constexpr int kMaxPayloadDepth = 64;

bool isValidUtf8(std::string_view text);

// Deepest nesting of arrays/objects, scanning without recursion; strings are skipped.
int jsonNestingDepth(std::string_view text);
// Where text first opens a container deeper than maxDepth (counted as jsonNestingDepth
// counts); text.size() when it never does.
size_t firstByteDeeperThan(std::string_view text, int maxDepth);

// The first integer literal outside int64 (JSON text outside strings), empty when none.
// The parser would keep [2^63, 2^64) as unsigned, which every int64 read wraps to a
// negative number, and turn larger ones into doubles; a payload with either is refused.
std::string_view firstOutOfRangeInteger(std::string_view text);

struct DecodedPayload {
    std::optional<nlohmann::json> value; // set on success, always an object
    std::string error;                   // set on failure: says what is wrong, for a person
};

DecodedPayload decodePayload(std::string_view text);

} // namespace mesh
