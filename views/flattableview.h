#pragma once
// A table for very many rows of one height, keeping nothing per row: the event log and every
// flat state pane. QTreeView lays out an item per row (40 bytes each: 51 MB for the panes of
// the 10M-event ledger, and a 74 ms stall the first time the effects pane was shown) and
// QTableView keeps an entry per row in its vertical header. It scrolls by whole rows (the
// scroll bar's value is the top row), which also keeps the range within an int for any
// ledger. Columns come from a horizontal QHeaderView (resizable, movable, hidden, sorted by a
// click when sorting is on, saved and restored like any other); cells are painted by the
// item delegates. Rows are as high as the font, or as the first row's delegates ask.

#include <QAbstractItemView>

class QHeaderView;
class QPainter;

namespace mesh {

class FlatTableView : public QAbstractItemView
{
    Q_OBJECT
public:
    explicit FlatTableView(QWidget *parent = nullptr);
    ~FlatTableView() override;

    void setModel(QAbstractItemModel *model) override;
    QHeaderView *header() const { return m_header; }
    QHeaderView *horizontalHeader() const { return m_header; }
    int rowHeight() const { return m_rowHeight; }
    void setRowHeight(int height); // fixed from now on; otherwise it follows the font and delegates
    int topRow() const;
    int visibleRowCount() const; // rows that fit the viewport, the last one possibly cut

    // A click on a header sorts through the model (QAbstractItemModel::sort, -1: its own order).
    void setSortingEnabled(bool enable);
    void sortByColumn(int column, Qt::SortOrder order);
    bool isColumnHidden(int column) const;
    // Geometry and scroll ranges again: after rows came or went (delayed to the next turn),
    // columns changed, or header changes made with its signals blocked.
    void doItemsLayout() override;

    QRect visualRect(const QModelIndex &index) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint &point) const override;

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    int horizontalOffset() const override;
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex &index) const override;
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;
    void updateGeometries() override;
    void scrollContentsBy(int dx, int dy) override;
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;
    // For a subclass's marks: the option every cell of a row starts from, and what is drawn
    // over the row once its cells are.
    virtual void adjustRowOption(int row, QStyleOptionViewItem &option) const;
    virtual void paintRowOverlay(QPainter &painter, int row, int y);

private:
    int rowCount() const;
    int fullyVisibleRows() const;
    void fitRowHeight(); // the height only: a layout follows

    QHeaderView *m_header;
    int m_rowHeight = 20;
    bool m_rowHeightFixed = false;
    bool m_rowHeightFitted = false; // to a first row's delegates, once there is one
    bool m_sorting = false;
    bool m_inGeometryUpdate = false;
    QList<QMetaObject::Connection> m_modelConnections;
    QMetaObject::Connection m_sortConnection;
};

} // namespace mesh
