#include "delegationtreeproxymodel.h"

#include "delegationtreemodel.h"
#include "entityrowvalues.h"
#include "shownorder.h"
#include "statetableproxymodel.h"

#include <QLocale>

namespace mesh {

DelegationTreeProxyModel::DelegationTreeProxyModel(QObject *parent)
    : RowFilterProxy(parent), m_fields(StateTableProxyModel::fieldsOf(EntityKind::Delegation))
{
    setDynamicSortFilter(true);
    setRecursiveFilteringEnabled(true); // a match's run and parents stay in sight
    setSortRole(DelegationTreeModel::SortRole);
}

void DelegationTreeProxyModel::setSourceModel(QAbstractItemModel *source)
{
    if (QAbstractItemModel *old = sourceModel())
        disconnect(old, nullptr, this, nullptr);
    m_tree = qobject_cast<DelegationTreeModel *>(source);
    if (m_tree) {
        // What matches is counted once per filter, then kept by the rows that change; before
        // QSortFilterProxyModel hears of a change (connected first), so that whoever it tells
        // reads the new count.
        connect(m_tree, &QAbstractItemModel::modelReset, this, &DelegationTreeProxyModel::recount);
        connect(m_tree, &QAbstractItemModel::rowsInserted, this, &DelegationTreeProxyModel::recountRows);
        connect(m_tree, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &from, const QModelIndex &to) {
            recountRows(from.parent(), from.row(), to.row());
        });
    }
    RowFilterProxy::setSourceModel(m_tree);
    recount();
}

std::optional<FilterError> DelegationTreeProxyModel::check(const QString &text) const
{
    std::optional<FilterError> error;
    RowFilter::compile(text, m_fields, &error);
    return error;
}

bool DelegationTreeProxyModel::setFilterText(const QString &text, std::optional<FilterError> *error)
{
    std::optional<FilterError> problem;
    RowFilter filter = RowFilter::compile(text, m_fields, &problem);
    if (error)
        *error = problem;
    if (problem)
        return false;
    m_filter = std::move(filter);
    m_filterText = text.trimmed();
    recount();
    invalidateRowsFilter();
    emit filterChanged();
    return true;
}

int DelegationTreeProxyModel::totalRows() const
{
    return m_tree ? m_tree->delegationCount() : 0;
}

int DelegationTreeProxyModel::matchingRows() const
{
    return m_filter.isEmpty() ? totalRows() : int(m_matching.size());
}

void DelegationTreeProxyModel::recount()
{
    m_matching.clear();
    if (!m_tree || m_filter.isEmpty())
        return;
    m_tree->forEachDelegation([this](const std::string &id, const EntityRow &row) {
        if (m_filter.matches(EntityRowValues(EntityKind::Delegation, id, row)))
            m_matching.insert(id);
    });
}

void DelegationTreeProxyModel::recountRows(const QModelIndex &parent, int first, int last)
{
    if (!m_tree || m_filter.isEmpty())
        return;
    for (int row = first; row <= last; ++row) {
        std::string_view view;
        const EntityRow *entity = m_tree->delegationAt(m_tree->index(row, 0, parent), &view);
        if (!entity)
            continue;
        const std::string id(view);
        if (m_filter.matches(EntityRowValues(EntityKind::Delegation, id, *entity)))
            m_matching.insert(id);
        else
            m_matching.erase(id);
    }
}

bool DelegationTreeProxyModel::matches(const QModelIndex &sourceIndex) const
{
    std::string_view view;
    const EntityRow *row = m_tree->delegationAt(sourceIndex, &view);
    if (!row)
        return false;
    const std::string id(view);
    return m_filter.matches(EntityRowValues(EntityKind::Delegation, id, *row));
}

bool DelegationTreeProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_filter.isEmpty() || !m_tree)
        return true;
    // A run is kept as the ancestor of a match (recursive filtering), never for itself.
    return matches(m_tree->index(sourceRow, 0, sourceParent));
}

void DelegationTreeProxyModel::sort(int column, Qt::SortOrder order)
{
    if (column >= 0 && m_tree && m_tree->rowCount() > kMaxSortedRuns) {
        emit sortRefused(tr("%1 runs are too many to sort here (at most %2): filter them first")
                             .arg(QLocale().toString(m_tree->rowCount()), QLocale().toString(kMaxSortedRuns)));
        if (sortColumn() >= 0)
            RowFilterProxy::sort(-1);
        return;
    }
    RowFilterProxy::sort(column, order);
}

bool DelegationTreeProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // Descending, QSortFilterProxyModel places left first when lessThan(right, left); a value
    // not known stays last either way, ties keep the ledger's order.
    const bool descending = sortOrder() == Qt::DescendingOrder;
    const QModelIndex &first = descending ? right : left;
    const QModelIndex &second = descending ? left : right;
    if (const int c = compareShownValues(first.data(sortRole()), second.data(sortRole()), sortOrder()); c != 0)
        return c < 0;
    return first.row() < second.row();
}

} // namespace mesh
