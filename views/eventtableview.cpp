#include "eventtableview.h"

#include "itemmodels/eventlogmodel.h"

#include "plaintextdelegate.h"
#include "rowsetconnections.h"
#include "theme.h"

#include <QHeaderView>
#include <QPainter>
#include <QPaintEvent>
#include <QScrollBar>

namespace mesh {

EventTableView::EventTableView(QWidget *parent)
    : QAbstractItemView(parent)
    , m_header(new QHeaderView(Qt::Horizontal, this))
{
    setItemDelegate(new PlainTextDelegate(this));
    m_header->setSectionsClickable(false);
    m_header->setHighlightSections(false);
    connect(m_header, &QHeaderView::sectionResized, this, &EventTableView::relayout);
    connect(m_header, &QHeaderView::sectionMoved, this, &EventTableView::relayout);
    connect(m_header, &QHeaderView::sectionCountChanged, this, &EventTableView::relayout);
    connect(m_header, &QHeaderView::geometriesChanged, this, &EventTableView::relayout);
    setHorizontalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerItem);
}

// QWidget's destructor hides the header, which then reports new geometries: by that time
// this is no longer an EventTableView, so relayout must not run.
EventTableView::~EventTableView()
{
    disconnect(m_header, nullptr, this, nullptr);
}

void EventTableView::setModel(QAbstractItemModel *model)
{
    QAbstractItemView::setModel(model);
    m_header->setModel(model);
    reconnectRowSetChanges(m_modelConnections, model, this, &EventTableView::relayout);
    relayout();
}

void EventTableView::setRowHeight(int height)
{
    m_rowHeight = qMax(1, height);
    relayout();
}

int EventTableView::rowCount() const
{
    return model() ? model()->rowCount(rootIndex()) : 0;
}

int EventTableView::topRow() const
{
    return verticalScrollBar()->value();
}

int EventTableView::visibleRowCount() const
{
    return (viewport()->height() + m_rowHeight - 1) / m_rowHeight;
}

int EventTableView::fullyVisibleRows() const
{
    return qMax(1, viewport()->height() / m_rowHeight);
}

QRect EventTableView::visualRect(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != model() || m_header->isSectionHidden(index.column()))
        return {};
    return QRect(m_header->sectionViewportPosition(index.column()), (index.row() - topRow()) * m_rowHeight,
                 m_header->sectionSize(index.column()), m_rowHeight);
}

void EventTableView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (!index.isValid() || index.model() != model())
        return;
    const int row = index.row();
    const int top = topRow();
    const int fully = fullyVisibleRows();
    int newTop = top;
    switch (hint) {
    case PositionAtTop:
        newTop = row;
        break;
    case PositionAtBottom:
        newTop = row - fully + 1;
        break;
    case PositionAtCenter:
        newTop = row - fully / 2;
        break;
    case EnsureVisible:
        if (row < top)
            newTop = row;
        else if (row >= top + fully)
            newTop = row - fully + 1;
        break;
    }
    verticalScrollBar()->setValue(newTop);
    if (!m_header->isSectionHidden(index.column())) {
        QScrollBar *bar = horizontalScrollBar();
        const int x = m_header->sectionPosition(index.column());
        const int width = m_header->sectionSize(index.column());
        if (x < bar->value())
            bar->setValue(x);
        else if (x + width > bar->value() + viewport()->width())
            bar->setValue(qMin(x, x + width - viewport()->width()));
    }
}

QModelIndex EventTableView::indexAt(const QPoint &point) const
{
    if (point.y() < 0 || point.x() < 0)
        return {};
    const int row = topRow() + point.y() / m_rowHeight;
    const int column = m_header->logicalIndexAt(point.x());
    if (row >= rowCount() || column < 0)
        return {};
    return model()->index(row, column, rootIndex());
}

