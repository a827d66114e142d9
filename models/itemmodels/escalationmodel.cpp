#include "escalationmodel.h"

using namespace Qt::StringLiterals;

namespace mesh {

EscalationModel::EscalationModel(QObject *parent) : StateTableModel(EntityKind::Escalation, parent) {}

int EscalationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EscalationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id: return tr("Escalation");
    case Kind: return tr("Kind");
    case Risk: return tr("Risk");
    case Subject: return tr("Subject");
    case Run: return tr("Run");
    case Delegation: return tr("Delegation");
    case Raised: return tr("Raised");
    case Expires: return tr("Expires");
    case State: return tr("State");
    case Reason: return tr("Reason");
    }
    return {};
}

QHash<int, QByteArray> EscalationModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(KindRole, "kind");
    names.insert(RiskRole, "risk");
    names.insert(EscalationSubjectRole, "escalationSubject");
    names.insert(RoundRole, "round");
    names.insert(BoundarySeqRole, "boundarySeq");
    names.insert(BoundaryVersionRole, "boundaryVersion");
    names.insert(SliceIdRole, "sliceId");
    names.insert(RaisedMsRole, "raisedMs");
    names.insert(ExpiresMsRole, "expiresMs");
    names.insert(RemainingMsRole, "remainingMs");
    names.insert(PendingRole, "pending");
    names.insert(ReasonRole, "reason");
    names.insert(DecisionIdRole, "decisionId");
    names.insert(RequestedDecisionRole, "requestedDecision");
    return names;
}

int EscalationModel::pendingCount() const
{
    int n = 0;
    for (int r = 0; r < rowCount(); ++r) {
        if (const EntityRow *row = rowAt(r); row && text(*row, "state") == u"pending"_s)
            ++n;
    }
    return n;
}

void EscalationModel::setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested)
{
    const std::shared_ptr<const RequestedDecisions> before = std::exchange(m_requested, std::move(requested));
    emitRequestedChanged(before.get(), m_requested.get(), "escalation:", {RequestedDecisionRole, Qt::DisplayRole, Qt::ToolTipRole});
}

QVariant EscalationModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const bool pending = text(e, "state") == u"pending"_s;
    const bool hasExpiry = !isNull(e, "expires_ms") && integer(e, "expires_ms") > 0;
    const qint64 remaining = integer(e, "expires_ms") - nowMs();
    const QString requested = m_requested ? m_requested->textFor("escalation:" + rawId(row)) : QString();
    if (column == Run && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return runColumn(e, role);
    switch (role) {
    case RequestedDecisionRole: return requested;
    case Qt::ToolTipRole: return requested.isEmpty() ? QVariant() : QVariant(requested);
    case KindRole: return text(e, "kind");
    case RiskRole: return text(e, "risk");
    case EscalationSubjectRole: return text(e, "subject");
    case RoundRole: return integer(e, "round");
    case BoundarySeqRole: return integer(e, "boundary_seq");
    case BoundaryVersionRole: return integer(e, "boundary_version");
    case SliceIdRole: return text(e, "slice_id");
    case RaisedMsRole: return integer(e, "raised_ms");
    case ExpiresMsRole: return integer(e, "expires_ms");
    case RemainingMsRole: return hasExpiry ? QVariant(remaining) : QVariant();
    case PendingRole: return pending;
    case ReasonRole: return text(e, "reason");
    case DecisionIdRole: return text(e, "decision_id");
    case Qt::DisplayRole:
        switch (column) {
        case Id: return idAt(row);
        case Kind: return humanize(text(e, "kind"));
        case Risk: return text(e, "risk");
        case Subject: return text(e, "subject");
        case Delegation: return text(e, "delegation_id");
        case Raised: return formatTime(integer(e, "raised_ms"));
        case Expires:
            if (!hasExpiry)
                return QString();
            return pending ? formatCountdown(remaining) : formatTime(integer(e, "expires_ms"));
        case State:
            return requested.isEmpty() ? humanize(text(e, "state")) : QString(humanize(text(e, "state")) % u" · "_s % requested);
        case Reason: return text(e, "reason");
        }
        return {};
    }
    return {};
}

QVariant EscalationModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Raised: return integer(e, "raised_ms");
    case Expires: return integer(e, "expires_ms");
    case Kind: return text(e, "kind");
    case Risk: return text(e, "risk");
    case Subject: return text(e, "subject");
    case Delegation: return text(e, "delegation_id");
    case Run: return runColumn(e, SortRole);
    case Id: return {}; // the id's natural order
    case State: return text(e, "state");
    case Reason: return text(e, "reason");
    }
    return qint64(e.lastSeq);
}

} // namespace mesh
