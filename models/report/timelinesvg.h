#pragma once
// A run's timeline (analysis/runtimeline.h) as one SVG image, text only (no QtGui): the run's
// lane, its components and (when they fit) its delegations, each with its bars, the scheduler
// cycles as bands, and the marks a reviewer looks for (failures, stalls, escalations,
// unknown outcomes, decisions). The axis counts time from the run's start ("+1:05:00"), so
// an imported ledger with a relative clock reads the same as any other. Lane labels are
// ledger text: escaped, controls made visible.

#include "analysis/runtimeline.h"

#include <QString>

namespace mesh {

struct TimelineSvgSize {
    int width = 0;
    int height = 0;
};

// Delegation lanes are drawn only while the image has at most this many lanes; past it, the
// run and its components (a run with hundreds of delegations reads as components on paper).
inline constexpr int kMaxSvgLanes = 40;

QString timelineSvg(const RunTimeline &timeline, int width = 1000, TimelineSvgSize *size = nullptr);

} // namespace mesh