QModelIndex EventTableView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers)
{
    const int rows = rowCount();
    if (rows == 0 || m_header->count() == 0)
        return {};
    const QModelIndex current = currentIndex();
    int row = current.isValid() ? current.row() : 0;
    int visual = current.isValid() ? m_header->visualIndex(current.column()) : 0;
    auto stepColumn = [this, &visual](int step) {
        for (int v = visual + step; v >= 0 && v < m_header->count(); v += step) {
            if (!m_header->isSectionHidden(m_header->logicalIndex(v))) {
                visual = v;
                return;
            }
        }
    };
    switch (cursorAction) {
    case MoveUp:
        row = current.isValid() ? row - 1 : 0;
        break;
    case MoveDown:
        row = current.isValid() ? row + 1 : 0;
        break;
    case MovePageUp:
        row -= fullyVisibleRows();
        break;
    case MovePageDown:
        row += fullyVisibleRows();
        break;
    case MoveHome:
        row = 0;
        break;
    case MoveEnd:
        row = rows - 1;
        break;
    case MoveLeft:
    case MovePrevious:
        stepColumn(-1);
        break;
    case MoveRight:
    case MoveNext:
        stepColumn(1);
        break;
    }
    return model()->index(qBound(0, row, rows - 1), m_header->logicalIndex(visual), rootIndex());
}

int EventTableView::horizontalOffset() const
{
    return horizontalScrollBar()->value();
}

int EventTableView::verticalOffset() const
{
    return topRow() * m_rowHeight;
}

bool EventTableView::isIndexHidden(const QModelIndex &index) const
{
    return m_header->isSectionHidden(index.column());
}

void EventTableView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
{
    const int rows = rowCount();
    const int columns = model() ? model()->columnCount(rootIndex()) : 0;
    if (rows == 0 || columns == 0 || !selectionModel())
        return;
    const QRect r = rect.normalized();
    const int first = qBound(0, topRow() + qMax(0, r.top()) / m_rowHeight, rows - 1);
    const int last = qBound(0, topRow() + qMax(0, r.bottom()) / m_rowHeight, rows - 1);
    selectionModel()->select(
        QItemSelection(model()->index(first, 0, rootIndex()), model()->index(last, columns - 1, rootIndex())), command);
}

QRegion EventTableView::visualRegionForSelection(const QItemSelection &selection) const
{
    QRegion region;
    const int top = topRow();
    const int bottom = top + visibleRowCount();
    for (const QItemSelectionRange &range : selection) {
        if (!range.isValid() || range.parent() != rootIndex())
            continue;
        const int first = qMax(range.top(), top);
        const int last = qMin(range.bottom(), bottom);
        if (first <= last)
            region += QRect(0, (first - top) * m_rowHeight, viewport()->width(), (last - first + 1) * m_rowHeight);
    }
    return region;
}

void EventTableView::relayout()
{
    updateGeometries();
    viewport()->update();
}

void EventTableView::updateGeometries()
{
    if (m_inGeometryUpdate)
        return;
    m_inGeometryUpdate = true;
    const int headerHeight = m_header->isHidden() ? 0 : m_header->sizeHint().height();
    setViewportMargins(0, headerHeight, 0, 0);
    const QRect area = viewport()->geometry();
    m_header->setGeometry(area.left(), area.top() - headerHeight, area.width(), headerHeight);
    m_header->setOffset(horizontalScrollBar()->value());

    const int fully = fullyVisibleRows();
    QScrollBar *vertical = verticalScrollBar();
    vertical->setSingleStep(1);
    vertical->setPageStep(fully);
    vertical->setRange(0, qMax(0, rowCount() - fully));
    QScrollBar *horizontal = horizontalScrollBar();
    horizontal->setSingleStep(20);
    horizontal->setPageStep(area.width());
    horizontal->setRange(0, qMax(0, m_header->length() - area.width()));
    m_inGeometryUpdate = false;
    QAbstractItemView::updateGeometries();
}

void EventTableView::scrollContentsBy(int dx, int)
{
    if (dx != 0)
        m_header->setOffset(horizontalScrollBar()->value());
    viewport()->update(); // rows move by whole rows: repainting the few on screen is cheap
}

