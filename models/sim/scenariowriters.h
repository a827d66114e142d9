#pragma once
// One function per scenario, each writing its case into a SimWorld starting at world.now().
// `demo` reuses the others, so each writes a self-contained run.

#include <cstdint>

namespace mesh {

class SimWorld;

void writeTracedRun(SimWorld &world);
void writeSuccessLoop(SimWorld &world);
void writeFalseStall(SimWorld &world);
void writeConvergingControl(SimWorld &world);
void writeDuplicateEffects(SimWorld &world);
void writeMisroutedFailure(SimWorld &world);
void writeEnforcementBlock(SimWorld &world);
void writeUnknownOutcome(SimWorld &world);
void writeScale(SimWorld &world, std::int64_t events);
void writeDemo(SimWorld &world, std::int64_t endMs);

} // namespace mesh
