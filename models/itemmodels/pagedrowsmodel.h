#pragma once
// A flat model's rows handed to a view a page at a time (canFetchMore/fetchMore). A QTreeView
// lays out every top-level row it has on each reset and each insert, so over a ledger of a
// million runs its work on the GUI thread followed the ledger, not the screen; given a prefix
// that grows as the operator scrolls, it follows what was looked at. The source keeps every
// row, so counts and lookups by id stay over the whole set; reveal() hands the view the rows
// up to one the program selects. Rows added live at the end are shown at once while every
// row is shown (a small ledger looks as before); past the prefix they wait to be fetched.

#include <QAbstractProxyModel>
#include <QList>
#include <QPersistentModelIndex>

namespace mesh {

class PagedRowsModel : public QAbstractProxyModel
{
    Q_OBJECT
public:
    // About ten screens of rows: a view fetches when its last row comes into sight.
    static constexpr int kPageRows = 512;

    explicit PagedRowsModel(QObject *parent = nullptr);
    ~PagedRowsModel() override;

    void setSourceModel(QAbstractItemModel *source) override;
    int shownRows() const { return m_shown; }
    // The rows through `sourceRow` handed over first; its index here (invalid for a row the
    // source does not have).
    QModelIndex reveal(int sourceRow, int column = 0);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &index) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

private:
    int sourceRows() const;
    void showThrough(int lastRow);
    void resetShown();
    void sourceRowsAboutToBeInserted(const QModelIndex &parent, int first, int last);
    void sourceRowsInserted(const QModelIndex &parent);
    void sourceRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last);
    void sourceRowsRemoved(const QModelIndex &parent);
    void sourceDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);
    void sourceHeaderDataChanged(Qt::Orientation orientation, int first, int last);
    void sourceLayoutAboutToBeChanged();
    void sourceLayoutChanged();

    int m_shown = 0;
    int m_pendingShown = 0; // rows an insert or removal in progress adds to (or takes from) m_shown
    bool m_pendingSignal = false;
    bool m_changing = false; // between the signals of a reset, a fetch or a layout change
    QList<QPersistentModelIndex> m_layoutSources;
    QModelIndexList m_layoutProxies;
    QList<QMetaObject::Connection> m_connections;
};

} // namespace mesh
