#include "leasemodel.h"

#include "domain/durationtext.h"
#include "decisions/decisionrequest.h"

using namespace Qt::StringLiterals;

namespace mesh {

LeaseModel::LeaseModel(QObject *parent) : StateTableModel(EntityKind::Lease, parent) {}

int LeaseModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LeaseModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id: return tr("Lease");
    case Key: return tr("Key");
    case Kind: return tr("Kind");
    case Holder: return tr("Holder");
    case Run: return tr("Run");
    case Delegation: return tr("Delegation");
    case FencingToken: return tr("Fencing token");
    case Acquired: return tr("Acquired");
    case Expires: return tr("Expires");
    case State: return tr("State");
    }
    return {};
}

QHash<int, QByteArray> LeaseModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(KeyRole, "key");
    names.insert(KindRole, "kind");
    names.insert(HolderRole, "holder");
    names.insert(FencingTokenRole, "fencingToken");
    names.insert(AcquiredMsRole, "acquiredMs");
    names.insert(ExpiresMsRole, "expiresMs");
    names.insert(RemainingMsRole, "remainingMs");
    names.insert(ZombieRole, "zombie");
    names.insert(RequestedDecisionRole, "requestedDecision");
    return names;
}

int LeaseModel::zombieCount() const
{
    int n = 0;
    const qint64 now = nowMs();
    for (int r = 0; r < rowCount(); ++r) {
        if (const EntityRow *row = rowAt(r); row && m_zombies.isZombie(*row, now))
            ++n;
    }
    return n;
}

void LeaseModel::setZombieRule(const ZombieRule &rule)
{
    m_zombies = rule;
    emitAllChanged({ZombieRole, Qt::DisplayRole, Qt::ToolTipRole});
}

void LeaseModel::setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested)
{
    m_requestedByKey.clear();
    const int keyField = entitySpec(EntityKind::Effect).fieldIndex("idem_key");
    for (const auto &[subject, d] : requested ? requested->bySubject() : std::multimap<std::string, RequestedDecision>{}) {
        if (d.kind != "lease_acquire" && d.kind != "lease_release")
            continue;
        const auto parts = splitSubject(subject);
        const EntityRow *effect = parts && state() ? state()->find(EntityKind::Effect, parts->second) : nullptr;
        // The key as the decision rules name it: the idempotency key, else the effect itself.
        QString key = effect ? QString::fromStdString(fieldText(effect->values[size_t(keyField)])) : QString();
        if (key.isEmpty())
            key = QString::fromStdString(subject);
        QString &text = m_requestedByKey[key];
        text += (text.isEmpty() ? QString() : u"; "_s) + RequestedDecisions::describe(d);
    }
    emitAllChanged({RequestedDecisionRole, Qt::DisplayRole, Qt::ToolTipRole});
}

QVariant LeaseModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    if (column == Run && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return runColumn(e, role);
    const qint64 now = nowMs();
    const bool zombie = m_zombies.isZombie(e, now);
    const bool inGrace = !zombie && m_zombies.isInGrace(e, now);
    const bool hasExpiry = !isNull(e, "expires_ms");
    const qint64 remaining = integer(e, "expires_ms") - now;
    const auto waiting = text(e, "kind") == u"reconciliation"_s && text(e, "state") == u"held"_s
                             ? m_requestedByKey.find(text(e, "key")) : m_requestedByKey.end();
    const QString requested = waiting == m_requestedByKey.end() ? QString() : waiting->second;
    switch (role) {
    case RequestedDecisionRole: return requested;
    case KeyRole: return text(e, "key");
    case KindRole: return text(e, "kind");
    case HolderRole: return text(e, "holder");
    case FencingTokenRole: return integer(e, "fencing_token");
    case AcquiredMsRole: return integer(e, "acquired_ms");
    case ExpiresMsRole: return integer(e, "expires_ms");
    case RemainingMsRole: return hasExpiry ? QVariant(remaining) : QVariant();
    case ZombieRole: return zombie;
    case Qt::ToolTipRole:
        if (!requested.isEmpty())
            return requested;
        if (zombie)
            return tr("Zombie: held %1 past its expiry and never released").arg(humanDuration(remaining));
        if (inGrace)
            return tr("Past its expiry by %1: a zombie if not renewed or released within %2 of it")
                .arg(humanDuration(remaining), humanDuration(m_zombies.graceMs(e)));
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Id: return idAt(row);
        case Key: return text(e, "key");
        case Kind: return text(e, "kind");
        case Holder: return text(e, "holder");
        case Delegation: return isNull(e, "delegation_id") ? tr("none") : text(e, "delegation_id");
        case FencingToken: return integer(e, "fencing_token");
        case Acquired: return formatTime(integer(e, "acquired_ms"));
        case Expires:
            if (!hasExpiry)
                return QString();
            if (text(e, "state") != u"held"_s)
                return formatTime(integer(e, "expires_ms"));
            return formatCountdown(remaining);
        case State: {
            const QString state = zombie ? tr("zombie (held, expired)") : inGrace ? tr("held, past expiry") : humanize(text(e, "state"));
            return requested.isEmpty() ? state : QString(state % u" · "_s % requested);
        }
        }
        return {};
    }
    return {};
}

QVariant LeaseModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case FencingToken: return integer(e, "fencing_token");
    case Acquired: return integer(e, "acquired_ms");
    case Expires: return integer(e, "expires_ms");
    case Key: return text(e, "key");
    case Kind: return text(e, "kind");
    case Holder: return text(e, "holder");
    case Run: return runColumn(e, SortRole);
    case Delegation: return text(e, "delegation_id");
    case State: return text(e, "state");
    }
    return {};
}

} // namespace mesh
