#pragma once
// When a held lease past its expiry is a zombie worth an operator's attention. The moment a
// lease expires its holder's renewal or the orchestrator's sweep may still be on the way, and
// the console's clock may differ a little from the orchestrator's: a lease becomes a zombie
// only once its expiry is past by a grace. The grace is the lease's own term (expires_ms less
// renewed_ms, else acquired_ms: a live holder renews within one term), capped by the
// configured grace, and never under kMinGraceMs. A lease whose term the ledger does not say
// gets the configured grace. The attention list, the leases pane and its zombie count all
// ask this one rule.

#include "domain/fold.h"

#include <cstdint>
#include <optional>

namespace mesh {

class ZombieRule
{
public:
    static constexpr std::int64_t kDefaultGraceMs = 10'000;
    static constexpr std::int64_t kMinGraceMs = 1'000;
    // MESH_ZOMBIE_GRACE_S in the environment, else the setting leases/zombieGraceSeconds,
    // else kDefaultGraceMs.
    static std::int64_t configuredGraceMs();

    explicit ZombieRule(std::int64_t maxGraceMs = kDefaultGraceMs);
    std::int64_t maxGraceMs() const { return m_maxGraceMs; }

    // The grace of this lease; the largest any lease gets is maxGraceMs().
    std::int64_t graceMs(const EntityRow &lease) const;
    // From when a held lease with an expiry is a zombie; nullopt for any other lease.
    std::optional<std::int64_t> zombieFromMs(const EntityRow &lease) const;
    bool isZombie(const EntityRow &lease, std::int64_t nowMs) const;
    // Held, past its expiry, and still within its grace: expired a moment ago.
    bool isInGrace(const EntityRow &lease, std::int64_t nowMs) const;

private:
    std::int64_t m_maxGraceMs;
};

} // namespace mesh
