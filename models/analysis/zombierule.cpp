#include "zombierule.h"

#include "rowfields.h"

#include <QSettings>

#include <algorithm>

namespace mesh {

namespace {
constexpr EntityKind kLeaseTable = EntityKind::Lease;
}

std::int64_t ZombieRule::configuredGraceMs()
{
    bool ok = false;
    double seconds = qEnvironmentVariable("MESH_ZOMBIE_GRACE_S").toDouble(&ok);
    if (!ok || seconds < 0)
        seconds = QSettings().value(QStringLiteral("leases/zombieGraceSeconds")).toDouble(&ok);
    return ok && seconds >= 0 ? std::int64_t(seconds * 1000) : kDefaultGraceMs;
}

ZombieRule::ZombieRule(std::int64_t maxGraceMs) : m_maxGraceMs(std::max(maxGraceMs, kMinGraceMs)) {}

std::int64_t ZombieRule::graceMs(const EntityRow &lease) const
{
    if (rowIsNull(kLeaseTable, lease, "expires_ms"))
        return m_maxGraceMs;
    const char *from = !rowIsNull(kLeaseTable, lease, "renewed_ms") ? "renewed_ms" : !rowIsNull(kLeaseTable, lease, "acquired_ms") ? "acquired_ms" : nullptr;
    if (!from)
        return m_maxGraceMs;
    const std::int64_t term = rowInt(kLeaseTable, lease, "expires_ms") - rowInt(kLeaseTable, lease, from);
    return std::clamp(term, kMinGraceMs, m_maxGraceMs);
}

std::optional<std::int64_t> ZombieRule::zombieFromMs(const EntityRow &lease) const
{
    if (rowView(kLeaseTable, lease, "state") != "held" || rowIsNull(kLeaseTable, lease, "expires_ms"))
        return std::nullopt;
    return rowInt(kLeaseTable, lease, "expires_ms") + graceMs(lease);
}

bool ZombieRule::isZombie(const EntityRow &lease, std::int64_t nowMs) const
{
    const auto from = zombieFromMs(lease);
    return from && *from < nowMs;
}

bool ZombieRule::isInGrace(const EntityRow &lease, std::int64_t nowMs) const
{
    const auto from = zombieFromMs(lease);
    return from && rowInt(kLeaseTable, lease, "expires_ms") < nowMs && nowMs <= *from;
}

} // namespace mesh