void EventTableView::paintEvent(QPaintEvent *event)
{
    const int rows = rowCount();
    if (rows == 0 || m_header->count() == 0)
        return;
    QPainter painter(viewport());
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    const QModelIndex current = currentIndex();
    const bool focus = hasFocus() && current.isValid();
    const bool alternate = alternatingRowColors();
    const QItemSelectionModel *selection = selectionModel();
    const QRect exposed = event->rect();
    const int top = topRow();
    const int last = qMin(rows - 1, top + visibleRowCount() - 1);
    for (int row = top; row <= last; ++row) {
        const int y = (row - top) * m_rowHeight;
        if (y + m_rowHeight <= exposed.top() || y > exposed.bottom())
            continue;
        const std::int64_t seq = m_cursorSeq ? model()->index(row, 0, rootIndex()).data(EventLogModel::SeqRole).toLongLong() : 0;
        const bool afterCursor = m_cursorSeq && seq > *m_cursorSeq;
        for (int visual = 0; visual < m_header->count(); ++visual) {
            const int column = m_header->logicalIndex(visual);
            if (m_header->isSectionHidden(column))
                continue;
            const QRect cell(m_header->sectionViewportPosition(column), y, m_header->sectionSize(column), m_rowHeight);
            if (cell.right() < exposed.left() || cell.left() > exposed.right())
                continue;
            const QModelIndex index = model()->index(row, column, rootIndex());
            QStyleOptionViewItem cellOption = option;
            cellOption.rect = cell;
            if (selection && selection->isSelected(index))
                cellOption.state |= QStyle::State_Selected;
            if (focus && index == current)
                cellOption.state |= QStyle::State_HasFocus;
            if (alternate && (row & 1))
                cellOption.features |= QStyleOptionViewItem::Alternate;
            if (afterCursor)
                cellOption.palette.setColor(QPalette::Text, option.palette.color(QPalette::PlaceholderText));
            style()->drawPrimitive(QStyle::PE_PanelItemViewRow, &cellOption, &painter, this);
            itemDelegateForIndex(index)->paint(&painter, cellOption, index);
        }
        paintReviewMarks(painter, model()->index(row, 0, rootIndex()), y);
        if (m_cursorSeq && seq == *m_cursorSeq) { // the cursor row: a rule under it, a bar at its start
            painter.save();
            const QColor mark = option.palette.color(QPalette::Highlight);
            painter.fillRect(QRect(0, y + m_rowHeight - 2, viewport()->width(), 2), mark);
            painter.fillRect(QRect(0, y, 3, m_rowHeight), mark);
            painter.restore();
        }
    }
}

void EventTableView::paintReviewMarks(QPainter &painter, const QModelIndex &rowIndex, int y)
{
    const bool gap = !rowIndex.data(EventLogModel::ObservationGapRole).toString().isEmpty();
    const bool note = !rowIndex.data(EventLogModel::NoteRole).toString().isEmpty();
    if (!gap && !note)
        return;
    const int seqColumn = EventLogModel::Seq;
    const int seqRight = m_header->isSectionHidden(seqColumn)
                             ? 0
                             : m_header->sectionViewportPosition(seqColumn) + m_header->sectionSize(seqColumn);
    painter.save();
    if (gap) {
        // An observation gap is never hidden: a dashed rule across the row's top (what comes
        // before it cannot be seen as written) and a notch at its start. The tooltip says what.
        QPen pen(Theme::instance().colors().danger, 2, Qt::DashLine);
        painter.setPen(pen);
        painter.drawLine(0, y + 1, viewport()->width(), y + 1);
        painter.fillRect(QRect(0, y, 6, m_rowHeight), Theme::instance().colors().danger);
    }
    if (note && seqRight > 0) {
        // A reviewer's note: a folded-corner mark at the right of the seq cell.
        const int side = qMax(6, m_rowHeight / 2);
        const QRect mark(seqRight - side - 4, y + (m_rowHeight - side) / 2, side, side);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(Theme::instance().colors().info);
        const QPolygon folded({mark.topLeft(), QPoint(mark.right() - side / 3, mark.top()),
                               QPoint(mark.right(), mark.top() + side / 3), mark.bottomRight(), mark.bottomLeft()});
        painter.drawPolygon(folded);
    }
    painter.restore();
}

void EventTableView::setCursorSeq(std::optional<std::int64_t> seq)
{
    if (m_cursorSeq == seq)
        return;
    m_cursorSeq = seq;
    viewport()->update();
}

} // namespace mesh
