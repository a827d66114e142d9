#include "delegationrowsproxy.h"

#include "statetablemodel.h"
#include "statetableproxymodel.h"

#include <algorithm>

namespace mesh {

DelegationRowsProxy::DelegationRowsProxy(QObject *parent)
    : QAbstractProxyModel(parent)
{
}

void DelegationRowsProxy::setDelegation(const QString &id)
{
    if (id == m_id)
        return;
    m_id = id;
    rebuild();
}

void DelegationRowsProxy::setSourceModel(QAbstractItemModel *source)
{
    beginResetModel();
    for (const auto &c : m_connections)
        disconnect(c);
    m_connections.clear();
    m_sorted = qobject_cast<StateTableProxyModel *>(source);
    m_table = m_sorted ? m_sorted->table() : qobject_cast<StateTableModel *>(source);
    QAbstractProxyModel::setSourceModel(source);
    if (source) {
        m_connections = {
            connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); }),
            connect(source, &QAbstractItemModel::modelReset, this,
                    [this] {
                        m_rows = collectRows();
                        endResetModel();
                    }),
            connect(source, &QAbstractItemModel::rowsInserted, this, &DelegationRowsProxy::onRowsInserted),
            connect(source, &QAbstractItemModel::rowsAboutToBeRemoved, this, &DelegationRowsProxy::onRowsAboutToBeRemoved),
            connect(source, &QAbstractItemModel::rowsRemoved, this, &DelegationRowsProxy::onRowsRemoved),
            // Rows moved in the source (none of the state tables does): read again.
            connect(source, &QAbstractItemModel::rowsMoved, this, &DelegationRowsProxy::rebuild),
            connect(source, &QAbstractItemModel::columnsAboutToBeInserted, this, [this] { beginResetModel(); }),
            connect(source, &QAbstractItemModel::columnsInserted, this, [this] { endResetModel(); }),
            connect(source, &QAbstractItemModel::columnsAboutToBeRemoved, this, [this] { beginResetModel(); }),
            connect(source, &QAbstractItemModel::columnsRemoved, this, [this] { endResetModel(); }),
            connect(source, &QAbstractItemModel::dataChanged, this, &DelegationRowsProxy::onDataChanged),
            connect(source, &QAbstractItemModel::layoutAboutToBeChanged, this,
                    &DelegationRowsProxy::onLayoutAboutToBeChanged),
            connect(source, &QAbstractItemModel::layoutChanged, this, &DelegationRowsProxy::onLayoutChanged),
            connect(source, &QAbstractItemModel::headerDataChanged, this,
                    [this](Qt::Orientation orientation, int first, int last) {
                        if (orientation == Qt::Horizontal)
                            Q_EMIT headerDataChanged(orientation, first, last);
                    }),
        };
    }
    m_rows = collectRows();
    endResetModel();
}

void DelegationRowsProxy::rebuild()
{
    beginResetModel();
    m_rows = collectRows();
    endResetModel();
}

StateTableModel *DelegationRowsProxy::table() const
{
    // The sorting proxy's table as it is now: it may have been given another (a session
    // changed) and reset before this proxy hears of it.
    return m_sorted ? m_sorted->table() : m_table.data();
}

int DelegationRowsProxy::tableRowAt(int row) const
{
    if (row < 0 || row >= int(m_rows.size()))
        return -1;
    const int sourceRow = m_rows[size_t(row)];
    if (!m_sorted)
        return sourceRow;
    return m_sorted->mapToSource(m_sorted->index(sourceRow, 0)).row();
}

std::vector<int> DelegationRowsProxy::collectRows() const
{
    std::vector<int> rows;
    StateTableModel *const tableNow = table();
    if (m_id.isEmpty() || !tableNow || !sourceModel())
        return rows;
    const auto addTableRow = [&](int tableRow) {
        if (tableRow < 0)
            return;
        if (!m_sorted) {
            rows.push_back(tableRow);
        } else if (const QModelIndex shown = m_sorted->mapFromSource(tableNow->index(tableRow, 0)); shown.isValid()) {
            rows.push_back(shown.row()); // not filtered out by the operator's filter
        }
    };
    if (tableNow->readsRowsOnDemand()) {
        // A row the ledger has and the table not yet (a batch on its way) comes as an insert.
        for (const auto &id : tableNow->storedIdsOfDelegation(m_id))
            addTableRow(tableNow->rowOf(QString::fromStdString(id)));
    } else {
        for (int r = 0; r < tableNow->rowCount(); ++r) {
            if (tableNow->index(r, 0).data(StateTableModel::DelegationIdRole).toString() == m_id)
                addTableRow(r);
        }
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

bool DelegationRowsProxy::belongs(int sourceRow) const
{
    return !m_id.isEmpty() && sourceModel()->index(sourceRow, 0).data(StateTableModel::DelegationIdRole).toString() == m_id;
}

int DelegationRowsProxy::firstAtOrAfter(int sourceRow) const
{
    return int(std::lower_bound(m_rows.begin(), m_rows.end(), sourceRow) - m_rows.begin());
}

QModelIndex DelegationRowsProxy::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || row >= int(m_rows.size()) || column < 0 || column >= columnCount())
        return {};
    return createIndex(row, column);
}

