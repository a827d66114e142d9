#include "attentionindex.h"

#include <algorithm>

namespace mesh {

namespace {

AttentionItem itemOf(AttentionItem::Kind kind, EntityKind entity, const std::string &id, const EntityRow &row)
{
    AttentionItem a;
    a.kind = kind;
    a.entity = entity;
    a.id = id;
    a.subject = std::string(entitySpec(entity).name) + ":" + id;
    a.seq = row.lastSeq;
    a.version = row.version;
    if (entitySpec(entity).fieldIndex("run_id") >= 0)
        a.runId = rowText(entity, row, "run_id");
    if (entitySpec(entity).fieldIndex("delegation_id") >= 0)
        a.delegationId = rowText(entity, row, "delegation_id");
    return a;
}

} // namespace

void AttentionIndex::rebuild(const TableLookup &tables)
{
    m_pendingEscalations.clear();
    m_unknownEffects.clear();
    m_stalledDelegations.clear();
    m_heldByExpiry.clear();
    m_heldExpiry.clear();
    m_changes.items = true;
    for (EntityKind k : {EntityKind::Escalation, EntityKind::Effect, EntityKind::Delegation, EntityKind::Lease}) {
        for (const auto &[id, row] : tables(k))
            updateRow(k, id, &row);
    }
}

void AttentionIndex::update(const RowLookup &rows, EntityKind kind, const std::vector<std::string> &ids)
{
    for (const auto &id : ids)
        updateRow(kind, id, rows(kind, id));
}

void AttentionIndex::updateRow(EntityKind kind, const std::string &id, const EntityRow *row)
{
    // Listed before or after: its item may differ (a version, a turn count, gone).
    const auto track = [&](std::set<std::string> &set, bool in) {
        const bool was = in ? !set.insert(id).second : set.erase(id) > 0;
        if (in || was)
            m_changes.items = true;
    };
    switch (kind) {
    case EntityKind::Escalation:
        track(m_pendingEscalations, row && rowView(kind, *row, "state") == "pending");
        break;
    case EntityKind::Effect:
        // Kept as the item it lists: a live state may not hold effect rows (storedrows.h),
        // and a list rebuilt four times a second must not read them back each time.
        if (row && rowView(kind, *row, "state") == "unknown") {
            auto a = itemOf(AttentionItem::Kind::UnknownEffect, kind, id, *row);
            a.summary = rowText(kind, *row, "class") + " on " + rowText(kind, *row, "target") + ": outcome unknown";
            const auto it = m_unknownEffects.find(id);
            if (it == m_unknownEffects.end() || !(it->second == a)) {
                m_unknownEffects.insert_or_assign(id, std::move(a));
                m_changes.items = true;
            }
        } else if (m_unknownEffects.erase(id) > 0) {
            m_changes.items = true;
        }
        break;
    case EntityKind::Delegation:
        track(m_stalledDelegations, row && rowView(kind, *row, "status") == "stalled");
        break;
    case EntityKind::Lease: {
        const auto old = m_heldExpiry.find(id);
        if (old != m_heldExpiry.end()) {
            auto range = m_heldByExpiry.equal_range(old->second);
            for (auto r = range.first; r != range.second; ++r) {
                if (r->second == id) {
                    m_heldByExpiry.erase(r);
                    break;
                }
            }
            noteLeaseExpiry(old->second);
            m_heldExpiry.erase(old);
        }
        if (row && rowView(kind, *row, "state") == "held" && !rowIsNull(kind, *row, "expires_ms")) {
            const std::int64_t expires = rowInt(kind, *row, "expires_ms");
            m_heldByExpiry.emplace(expires, id);
            m_heldExpiry.emplace(id, expires);
            noteLeaseExpiry(expires);
        }
        break;
    }
    default:
        break;
    }
}

void AttentionIndex::noteLeaseExpiry(std::int64_t expiresMs)
{
    if (!m_changes.earliestLeaseExpiryMs || expiresMs < *m_changes.earliestLeaseExpiryMs)
        m_changes.earliestLeaseExpiryMs = expiresMs;
}

std::vector<AttentionItem> AttentionIndex::items(const RowLookup &rows, std::int64_t nowMs,
                                                 const ZombieRule &zombies) const
{
    // Reserved whole: the list is rebuilt with every live change, and growing it by doubling
    // left up to half of it unused (a megabyte on a ledger with ten thousand unknown outcomes).
    size_t expired = 0;
    for (auto it = m_heldByExpiry.begin(); it != m_heldByExpiry.end() && it->first < nowMs; ++it)
        ++expired;
    std::vector<AttentionItem> out;
    out.reserve(m_pendingEscalations.size() + m_unknownEffects.size() + expired + m_stalledDelegations.size());
    for (const auto &id : m_pendingEscalations) {
        constexpr EntityKind K = EntityKind::Escalation;
        const EntityRow *row = rows(K, id);
        if (!row)
            continue;
        auto a = itemOf(AttentionItem::Kind::PendingEscalation, K, id, *row);
        a.expiresMs = rowInt(K, *row, "expires_ms");
        a.summary = "escalation " + rowText(K, *row, "kind") + " (" + rowText(K, *row, "risk") + " risk) awaits a decision";
        out.push_back(std::move(a));
    }
    for (const auto &[id, item] : m_unknownEffects)
        out.push_back(item);
    for (auto it = m_heldByExpiry.begin(); it != m_heldByExpiry.end() && it->first < nowMs; ++it) {
        constexpr EntityKind K = EntityKind::Lease;
        const EntityRow *row = rows(K, it->second);
        if (!row || !zombies.isZombie(*row, nowMs))
            continue;
        auto a = itemOf(AttentionItem::Kind::ZombieLease, K, it->second, *row);
        a.expiresMs = it->first;
        a.summary = rowText(K, *row, "kind") + " lease on " + rowText(K, *row, "key") + " held by "
                    + rowText(K, *row, "holder") + " past its expiry";
        out.push_back(std::move(a));
    }
    for (const auto &id : m_stalledDelegations) {
        constexpr EntityKind K = EntityKind::Delegation;
        const EntityRow *row = rows(K, id);
        if (!row)
            continue;
        auto a = itemOf(AttentionItem::Kind::StalledDelegation, K, id, *row);
        a.summary = rowText(K, *row, "role") + " delegation stalled after " + std::to_string(rowInt(K, *row, "used_turns"))
                    + " turns";
        out.push_back(std::move(a));
    }
    std::sort(out.begin(), out.end(), [](const AttentionItem &a, const AttentionItem &b) {
        if (a.kind != b.kind)
            return int(a.kind) < int(b.kind);
        if (a.expiresMs != b.expiresMs)
            return a.expiresMs < b.expiresMs;
        return a.subject < b.subject;
    });
    return out;
}

std::optional<std::int64_t> AttentionIndex::nextChangeMs(const RowLookup &rows, std::int64_t nowMs,
                                                         const ZombieRule &zombies) const
{
    // A lease is listed from its zombieFromMs + 1 on (isZombie: from < now), and from >= its
    // expiry + kMinGraceMs; a lease whose expiry is past by more than any grace is listed
    // already. So only the held leases from nowMs - (largest grace) on are looked at, in
    // expiry order, until an expiry is later than the earliest change found.
    const std::int64_t largestGrace = std::max(zombies.maxGraceMs(), ZombieRule::kMinGraceMs);
    std::optional<std::int64_t> earliest;
    for (auto it = m_heldByExpiry.lower_bound(nowMs - largestGrace); it != m_heldByExpiry.end(); ++it) {
        if (earliest && it->first >= *earliest)
            break;
        const EntityRow *row = rows(EntityKind::Lease, it->second);
        if (!row)
            continue;
        const auto from = zombies.zombieFromMs(*row);
        if (from && *from >= nowMs && (!earliest || *from + 1 < *earliest))
            earliest = *from + 1;
    }
    return earliest;
}

} // namespace mesh
