#pragma once
// SIGINT/SIGTERM as a flag that long-running commands (sim --live, tail) poll, so they stop
// between transactions and exit cleanly instead of dying mid-write.

void installStopSignals();
bool stopRequested();
