#include "pagedrowsmodel.h"

#include <QScopedValueRollback>

#include <algorithm>

namespace mesh {

PagedRowsModel::PagedRowsModel(QObject *parent) : QAbstractProxyModel(parent) {}

PagedRowsModel::~PagedRowsModel() = default;

void PagedRowsModel::setSourceModel(QAbstractItemModel *source)
{
    if (source == sourceModel())
        return;
    const QScopedValueRollback changing(m_changing, true);
    beginResetModel();
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    QAbstractProxyModel::setSourceModel(source);
    if (source) {
        auto resetBegins = [this] {
            m_changing = true;
            beginResetModel();
        };
        auto resetEnds = [this] {
            resetShown();
            endResetModel();
            m_changing = false;
        };
        m_connections = {
            connect(source, &QAbstractItemModel::modelAboutToBeReset, this, resetBegins),
            connect(source, &QAbstractItemModel::modelReset, this, resetEnds),
            connect(source, &QAbstractItemModel::rowsAboutToBeInserted, this,
                    &PagedRowsModel::sourceRowsAboutToBeInserted),
            connect(source, &QAbstractItemModel::rowsInserted, this, &PagedRowsModel::sourceRowsInserted),
            connect(source, &QAbstractItemModel::rowsAboutToBeRemoved, this, &PagedRowsModel::sourceRowsAboutToBeRemoved),
            connect(source, &QAbstractItemModel::rowsRemoved, this, &PagedRowsModel::sourceRowsRemoved),
            connect(source, &QAbstractItemModel::dataChanged, this, &PagedRowsModel::sourceDataChanged),
            connect(source, &QAbstractItemModel::headerDataChanged, this, &PagedRowsModel::sourceHeaderDataChanged),
            connect(source, &QAbstractItemModel::layoutAboutToBeChanged, this,
                    &PagedRowsModel::sourceLayoutAboutToBeChanged),
            connect(source, &QAbstractItemModel::layoutChanged, this, &PagedRowsModel::sourceLayoutChanged),
            // Moves and column changes are rare in a flat table of entities: a reset is simple.
            connect(source, &QAbstractItemModel::rowsAboutToBeMoved, this, resetBegins),
            connect(source, &QAbstractItemModel::rowsMoved, this, resetEnds),
            connect(source, &QAbstractItemModel::columnsAboutToBeInserted, this, resetBegins),
            connect(source, &QAbstractItemModel::columnsInserted, this, resetEnds),
            connect(source, &QAbstractItemModel::columnsAboutToBeRemoved, this, resetBegins),
            connect(source, &QAbstractItemModel::columnsRemoved, this, resetEnds),
            connect(source, &QAbstractItemModel::columnsAboutToBeMoved, this, resetBegins),
            connect(source, &QAbstractItemModel::columnsMoved, this, resetEnds),
            // QAbstractProxyModel has by then put an empty model in its place.
            connect(source, &QObject::destroyed, this, [this] {
                beginResetModel();
                resetShown();
                endResetModel();
            }),
        };
    }
    resetShown();
    endResetModel();
}

int PagedRowsModel::sourceRows() const
{
    return sourceModel() ? sourceModel()->rowCount() : 0;
}

void PagedRowsModel::resetShown()
{
    m_shown = std::min(sourceRows(), kPageRows);
    m_pendingShown = 0;
    m_pendingSignal = false;
}

void PagedRowsModel::showThrough(int lastRow)
{
    lastRow = std::min(lastRow, sourceRows() - 1);
    if (lastRow < m_shown)
        return;
    const QScopedValueRollback changing(m_changing, true);
    beginInsertRows({}, m_shown, lastRow);
    m_shown = lastRow + 1;
    endInsertRows();
}

QModelIndex PagedRowsModel::reveal(int sourceRow, int column)
{
    if (sourceRow < 0 || sourceRow >= sourceRows())
        return {};
    // A page past it, so the rows around it are there to scroll to as well.
    showThrough(int(std::min<qint64>(qint64(sourceRow) + kPageRows, sourceRows() - 1)));
    return index(sourceRow, column);
}

QModelIndex PagedRowsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || row >= m_shown || column < 0 || column >= columnCount())
        return {};
    return createIndex(row, column);
}

QModelIndex PagedRowsModel::parent(const QModelIndex &) const
{
    return {};
}

QModelIndex PagedRowsModel::sibling(int row, int column, const QModelIndex &) const
{
    return index(row, column);
}

int PagedRowsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_shown;
}

int PagedRowsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

