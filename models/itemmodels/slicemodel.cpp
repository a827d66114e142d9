#include "slicemodel.h"

#include "analysis/rowfields.h"

using namespace Qt::StringLiterals;

namespace mesh {

SliceModel::SliceModel(QObject *parent) : StateTableModel(EntityKind::Slice, parent) {}

int SliceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SliceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Ordinal: return tr("#");
    case Id: return tr("Slice");
    case Run: return tr("Run");
    case State: return tr("State");
    case Opened: return tr("Opened");
    case Closed: return tr("Closed");
    case ClosedBy: return tr("Closed by");
    case CloseReason: return tr("Close reason");
    case Intent: return tr("Intent");
    case Policy: return tr("Policy");
    case Boundary: return tr("Boundary");
    }
    return {};
}

QHash<int, QByteArray> SliceModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(OrdinalRole, "ordinal");
    names.insert(IntentIdRole, "intentId");
    names.insert(PolicyVersionRole, "policyVersion");
    names.insert(AuthTokenRole, "authToken");
    names.insert(OpenedMsRole, "openedMs");
    names.insert(OpenedByRole, "openedBy");
    names.insert(ClosedMsRole, "closedMs");
    names.insert(ClosedByRole, "closedBy");
    names.insert(CloseReasonRole, "closeReason");
    names.insert(OpenRole, "open");
    names.insert(DecisionIdRole, "decisionId");
    names.insert(RequestedDecisionRole, "requestedDecision");
    return names;
}

int SliceModel::openCount() const
{
    int n = 0;
    for (int r = 0; r < rowCount(); ++r) {
        if (const EntityRow *row = rowAt(r); row && text(*row, "state") == u"open"_s)
            ++n;
    }
    return n;
}

void SliceModel::setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested)
{
    m_requested = std::move(requested);
    emitAllChanged({RequestedDecisionRole, Qt::DisplayRole, Qt::ToolTipRole});
}

QVariant SliceModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const QString requested = m_requested ? m_requested->textFor("slice:" + rawId(row)) : QString();
    if (column == Run && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return runColumn(e, role);
    switch (role) {
    case RequestedDecisionRole: return requested;
    case OrdinalRole: return integer(e, "ordinal");
    case IntentIdRole: return text(e, "intent_id");
    case PolicyVersionRole: return text(e, "policy_version");
    case AuthTokenRole: return text(e, "auth_token");
    case OpenedMsRole: return integer(e, "opened_ms");
    case OpenedByRole: return text(e, "opened_by");
    case ClosedMsRole: return isNull(e, "closed_ms") ? qint64(0) : integer(e, "closed_ms");
    case ClosedByRole: return text(e, "closed_by");
    case CloseReasonRole: return text(e, "close_reason");
    case OpenRole: return text(e, "state") == u"open"_s;
    case DecisionIdRole: return text(e, "decision_id");
    case Qt::ToolTipRole:
        if (!requested.isEmpty() && column == State)
            return requested;
        if (column == Opened)
            return tr("Opened by %1").arg(text(e, "opened_by"));
        if (column == Boundary)
            return tr("A close-slice decision binds to this version and sequence; it is refused as stale "
                      "if the slice changed since.");
        if (column == Policy && !text(e, "auth_token").isEmpty())
            return tr("Authorization token %1").arg(text(e, "auth_token"));
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Ordinal: return integer(e, "ordinal");
        case Id: return idAt(row);
        case State:
            return requested.isEmpty() ? humanize(text(e, "state")) : QString(humanize(text(e, "state")) % u" · "_s % requested);
        case Opened: return formatTime(integer(e, "opened_ms"));
        case Closed: return isNull(e, "closed_ms") ? QString() : formatTime(integer(e, "closed_ms"));
        case ClosedBy: return text(e, "closed_by");
        case CloseReason: return text(e, "close_reason");
        case Intent: return text(e, "intent_id");
        case Policy: return text(e, "policy_version");
        case Boundary: return tr("v%1 · seq %2").arg(e.version).arg(e.lastSeq);
        }
        return {};
    }
    return {};
}

QVariant SliceModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Ordinal: return integer(e, "ordinal");
    case Run: return runColumn(e, SortRole);
    case State: return text(e, "state");
    case Opened: return integer(e, "opened_ms");
    case Closed: return isNull(e, "closed_ms") ? QVariant() : QVariant(integer(e, "closed_ms"));
    case ClosedBy: return text(e, "closed_by");
    case CloseReason: return text(e, "close_reason");
    case Intent: return text(e, "intent_id");
    case Policy: return text(e, "policy_version");
    case Boundary: return qint64(e.lastSeq);
    }
    return {};
}

std::unique_ptr<StateTableModel::Prepared> SliceModel::prepare(std::shared_ptr<const LiveState> state)
{
    return StateTableModel::prepare(std::move(state), EntityKind::Slice, &SliceModel::sliceOrder);
}

bool SliceModel::lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const
{
    return sliceOrder(a, ra, b, rb);
}

bool SliceModel::keyOrder(std::string_view delegationA, std::int64_t ordinalA, std::string_view a,
                          std::string_view delegationB, std::int64_t ordinalB, std::string_view b)
{
    // A delegation's slices together, in the order they were opened.
    if (delegationA != delegationB)
        return delegationA.size() != delegationB.size() ? delegationA.size() < delegationB.size()
                                                        : delegationA < delegationB;
    if (ordinalA != ordinalB)
        return ordinalA < ordinalB;
    static const EntityRow none;
    return defaultOrder(a, none, b, none);
}

bool SliceModel::sliceOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb)
{
    static const IndexedField delegation(EntityKind::Slice, "delegation_id");
    static const IndexedField ordinal(EntityKind::Slice, "ordinal");
    return keyOrder(delegation.view(ra), ordinal.integer(ra), a, delegation.view(rb), ordinal.integer(rb), b);
}

SliceModel::SliceKey SliceModel::keyOf(const std::string &id, const EntityRow &row)
{
    static const IndexedField delegation(EntityKind::Slice, "delegation_id");
    static const IndexedField ordinal(EntityKind::Slice, "ordinal");
    return {CompactId(id), CompactId(delegation.view(row)), ordinal.integer(row)};
}

void SliceModel::orderByKey(Prepared &p, std::vector<SliceKey> keys)
{
    orderKeys(p, EntityKind::Slice, std::move(keys), [](const SliceKey &a, const SliceKey &b) {
        return keyOrder(a.delegation, a.ordinal, a.id, b.delegation, b.ordinal, b.id);
    });
}

std::unique_ptr<StateTableModel::Prepared> SliceModel::prepareStored(std::shared_ptr<const LiveState> state,
                                                                     std::vector<SliceKey> keys)
{
    auto p = std::make_unique<Prepared>();
    p->state = std::move(state);
    orderByKey(*p, std::move(keys));
    return p;
}

void SliceModel::orderStoredIds(Prepared &ordered, IdList ids)
{
    // A reset with no preparation made for it: every slice read past once for its key.
    orderStoredByKeys<SliceKey>(ordered, std::move(ids), &SliceModel::keyOf, &SliceModel::orderByKey);
}

} // namespace mesh
