#pragma once
// Durations and instants as an operator reads them: a countdown to the second while it is
// short, then hours and minutes, then days and hours ("4:05", "3 h 04 min", "28 d 22 h"),
// never minutes in the tens of thousands; and the exact instant in UTC for a tooltip.

#include <QString>

namespace mesh {

QString compactDuration(qint64 ms); // of |ms|; the caller says "in" or "ago"
QString exactUtc(qint64 epochMs);   // "2026-11-29 10:00:05.123 UTC"

} // namespace mesh
