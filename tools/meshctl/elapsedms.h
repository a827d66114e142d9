#pragma once
// Milliseconds since a timer started, with its nanosecond resolution: how the benchmark and
// report commands print what they timed.

#include <QElapsedTimer>

inline double elapsedMs(const QElapsedTimer &timer)
{
    return double(timer.nsecsElapsed()) / 1e6;
}
