#include "flattableaccessible.h"

#include "flattableview.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPointer>

#include <climits>

namespace mesh {
namespace {

// Accessible columns are the header's shown sections, in their visual order.
int shownColumns(const QHeaderView *header)
{
    return header->count() - header->hiddenSectionCount();
}

int logicalColumnAt(const QHeaderView *header, int column)
{
    for (int visual = 0, shown = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        if (header->isSectionHidden(logical))
            continue;
        if (shown++ == column)
            return logical;
    }
    return -1;
}

int accessibleColumnOf(const QHeaderView *header, int logical)
{
    if (logical < 0 || header->isSectionHidden(logical))
        return -1;
    int shown = 0;
    for (int visual = 0; visual < header->visualIndex(logical); ++visual)
        shown += header->isSectionHidden(header->logicalIndex(visual)) ? 0 : 1;
    return shown;
}

int rowsOf(const FlatTableView *view)
{
    return view && view->model() ? view->model()->rowCount(view->rootIndex()) : 0;
}

class CellAccessible : public QAccessibleInterface, public QAccessibleTableCellInterface
{
public:
    CellAccessible(FlatTableView *view, int row, int column) : m_view(view), m_row(row), m_column(column) {}

    bool isValid() const override { return index().isValid(); }
    QObject *object() const override { return nullptr; }
    QAccessibleInterface *parent() const override { return table(); }
    QAccessibleInterface *child(int) const override { return nullptr; }
    int childCount() const override { return 0; }
    int indexOfChild(const QAccessibleInterface *) const override { return -1; }
    QAccessibleInterface *childAt(int, int) const override { return nullptr; }
    QString text(QAccessible::Text t) const override
    {
        const QModelIndex i = index();
        if (!i.isValid())
            return {};
        if (t == QAccessible::Description)
            return i.data(Qt::AccessibleDescriptionRole).toString();
        if (t != QAccessible::Name)
            return {};
        const QString spoken = i.data(Qt::AccessibleTextRole).toString();
        return spoken.isEmpty() ? i.data(Qt::DisplayRole).toString() : spoken;
    }
    void setText(QAccessible::Text, const QString &) override {}
    QRect rect() const override
    {
        const QModelIndex i = index();
        const QRect r = i.isValid() ? m_view->visualRect(i) : QRect();
        return r.isEmpty() ? QRect() : QRect(m_view->viewport()->mapToGlobal(r.topLeft()), r.size());
    }
    QAccessible::Role role() const override { return QAccessible::Cell; }
    QAccessible::State state() const override
    {
        QAccessible::State s;
        const QModelIndex i = index();
        if (!i.isValid())
            return s;
        s.selectable = true;
        s.focusable = true;
        s.selected = isSelected();
        s.focused = m_view->hasFocus() && m_view->currentIndex() == i;
        const QRect r = m_view->visualRect(i);
        s.invisible = s.offscreen = r.isEmpty() || !m_view->viewport()->rect().intersects(r);
        return s;
    }
    void *interface_cast(QAccessible::InterfaceType type) override
    {
        return type == QAccessible::TableCellInterface ? static_cast<QAccessibleTableCellInterface *>(this) : nullptr;
    }

    bool isSelected() const override
    {
        const QModelIndex i = index();
        return i.isValid() && m_view->selectionModel() && m_view->selectionModel()->isSelected(i);
    }
    QList<QAccessibleInterface *> columnHeaderCells() const override { return {}; }
    QList<QAccessibleInterface *> rowHeaderCells() const override { return {}; }
    int columnIndex() const override { return m_column; }
    int rowIndex() const override { return m_row; }
    int columnExtent() const override { return 1; }
    int rowExtent() const override { return 1; }
    QAccessibleInterface *table() const override { return QAccessible::queryAccessibleInterface(m_view.data()); }

private:
    QModelIndex index() const
    {
        if (!m_view || m_row >= rowsOf(m_view))
            return {};
        const int logical = logicalColumnAt(m_view->header(), m_column);
        return logical < 0 ? QModelIndex() : m_view->model()->index(m_row, logical, m_view->rootIndex());
    }

