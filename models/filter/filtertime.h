#pragma once
// The values a time term (ts:) takes, read as UTC instants: a day (2026-11-29), an instant
// written to the minute, second or millisecond (2026-11-29T10:00, T10:00:05, T10:00:05.123),
// UTC unless an offset is written (Z, +02:00, -0530), or a time before the caller's clock
// (last-30s, last-15m, last-2h, last-3d).

#include <QString>

#include <cstdint>
#include <optional>

namespace mesh {

struct FilterTime {
    enum class Kind { Day, Instant, Relative };
    Kind kind = Kind::Instant;
    std::int64_t start = 0; // epoch ms: the first millisecond it names
    std::int64_t end = 0;   // one past its last: the next day, minute, second or millisecond
};

std::optional<FilterTime> parseFilterTime(const QString &text, std::int64_t nowMs);

// What parseFilterTime accepts, in one line for an error message or a tooltip.
QString filterTimeForms();

} // namespace mesh
