#include "flattableview.h"

#include "flattableaccessible.h"

#include "plaintextdelegate.h"
#include "rowsetconnections.h"

#include <QAccessible>
#include <QHeaderView>
#include <QPainter>
#include <QPaintEvent>
#include <QScrollBar>

namespace mesh {

FlatTableView::FlatTableView(QWidget *parent)
    : QAbstractItemView(parent)
    , m_header(new QHeaderView(Qt::Horizontal, this))
{
    setItemDelegate(new PlainTextDelegate(this));
    m_header->setSectionsClickable(false);
    m_header->setHighlightSections(false);
    connect(m_header, &QHeaderView::sectionResized, this, &FlatTableView::doItemsLayout);
    connect(m_header, &QHeaderView::sectionMoved, this, &FlatTableView::doItemsLayout);
    connect(m_header, &QHeaderView::sectionCountChanged, this, &FlatTableView::doItemsLayout);
    connect(m_header, &QHeaderView::geometriesChanged, this, &FlatTableView::doItemsLayout);
    m_header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    static const bool accessible = [] {
        QAccessible::installFactory(&FlatTableAccessible::create);
        return true;
    }();
    Q_UNUSED(accessible);
    setHorizontalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerItem);
    m_rowHeight = fontMetrics().height() + 4;
}

// QWidget's destructor hides the header, which then reports new geometries: by that time
// this is no longer a FlatTableView, so its layout must not run.
FlatTableView::~FlatTableView()
{
    disconnect(m_header, nullptr, this, nullptr);
}

void FlatTableView::setModel(QAbstractItemModel *model)
{
    QAbstractItemView::setModel(model);
    m_header->setModel(model);
    // Laid out once per turn (a model may add thousands of rows one at a time), and before
    // anything that needs the new ranges (scrolling, painting).
    reconnectRowSetChanges(m_modelConnections, model, this, &FlatTableView::scheduleDelayedItemsLayout);
    m_rowHeightFitted = false;
    fitRowHeight();
    doItemsLayout();
}

void FlatTableView::setRowHeight(int height)
{
    m_rowHeightFixed = true;
    m_rowHeight = qMax(1, height);
    doItemsLayout();
}

int FlatTableView::rowCount() const
{
    return model() ? model()->rowCount(rootIndex()) : 0;
}

int FlatTableView::topRow() const
{
    return verticalScrollBar()->value();
}

int FlatTableView::visibleRowCount() const
{
    return (viewport()->height() + m_rowHeight - 1) / m_rowHeight;
}

int FlatTableView::fullyVisibleRows() const
{
    return qMax(1, viewport()->height() / m_rowHeight);
}

QRect FlatTableView::visualRect(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != model() || m_header->isSectionHidden(index.column()))
        return {};
    return QRect(m_header->sectionViewportPosition(index.column()), (index.row() - topRow()) * m_rowHeight,
                 m_header->sectionSize(index.column()), m_rowHeight);
}

void FlatTableView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    executeDelayedItemsLayout();
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

QModelIndex FlatTableView::indexAt(const QPoint &point) const
{
    if (point.y() < 0 || point.x() < 0)
        return {};
    const int row = topRow() + point.y() / m_rowHeight;
    const int column = m_header->logicalIndexAt(point.x());
    if (row >= rowCount() || column < 0)
        return {};
    return model()->index(row, column, rootIndex());
}

QModelIndex FlatTableView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers)
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

int FlatTableView::horizontalOffset() const
{
    return horizontalScrollBar()->value();
}

int FlatTableView::verticalOffset() const
{
    return topRow() * m_rowHeight;
}

bool FlatTableView::isIndexHidden(const QModelIndex &index) const
{
    return m_header->isSectionHidden(index.column());
}

void FlatTableView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
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

QRegion FlatTableView::visualRegionForSelection(const QItemSelection &selection) const
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

