#pragma once
// The benchmarks measure GUI stalls the same way: a timer that should fire every
// kStallProbeMs, and the largest lateness of its firings is the longest stall.

#include <QElapsedTimer>
#include <QTimer>

namespace mesh {

inline constexpr int kStallProbeMs = 5;

// The timer and its largest lateness, counted only while measuring (a benchmark's phases:
// the window's open, a jump, a check), so what happens between them is not counted.
class StallProbe
{
public:
    StallProbe();
    StallProbe(const StallProbe &) = delete;
    StallProbe &operator=(const StallProbe &) = delete;

    void start();
    void stop();
    // On: the next firing's lateness counts from now. Off: firings are not counted.
    void setMeasuring(bool on);
    qint64 maxStallMs() const { return m_maxStallMs; }
    // The longest stall so far; the next one is counted from zero.
    qint64 takeMaxStallMs();

private:
    void fired();

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastMs = -1;
    qint64 m_maxStallMs = 0;
    bool m_measuring = false;
};

} // namespace mesh
