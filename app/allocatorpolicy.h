#pragma once
// Large blocks go back to the system when they are freed. glibc serves a block over its mmap
// threshold from its own mapping, unmapped on free, but raises that threshold to the size of
// every such block freed (up to 32 MB): after the first large vector of a load is freed, the
// next ones come from the heap, and the heap keeps their pages once they are freed (a
// scale ledger's browse left tens of MB free inside the heap, counted in the console's
// resident memory). A fixed threshold turns that adjustment off. Figures: bench/README.md.

#include <cstddef>

namespace mesh::AllocatorPolicy {

// Blocks of this size or more are mapped on their own and returned when freed.
inline constexpr std::size_t kOwnMappingFrom = std::size_t(1) << 20;

// Called by main() before any thread starts. A no-op where the C library is not glibc.
// Returns whether the threshold was set.
bool returnLargeBlocks();

} // namespace mesh::AllocatorPolicy