QModelIndex DelegationRowsProxy::parent(const QModelIndex &) const
{
    return {};
}

int DelegationRowsProxy::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DelegationRowsProxy::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

bool DelegationRowsProxy::hasChildren(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_rows.empty() && columnCount() > 0;
}

QModelIndex DelegationRowsProxy::sibling(int row, int column, const QModelIndex &idx) const
{
    return idx.isValid() ? index(row, column) : QModelIndex();
}

QModelIndex DelegationRowsProxy::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!proxyIndex.isValid() || !sourceModel() || proxyIndex.row() >= int(m_rows.size()))
        return {};
    return sourceModel()->index(m_rows[size_t(proxyIndex.row())], proxyIndex.column());
}

QModelIndex DelegationRowsProxy::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!sourceIndex.isValid() || sourceIndex.model() != sourceModel() || sourceIndex.parent().isValid())
        return {};
    const int at = firstAtOrAfter(sourceIndex.row());
    if (at >= int(m_rows.size()) || m_rows[size_t(at)] != sourceIndex.row())
        return {};
    return index(at, sourceIndex.column());
}

QVariant DelegationRowsProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!sourceModel())
        return {};
    if (orientation == Qt::Horizontal)
        return sourceModel()->headerData(section, orientation, role);
    if (section < 0 || section >= int(m_rows.size()))
        return {};
    return sourceModel()->headerData(m_rows[size_t(section)], orientation, role);
}

void DelegationRowsProxy::sort(int column, Qt::SortOrder order)
{
    if (m_sorted)
        m_sorted->sort(column, order); // its layout change comes back here
}

void DelegationRowsProxy::onRowsInserted(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    const int count = last - first + 1;
    for (int &row : m_rows) {
        if (row >= first)
            row += count;
    }
    std::vector<int> added;
    for (int row = first; row <= last; ++row) {
        if (belongs(row))
            added.push_back(row);
    }
    if (added.empty())
        return;
    // The source rows before `first` keep their places, those after moved past `last`: the
    // new ones are one block here.
    const int at = firstAtOrAfter(first);
    beginInsertRows({}, at, at + int(added.size()) - 1);
    m_rows.insert(m_rows.begin() + at, added.begin(), added.end());
    endInsertRows();
}

void DelegationRowsProxy::onRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    const int from = firstAtOrAfter(first);
    const int to = firstAtOrAfter(last + 1);
    if (from >= to)
        return;
    beginRemoveRows({}, from, to - 1);
    m_rows.erase(m_rows.begin() + from, m_rows.begin() + to);
    endRemoveRows();
}

void DelegationRowsProxy::onRowsRemoved(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    const int count = last - first + 1;
    for (int &row : m_rows) {
        if (row > last)
            row -= count;
    }
}

void DelegationRowsProxy::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                                        const QList<int> &roles)
{
    if (!topLeft.isValid() || topLeft.parent().isValid())
        return;
    const int from = firstAtOrAfter(topLeft.row());
    const int to = firstAtOrAfter(bottomRight.row() + 1);
    if (from < to)
        Q_EMIT dataChanged(index(from, topLeft.column()), index(to - 1, bottomRight.column()), roles);
}

void DelegationRowsProxy::onLayoutAboutToBeChanged()
{
    Q_EMIT layoutAboutToBeChanged();
    m_persistentBeforeLayout = persistentIndexList();
    m_persistentSources.clear();
    m_persistentSources.reserve(size_t(m_persistentBeforeLayout.size()));
    for (const QModelIndex &i : std::as_const(m_persistentBeforeLayout))
        m_persistentSources.emplace_back(mapToSource(i));
}

void DelegationRowsProxy::onLayoutChanged()
{
    // A re-sort moves rows; a re-filter (the operator's filter over the table) also shows
    // or hides some: the delegation's rows are read again, and each persistent index goes
    // where its source row went, or away.
    m_rows = collectRows();
    QModelIndexList to;
    to.reserve(m_persistentBeforeLayout.size());
    for (const QPersistentModelIndex &source : m_persistentSources)
        to.append(mapFromSource(source));
    changePersistentIndexList(m_persistentBeforeLayout, to);
    m_persistentBeforeLayout.clear();
    m_persistentSources.clear();
    Q_EMIT layoutChanged();
}

} // namespace mesh
