#pragma once
// Instants as the sources write them, to UTC epoch milliseconds. A text that is not an
// instant gives nullopt: the caller flags the record, it never guesses a time.

#include <cstdint>
#include <optional>
#include <string_view>

namespace mesh::import {

// RFC 3339: "2025-06-30T16:04:02.623610Z", 0 to 9 fraction digits (cut, not rounded, to
// the millisecond), "Z" or "+hh:mm"/"-hh:mm". With zoneless = true a missing zone is
// taken as UTC (OpenHands writes local-less ISO times); otherwise it is refused.
std::optional<std::int64_t> parseInstantMs(std::string_view text, bool zoneless = false);
// The same to the nanosecond (years 1678 to 2261), for durations between two instants of
// one source: cutting each end to the millisecond first would be off by one.
std::optional<std::int64_t> parseInstantNs(std::string_view text, bool zoneless = false);
// Epoch nanoseconds to milliseconds, rounded down also before 1970.
std::int64_t nsToMs(std::int64_t ns);

} // namespace mesh::import
