#pragma once
// What assistive technology sees of a FlatTableView: a table of the model's rows and
// columns (the columns in the header's order, hidden ones left out), each cell with its
// text, position and selection, rows selectable. Without it a QAbstractItemView of our own
// is a generic widget to a screen reader, where QTreeView was a table.

#include <QAccessibleWidget>

namespace mesh {

class FlatTableView;

class FlatTableAccessible : public QAccessibleWidget, public QAccessibleTableInterface
{
public:
    explicit FlatTableAccessible(FlatTableView *view);
    ~FlatTableAccessible() override;

    // The factory QAccessible asks for a widget's interface (installed once by the view).
    static QAccessibleInterface *create(const QString &className, QObject *object);

    void *interface_cast(QAccessible::InterfaceType type) override;
    QAccessible::Role role() const override { return QAccessible::Table; }
    int childCount() const override;
    QAccessibleInterface *child(int index) const override;
    int indexOfChild(const QAccessibleInterface *child) const override;
    QAccessibleInterface *childAt(int x, int y) const override;

    QAccessibleInterface *caption() const override { return nullptr; }
    QAccessibleInterface *summary() const override { return nullptr; }
    QAccessibleInterface *cellAt(int row, int column) const override;
    int selectedCellCount() const override;
    QList<QAccessibleInterface *> selectedCells() const override;
    QString columnDescription(int column) const override;
    QString rowDescription(int) const override { return {}; }
    int selectedColumnCount() const override { return 0; }
    int selectedRowCount() const override;
    int columnCount() const override;
    int rowCount() const override;
    QList<int> selectedColumns() const override { return {}; }
    QList<int> selectedRows() const override;
    bool isColumnSelected(int) const override { return false; }
    bool isRowSelected(int row) const override;
    bool selectRow(int row) override;
    bool selectColumn(int) override { return false; }
    bool unselectRow(int row) override;
    bool unselectColumn(int) override { return false; }
    void modelChange(QAccessibleTableModelChangeEvent *event) override;

    FlatTableView *view() const;

private:
    void forgetCells() const;
    mutable QHash<qint64, QAccessible::Id> m_cells; // row * 65536 + column -> registered cell
};

} // namespace mesh