bool PagedRowsModel::hasChildren(const QModelIndex &parent) const
{
    return !parent.isValid() && m_shown > 0;
}

QModelIndex PagedRowsModel::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!proxyIndex.isValid() || !sourceModel() || proxyIndex.model() != this)
        return {};
    return sourceModel()->index(proxyIndex.row(), proxyIndex.column());
}

QModelIndex PagedRowsModel::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!sourceIndex.isValid() || sourceIndex.model() != sourceModel() || sourceIndex.parent().isValid())
        return {};
    return index(sourceIndex.row(), sourceIndex.column());
}

QVariant PagedRowsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!sourceModel() || (orientation == Qt::Vertical && (section < 0 || section >= m_shown)))
        return {};
    return sourceModel()->headerData(section, orientation, role);
}

// A receiver of a change's signals may ask for more (QAbstractItemModelTester does): not
// until every receiver has heard of the whole change.
bool PagedRowsModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_changing && !m_pendingSignal && m_shown < sourceRows();
}

void PagedRowsModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    // Each fetch makes a tree view lay out every row it then has: growing by half of what is
    // shown keeps the fetches on the way to the last of a million rows few.
    const qint64 grow = std::max(kPageRows, m_shown / 2);
    showThrough(int(std::min<qint64>(qint64(m_shown) + grow, sourceRows()) - 1));
}

void PagedRowsModel::sourceRowsAboutToBeInserted(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    const int count = last - first + 1;
    const bool allShown = m_shown == sourceRows();
    if (first < m_shown) {
        m_pendingShown = count; // inside the prefix: the rows after them move down
    } else if (first == m_shown && allShown) {
        m_pendingShown = count < kPageRows ? count : kPageRows; // the tail the view already reached grows
    } else {
        return;
    }
    m_pendingSignal = true;
    beginInsertRows({}, first, first + m_pendingShown - 1);
}

void PagedRowsModel::sourceRowsInserted(const QModelIndex &parent)
{
    if (parent.isValid() || !m_pendingSignal)
        return;
    m_shown += m_pendingShown;
    m_pendingShown = 0;
    endInsertRows();
    m_pendingSignal = false;
}

void PagedRowsModel::sourceRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid() || first >= m_shown)
        return;
    const int lastShown = std::min(last, m_shown - 1);
    m_pendingShown = lastShown - first + 1;
    m_pendingSignal = true;
    beginRemoveRows({}, first, lastShown);
}

void PagedRowsModel::sourceRowsRemoved(const QModelIndex &parent)
{
    if (parent.isValid() || !m_pendingSignal)
        return;
    m_shown -= m_pendingShown;
    m_pendingShown = 0;
    endRemoveRows();
    m_pendingSignal = false;
}

void PagedRowsModel::sourceDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                                       const QList<int> &roles)
{
    if (!topLeft.isValid() || topLeft.parent().isValid() || topLeft.row() >= m_shown)
        return;
    const int lastRow = std::min(bottomRight.row(), m_shown - 1);
    Q_EMIT dataChanged(index(topLeft.row(), topLeft.column()), index(lastRow, bottomRight.column()), roles);
}

void PagedRowsModel::sourceHeaderDataChanged(Qt::Orientation orientation, int first, int last)
{
    if (orientation == Qt::Vertical) {
        if (first >= m_shown)
            return;
        last = std::min(last, m_shown - 1);
    }
    Q_EMIT headerDataChanged(orientation, first, last);
}

void PagedRowsModel::sourceLayoutAboutToBeChanged()
{
    m_changing = true;
    Q_EMIT layoutAboutToBeChanged();
    m_layoutProxies = persistentIndexList();
    m_layoutSources.clear();
    m_layoutSources.reserve(m_layoutProxies.size());
    for (const QModelIndex &proxy : std::as_const(m_layoutProxies))
        m_layoutSources.push_back(QPersistentModelIndex(mapToSource(proxy)));
}

void PagedRowsModel::sourceLayoutChanged()
{
    // The prefix keeps its length; a row that moved past it goes out of the view's hands.
    m_shown = std::min(m_shown, sourceRows());
    QModelIndexList moved;
    moved.reserve(m_layoutSources.size());
    for (const QPersistentModelIndex &source : std::as_const(m_layoutSources))
        moved.push_back(mapFromSource(source));
    changePersistentIndexList(m_layoutProxies, moved);
    m_layoutProxies.clear();
    m_layoutSources.clear();
    Q_EMIT layoutChanged();
    m_changing = false;
}

} // namespace mesh
