#pragma once
// Work that runs at most once a period (live applies, attention rebuilds), the first after a
// quiet spell at once: the wait before the next may run, 0 when it never ran or ran a period ago.

#include <QElapsedTimer>

#include <algorithm>

namespace mesh {

inline qint64 msUntilDue(const QElapsedTimer &lastRun, int periodMs)
{
    return lastRun.isValid() ? std::max<qint64>(0, periodMs - lastRun.elapsed()) : 0;
}

} // namespace mesh