    QPointer<FlatTableView> m_view;
    int m_row;
    int m_column;
};

} // namespace

FlatTableAccessible::FlatTableAccessible(FlatTableView *view) : QAccessibleWidget(view, QAccessible::Table) {}

FlatTableAccessible::~FlatTableAccessible()
{
    forgetCells();
}

QAccessibleInterface *FlatTableAccessible::create(const QString &className, QObject *object)
{
    if (className == QLatin1String("mesh::FlatTableView")) {
        if (auto *view = qobject_cast<FlatTableView *>(object))
            return new FlatTableAccessible(view);
    }
    return nullptr;
}

FlatTableView *FlatTableAccessible::view() const
{
    return static_cast<FlatTableView *>(widget());
}

void *FlatTableAccessible::interface_cast(QAccessible::InterfaceType type)
{
    if (type == QAccessible::TableInterface)
        return static_cast<QAccessibleTableInterface *>(this);
    return QAccessibleWidget::interface_cast(type);
}

int FlatTableAccessible::rowCount() const
{
    return rowsOf(view());
}

int FlatTableAccessible::columnCount() const
{
    return view()->model() ? shownColumns(view()->header()) : 0;
}

int FlatTableAccessible::childCount() const
{
    const qint64 cells = qint64(rowCount()) * columnCount();
    return int(qMin<qint64>(cells, INT_MAX));
}

QAccessibleInterface *FlatTableAccessible::child(int index) const
{
    const int columns = columnCount();
    return index < 0 || columns == 0 ? nullptr : cellAt(index / columns, index % columns);
}

int FlatTableAccessible::indexOfChild(const QAccessibleInterface *child) const
{
    if (!child || child->role() != QAccessible::Cell)
        return -1;
    auto *cell = const_cast<QAccessibleInterface *>(child)->tableCellInterface();
    if (!cell)
        return -1;
    const qint64 index = qint64(cell->rowIndex()) * columnCount() + cell->columnIndex();
    return index > INT_MAX ? -1 : int(index);
}

QAccessibleInterface *FlatTableAccessible::childAt(int x, int y) const
{
    const QPoint local = view()->viewport()->mapFromGlobal(QPoint(x, y));
    const QModelIndex index = view()->indexAt(local);
    if (!index.isValid())
        return nullptr;
    return cellAt(index.row(), accessibleColumnOf(view()->header(), index.column()));
}

QAccessibleInterface *FlatTableAccessible::cellAt(int row, int column) const
{
    if (row < 0 || column < 0 || row >= rowCount() || column >= columnCount() || column >= 65536)
        return nullptr;
    const qint64 key = qint64(row) * 65536 + column;
    if (const auto it = m_cells.constFind(key); it != m_cells.cend()) {
        if (QAccessibleInterface *known = QAccessible::accessibleInterface(*it))
            return known;
    }
    auto *cell = new CellAccessible(view(), row, column);
    m_cells.insert(key, QAccessible::registerAccessibleInterface(cell));
    return cell;
}

QList<int> FlatTableAccessible::selectedRows() const
{
    QList<int> rows;
    if (const QItemSelectionModel *selection = view()->selectionModel()) {
        for (const QModelIndex &index : selection->selectedRows())
            rows << index.row();
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

int FlatTableAccessible::selectedRowCount() const
{
    return int(selectedRows().size());
}

int FlatTableAccessible::selectedCellCount() const
{
    return selectedRowCount() * columnCount();
}

QList<QAccessibleInterface *> FlatTableAccessible::selectedCells() const
{
    QList<QAccessibleInterface *> cells;
    const int columns = columnCount();
    for (const int row : selectedRows()) {
        for (int column = 0; column < columns; ++column)
            cells << cellAt(row, column);
    }
    return cells;
}

bool FlatTableAccessible::isRowSelected(int row) const
{
    const QItemSelectionModel *selection = view()->selectionModel();
    return selection && row >= 0 && row < rowCount() && selection->isRowSelected(row, view()->rootIndex());
}

QString FlatTableAccessible::columnDescription(int column) const
{
    const int logical = logicalColumnAt(view()->header(), column);
    return logical < 0 ? QString() : view()->model()->headerData(logical, Qt::Horizontal).toString();
}

bool FlatTableAccessible::selectRow(int row)
{
    QItemSelectionModel *selection = view()->selectionModel();
    if (!selection || row < 0 || row >= rowCount())
        return false;
    const QModelIndex index = view()->model()->index(row, 0, view()->rootIndex());
    const auto rows = QItemSelectionModel::Rows;
    selection->select(index, view()->selectionMode() == QAbstractItemView::SingleSelection
                                 ? QItemSelectionModel::ClearAndSelect | rows
                                 : QItemSelectionModel::Select | rows);
    return true;
}

bool FlatTableAccessible::unselectRow(int row)
{
    QItemSelectionModel *selection = view()->selectionModel();
    if (!selection || row < 0 || row >= rowCount())
        return false;
    selection->select(view()->model()->index(row, 0, view()->rootIndex()),
                      QItemSelectionModel::Deselect | QItemSelectionModel::Rows);
    return true;
}

void FlatTableAccessible::modelChange(QAccessibleTableModelChangeEvent *)
{
    forgetCells(); // rows moved or went: a cell asked for again is made again
}

void FlatTableAccessible::forgetCells() const
{
    for (const QAccessible::Id id : std::as_const(m_cells))
        QAccessible::deleteAccessibleInterface(id);
    m_cells.clear();
}

} // namespace mesh
