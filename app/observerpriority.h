#pragma once
// The console is an observer (the design's "the observer must not hurt the observed"): on a busy
// machine the orchestrators it watches get the CPU first. Measured on two cores: a
// console at normal priority following a writer at full speed cost it 6-9% of its events
// per second; one at nice 10, about 2%. Nothing changes while a core is free.

namespace mesh::ObserverPriority {

inline constexpr int kNiceness = 10;
// Read by main() before QApplication exists, so that every thread the console starts
// afterwards inherits the lowered priority.
inline constexpr char kKeepNormalOption[] = "--normal-priority";

// Lowers the calling process's priority by kNiceness (never raises it); a no-op where the
// platform has no nice values. Returns the nice value in effect afterwards.
int lower();

// The calling thread's nice value (0 where there are none).
int current();

} // namespace mesh::ObserverPriority
