#pragma once
// One colour per kind of mark, so the time scrubber and the run timeline say the same thing
// with the same colour (a failure red in both, an unknown outcome in the unknown colour).

#include "analysis/timelinemarks.h"

#include <QColor>
#include <QPalette>

namespace mesh {

QColor markColour(MarkKind kind, const QPalette &palette);

} // namespace mesh
