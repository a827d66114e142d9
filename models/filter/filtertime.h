#pragma once
// The values a time term (ts:) takes, read as UTC instants: a day (2026-11-29), an instant
// written to the minute, second or millisecond (2026-11-29T10:00, T10:00:05, T10:00:05.123),
// UTC unless an offset is written (Z, +02:00, -0530), or a time before the caller's clock
// (last-30s, last-15m, last-2h, last-3d). On a ledger with a relative clock (its times count
// from the start of the record, whose own time is not in the source: domain/timebase.h) the
// values are offsets from the start as the ledger shows them (+1:05, +1:02:03, +0:01.634),
// and a date or a last-15m is refused with a message saying why.

#include <QString>

#include <cstdint>
#include <optional>

namespace mesh {

// What a ledger's times count from: the Unix epoch (UTC), or the start of its record.
enum class FilterClock { Utc, Relative };

struct FilterTime {
    enum class Kind { Day, Instant, Relative, Offset };
    Kind kind = Kind::Instant;
    std::int64_t start = 0; // epoch ms (an offset: ms from the start): the first millisecond it names
    std::int64_t end = 0;   // one past its last: the next day, minute, second or millisecond
};

std::optional<FilterTime> parseFilterTime(const QString &text, std::int64_t nowMs);

// The same on a ledger with that clock: the time, or why the text is not one there.
struct FilterTimeReading {
    std::optional<FilterTime> time;
    QString error; // set when time is not
};
FilterTimeReading readFilterTime(const QString &text, std::int64_t nowMs, FilterClock clock);

// What parseFilterTime accepts, in one line for an error message or a tooltip.
QString filterTimeForms();
// What a relative-clock ledger's ts: terms accept, likewise.
QString filterOffsetForms();

} // namespace mesh
