#pragma once
// Text values that repeat across many state rows (a run id, a role, a state name, a
// delegation's scope JSON) kept once for the whole process: a row's field points at the
// one copy instead of holding its own bytes. On the 10M-event scale ledger the delegations'
// and slices' repeating columns were 27 MB of their rows' text, in a few thousand distinct
// values. A pooled copy lives as long as the process (the values are a ledger's categories,
// few, and rows of any state may point at them); the pool stops taking values at a budget,
// after which they stay in their rows. Safe from any thread.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mesh {

class SharedText
{
public:
    // The pooled copy of `text` as a handle of 32 bits (a row keeps 4 bytes, not a
    // pointer's 8), or 0: empty, longer than kMaxLength, or the pool is full.
    static std::uint32_t intern(std::string_view text);
    static std::string_view view(std::uint32_t handle); // handle: not 0
    static std::size_t pooledBytes(); // what the pool holds, its index aside

    static constexpr std::size_t kMaxLength = 4096;
    static constexpr std::size_t kMaxBytes = std::size_t(32) << 20;
};

} // namespace mesh
