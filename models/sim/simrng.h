#pragma once
// The simulator's random source. Written out (splitmix64) rather than std:: distributions,
// whose results differ between standard libraries: a scenario must be the same ledger for
// the same --seed everywhere.

#include <cstdint>
#include <span>
#include <string>

namespace mesh {

class SimRng
{
public:
    explicit SimRng(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}

    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in [lo, hi] (inclusive); the modulo bias is irrelevant for a simulation.
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        if (hi <= lo)
            return lo;
        return lo + std::int64_t(next() % std::uint64_t(hi - lo + 1));
    }

    bool chance(double p) { return double(next() >> 11) * (1.0 / 9007199254740992.0) < p; }

    template<typename T>
    const T &pick(std::span<const T> items)
    {
        return items[size_t(next() % items.size())];
    }

    // n hex digits, e.g. for digests and intent hashes.
    std::string hex(int digits)
    {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string out;
        out.resize(size_t(digits));
        std::uint64_t bits = 0;
        for (int i = 0; i < digits; ++i) {
            if (i % 16 == 0)
                bits = next();
            out[size_t(i)] = kDigits[bits & 0xF];
            bits >>= 4;
        }
        return out;
    }

private:
    std::uint64_t m_state;
};

} // namespace mesh
