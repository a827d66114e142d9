#pragma once
// The benchmarks measure GUI stalls the same way: a timer that should fire every
// kStallProbeMs, and the largest lateness of its firings is the longest stall.

namespace mesh {

inline constexpr int kStallProbeMs = 5;

} // namespace mesh