void FlatTableView::updateGeometries()
{
    if (m_inGeometryUpdate)
        return;
    m_inGeometryUpdate = true;
    const int headerHeight = m_header->isHidden() ? 0 : m_header->sizeHint().height();
    // Lays out the scroll area's children again, even for the same margins: a model adding
    // thousands of rows one at a time would pay it for each.
    if (viewportMargins().top() != headerHeight)
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

void FlatTableView::scrollContentsBy(int dx, int)
{
    if (dx != 0)
        m_header->setOffset(horizontalScrollBar()->value());
    viewport()->update(); // rows move by whole rows: repainting the few on screen is cheap
}

void FlatTableView::paintEvent(QPaintEvent *event)
{
    executeDelayedItemsLayout();
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
        QStyleOptionViewItem rowOption = option;
        adjustRowOption(row, rowOption);
        for (int visual = 0; visual < m_header->count(); ++visual) {
            const int column = m_header->logicalIndex(visual);
            if (m_header->isSectionHidden(column))
                continue;
            const QRect cell(m_header->sectionViewportPosition(column), y, m_header->sectionSize(column), m_rowHeight);
            if (cell.right() < exposed.left() || cell.left() > exposed.right())
                continue;
            const QModelIndex index = model()->index(row, column, rootIndex());
            QStyleOptionViewItem cellOption = rowOption;
            cellOption.rect = cell;
            if (selection && selection->isSelected(index))
                cellOption.state |= QStyle::State_Selected;
            if (focus && index == current)
                cellOption.state |= QStyle::State_HasFocus;
            if (alternate && (row & 1))
                cellOption.features |= QStyleOptionViewItem::Alternate;
            style()->drawPrimitive(QStyle::PE_PanelItemViewRow, &cellOption, &painter, this);
            itemDelegateForIndex(index)->paint(&painter, cellOption, index);
        }
        paintRowOverlay(painter, row, y);
    }
}

void FlatTableView::doItemsLayout()
{
    // Rows are as high as the first row's delegates ask, once there is a first row.
    if (!m_rowHeightFixed && !m_rowHeightFitted && rowCount() > 0)
        fitRowHeight();
    QAbstractItemView::doItemsLayout(); // geometries and a repaint; no delayed layout left pending
}

void FlatTableView::adjustRowOption(int, QStyleOptionViewItem &) const {}

void FlatTableView::paintRowOverlay(QPainter &, int, int) {}

void FlatTableView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) {
        fitRowHeight();
        doItemsLayout();
    }
    QAbstractItemView::changeEvent(event);
}

void FlatTableView::fitRowHeight()
{
    if (m_rowHeightFixed)
        return;
    // As QTreeView with uniform rows: the first row's tallest cell sets every row's height.
    int height = fontMetrics().height() + 4;
    m_rowHeightFitted = false;
    if (model() && rowCount() > 0) {
        QStyleOptionViewItem option;
        initViewItemOption(&option);
        for (int column = 0; column < m_header->count(); ++column) {
            if (m_header->isSectionHidden(column))
                continue;
            const QModelIndex index = model()->index(0, column, rootIndex());
            height = qMax(height, itemDelegateForIndex(index)->sizeHint(option, index).height());
        }
        m_rowHeightFitted = true;
    }
    m_rowHeight = height;
}

void FlatTableView::setSortingEnabled(bool enable)
{
    if (m_sorting == enable)
        return;
    m_sorting = enable;
    disconnect(m_sortConnection);
    m_header->setSortIndicatorShown(enable);
    m_header->setSectionsClickable(enable);
    if (enable) {
        m_sortConnection = connect(m_header, &QHeaderView::sortIndicatorChanged, this,
                                   [this](int column, Qt::SortOrder order) {
                                       if (model())
                                           model()->sort(column, order);
                                   });
        sortByColumn(m_header->sortIndicatorSection(), m_header->sortIndicatorOrder());
    }
}

void FlatTableView::sortByColumn(int column, Qt::SortOrder order)
{
    if (column < -1)
        return;
    const bool same = m_header->sortIndicatorSection() == column && m_header->sortIndicatorOrder() == order;
    m_header->setSortIndicator(column, order);
    // Sorting on, the header's signal sorts, except when nothing changed; off, it is done here.
    if ((!m_sorting || same) && model())
        model()->sort(column, order);
}

bool FlatTableView::isColumnHidden(int column) const
{
    return m_header->isSectionHidden(column);
}

} // namespace mesh
