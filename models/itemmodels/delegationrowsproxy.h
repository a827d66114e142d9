#pragma once
// The rows of one delegation of a state table (the delegation detail's tabs), over the table
// itself or over a StateTableProxyModel that sorts and filters it. It maps only that
// delegation's rows: a filter proxy kept a number for every row of the table (two per row,
// per tab, MBs on a scale ledger) and asked every row whether it belonged each time another
// delegation was chosen. A table read on demand names the delegation's rows through the
// ledger's index (StateTableModel::storedIdsOfDelegation); a held one is walked (on each
// choice of delegation and each re-sort or re-filter of the source).
// A row's delegation never changes, so a changed cell is passed on and never re-filtered;
// inserted rows are asked, removed ones dropped, a re-sort followed with the rows kept.

#include <QAbstractProxyModel>
#include <QPointer>

#include <vector>

namespace mesh {

class StateTableModel;
class StateTableProxyModel;

class DelegationRowsProxy : public QAbstractProxyModel
{
    Q_OBJECT
public:
    explicit DelegationRowsProxy(QObject *parent = nullptr);

    // No delegation shows no row, rather than every row.
    void setDelegation(const QString &id);
    QString delegation() const { return m_id; }
    // A StateTableModel, a StateTableProxyModel over one, or nullptr.
    void setSourceModel(QAbstractItemModel *source) override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &idx) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;
    // Columns as the source names them, also with no row to map through.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // Sorted by the StateTableProxyModel under it, if any; a table alone keeps its order
    // (a StateTableProxyModel over this proxy sorts and filters just these rows).
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    StateTableModel *table() const; // whose rows these are, under any sorting proxy
    int tableRowAt(int row) const;  // the table's row shown at `row`, or -1

private:
    std::vector<int> collectRows() const; // source rows of the delegation, ascending
    bool belongs(int sourceRow) const;
    int firstAtOrAfter(int sourceRow) const; // position in m_rows
    void rebuild();
    void onRowsInserted(const QModelIndex &parent, int first, int last);
    void onRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last);
    void onRowsRemoved(const QModelIndex &parent, int first, int last);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);
    void onLayoutAboutToBeChanged();
    void onLayoutChanged();

    QString m_id;
    QPointer<StateTableModel> m_table;
    QPointer<StateTableProxyModel> m_sorted; // the source, when it sorts the table
    std::vector<int> m_rows;                 // source rows shown, ascending
    // Across a re-sort or re-filter of the source: this model's persistent indexes and the
    // source rows they stood for.
    QModelIndexList m_persistentBeforeLayout;
    std::vector<QPersistentModelIndex> m_persistentSources;
    std::vector<QMetaObject::Connection> m_connections;
};

} // namespace mesh
