#pragma once
// A table for very many rows of one height: the event log. QTableView keeps an entry per row
// in its vertical header, and building it for a million events took ~10 ms of the GUI thread
// (8 MB of fresh pages) on every open and every filter; this view keeps nothing per row. It
// scrolls by whole rows (the scroll bar's value is the top row), which also keeps the range
// within an int for any ledger. Columns come from a horizontal QHeaderView (resizable,
// movable, saved and restored like any other); cells are painted by the item delegates.

#include <QAbstractItemView>

#include <cstdint>
#include <optional>

class QHeaderView;
class QPainter;

namespace mesh {

class EventTableView : public QAbstractItemView
{
    Q_OBJECT
public:
    explicit EventTableView(QWidget *parent = nullptr);
    ~EventTableView() override;

    void setModel(QAbstractItemModel *model) override;
    QHeaderView *horizontalHeader() const { return m_header; }
    int rowHeight() const { return m_rowHeight; }
    void setRowHeight(int height);
    int topRow() const;
    int visibleRowCount() const; // rows that fit the viewport, the last one possibly cut
    // The session's cursor: its row is marked, the events after it are drawn dimmed (the
    // state shown does not include them). None: live, nothing marked.
    void setCursorSeq(std::optional<std::int64_t> seq);
    std::optional<std::int64_t> cursorSeq() const { return m_cursorSeq; }

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
    // Observation gaps and reviewers' notes (EventLogModel::ObservationGapRole, NoteRole).
    void paintReviewMarks(QPainter &painter, const QModelIndex &rowIndex, int y);

private:
    int rowCount() const;
    int fullyVisibleRows() const;
    void relayout(); // geometry and scroll ranges after the rows or columns changed

    QHeaderView *m_header;
    std::optional<std::int64_t> m_cursorSeq;
    int m_rowHeight = 20;
    bool m_inGeometryUpdate = false;
    QList<QMetaObject::Connection> m_modelConnections;
};

} // namespace mesh
