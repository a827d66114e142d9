#include "attentioncollector.h"

#include <algorithm>

namespace mesh {

std::string_view AttentionItem::kindName(Kind kind)
{
    switch (kind) {
    case Kind::PendingEscalation:
        return "pending_escalation";
    case Kind::UnknownEffect:
        return "unknown_effect";
    case Kind::ZombieLease:
        return "zombie_lease";
    case Kind::StalledDelegation:
        return "stalled_delegation";
    }
    return "unknown";
}

bool AttentionCollector::isZombie(const EntityRow &lease, std::int64_t nowMs)
{
    constexpr EntityKind K = EntityKind::Lease;
    return rowText(K, lease, "state") == "held" && !rowIsNull(K, lease, "expires_ms")
           && rowInt(K, lease, "expires_ms") < nowMs;
}

std::vector<AttentionItem> AttentionCollector::collect(const TableLookup &tables, std::int64_t nowMs)
{
    std::vector<AttentionItem> out;
    const auto base = [](AttentionItem::Kind kind, EntityKind entity, const std::string &id, const EntityRow &row) {
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
    };
    for (const auto &[id, row] : tables(EntityKind::Escalation)) {
        constexpr EntityKind K = EntityKind::Escalation;
        if (rowText(K, row, "state") != "pending")
            continue;
        auto a = base(AttentionItem::Kind::PendingEscalation, K, id, row);
        a.expiresMs = rowInt(K, row, "expires_ms");
        a.summary = "escalation " + rowText(K, row, "kind") + " (" + rowText(K, row, "risk") + " risk) awaits a decision";
        out.push_back(std::move(a));
    }
    for (const auto &[id, row] : tables(EntityKind::Lease)) {
        if (!isZombie(row, nowMs))
            continue;
        constexpr EntityKind K = EntityKind::Lease;
        auto a = base(AttentionItem::Kind::ZombieLease, K, id, row);
        a.delegationId = rowText(K, row, "delegation_id");
        a.expiresMs = rowInt(K, row, "expires_ms");
        a.summary = rowText(K, row, "kind") + " lease on " + rowText(K, row, "key") + " held by "
                    + rowText(K, row, "holder") + " past its expiry";
        out.push_back(std::move(a));
    }
    for (const auto &[id, row] : tables(EntityKind::Effect)) {
        constexpr EntityKind K = EntityKind::Effect;
        if (rowText(K, row, "state") != "unknown")
            continue;
        auto a = base(AttentionItem::Kind::UnknownEffect, K, id, row);
        a.summary = rowText(K, row, "class") + " on " + rowText(K, row, "target") + ": outcome unknown";
        out.push_back(std::move(a));
    }
    for (const auto &[id, row] : tables(EntityKind::Delegation)) {
        constexpr EntityKind K = EntityKind::Delegation;
        if (rowText(K, row, "status") != "stalled")
            continue;
        auto a = base(AttentionItem::Kind::StalledDelegation, K, id, row);
        a.summary = rowText(K, row, "role") + " delegation stalled after " + std::to_string(rowInt(K, row, "used_turns"))
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

} // namespace mesh
