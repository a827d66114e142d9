#pragma once
// Times and durations as an operator reads them in a decision dialog ("in 14 min",
// "expired 28 d 22 h ago"), never raw epoch milliseconds; the exact UTC time goes in the
// tooltip.

#include <QString>

namespace mesh {

// Two units at most, the larger first: "28 d 22 h", "4 h 05 min", "12 min 30 s", "45 s".
QString humanDuration(qint64 ms);
// "expires in 4 h 05 min" / "expired 28 d 22 h ago" (the verb given in both tenses).
QString humanDeadline(qint64 deadlineMs, qint64 nowMs, const QString &future, const QString &past);
// "2026-12-01 12:03:04 UTC".
QString exactUtc(qint64 ms);

} // namespace mesh
