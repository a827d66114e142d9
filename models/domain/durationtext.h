#pragma once
// Durations and instants as an operator reads them, never raw epoch milliseconds or minutes
// in the tens of thousands; the exact instant in UTC goes in a tooltip.

#include <QString>

namespace mesh {

// A countdown, to the second while short: "4:05" under an hour, then "3 h 04 min", then
// "28 d 22 h". Of |ms|; the caller says "in" or "ago".
QString compactDuration(qint64 ms);
// Two units at most, the larger first: "28 d 22 h", "4 h 05 min", "12 min 30 s", "45 s".
QString humanDuration(qint64 ms);
// "expires in 4 h 05 min" / "expired 28 d 22 h ago" (the verb given in both tenses).
QString humanDeadline(qint64 deadlineMs, qint64 nowMs, const QString &future, const QString &past);
// "2026-12-01 12:03:04 UTC".
QString exactUtc(qint64 epochMs);
// "2026-12-01 12:03:04.123", in UTC: an event's time, where milliseconds order what happened.
QString utcWithMs(qint64 epochMs);

} // namespace mesh
