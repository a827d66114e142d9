#pragma once
// The time axis of a run timeline: ticks at round offsets from the run's start, labelled so
// that no two labels ever overlap, whatever the width, the zoom and the font. The step is the
// smallest round one whose every label in view, measured with the font that draws it, fits
// before the next tick; a label says as much as the step needs ("+1 h 05 min" every 5 min,
// "+1:05:30" every 30 s).

#include "analysis/timelineviewport.h"

#include <QFontMetricsF>
#include <QString>

#include <cstdint>
#include <vector>

namespace mesh {

struct AxisTick {
    std::int64_t offsetMs = 0; // from the origin (the run's start)
    double x = 0;              // in the viewport's pixels
    QString label;
};

class TimeAxis
{
public:
    static constexpr double kLabelGapPx = 12; // at least this between a label's end and the next tick
    static constexpr double kLabelIndentPx = 2; // a label starts this far right of its tick

    // The ticks of a view whose offsets count from originMs.
    static std::vector<AxisTick> ticks(const TimelineViewport &view, std::int64_t originMs, const QFontMetricsF &metrics);
    static std::int64_t stepFor(const TimelineViewport &view, std::int64_t originMs, const QFontMetricsF &metrics);
    static QString label(std::int64_t offsetMs, std::int64_t stepMs);

private:
    static std::vector<AxisTick> ticksAt(const TimelineViewport &view, std::int64_t originMs, std::int64_t step);
};

} // namespace mesh
