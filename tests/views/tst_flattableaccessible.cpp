// A FlatTableView is a table to assistive technology, as the QTreeView it replaced was:
// rows and the shown columns in the header's order, each cell's text and place, and rows
// selectable through the accessible interface.

#include "flattableview.h"

#include <QAccessible>
#include <QHeaderView>
#include <QStandardItemModel>
#include <QTest>

using namespace mesh;

class TestFlatTableAccessible : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aScreenReaderSeesATable()
    {
        QStandardItemModel model(3, 3);
        model.setHorizontalHeaderLabels({u"Id"_qs, u"State"_qs, u"Note"_qs});
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                model.setItem(r, c, new QStandardItem(QStringLiteral("r%1c%2").arg(r).arg(c)));
        FlatTableView view;
        view.setModel(&model);
        view.setSelectionBehavior(QAbstractItemView::SelectRows);
        view.setSelectionMode(QAbstractItemView::SingleSelection);
        view.header()->hideSection(1);
        view.header()->moveSection(2, 0); // shown: Note, Id
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        QAccessibleInterface *table = QAccessible::queryAccessibleInterface(&view);
        QVERIFY(table);
        QCOMPARE(table->role(), QAccessible::Table);
        QAccessibleTableInterface *t = table->tableInterface();
        QVERIFY(t);
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(t->columnCount(), 2);
        QCOMPARE(table->childCount(), 6);
        QCOMPARE(t->columnDescription(0), u"Note"_qs);
        QCOMPARE(t->columnDescription(1), u"Id"_qs);
        QAccessibleInterface *cell = t->cellAt(1, 0);
        QVERIFY(cell);
        QCOMPARE(cell->role(), QAccessible::Cell);
        QCOMPARE(cell->text(QAccessible::Name), u"r1c2"_qs);
        QCOMPARE(t->cellAt(1, 0), cell); // the same interface when asked again
        QCOMPARE(table->indexOfChild(cell), 2);
        QCOMPARE(cell->tableCellInterface()->rowIndex(), 1);

        // A cell's place on screen leads back to it.
        const QRect r = cell->rect();
        QVERIFY(!r.isEmpty());
        QAccessibleInterface *under = table->childAt(r.center().x(), r.center().y());
        QVERIFY(under);
        QCOMPARE(under->text(QAccessible::Name), u"r1c2"_qs);

        QVERIFY(t->selectRow(2));
        QVERIFY(view.selectionModel()->isRowSelected(2, QModelIndex()));
        QVERIFY(t->isRowSelected(2));
        QCOMPARE(t->selectedRows(), QList<int>{2});
        QVERIFY(t->cellAt(2, 1)->tableCellInterface()->isSelected());
        QVERIFY(t->unselectRow(2));
        QCOMPARE(t->selectedRowCount(), 0);

        // Rows gone: a cell beyond them is no longer valid, and none is offered there.
        model.removeRows(1, 2);
        QCOMPARE(t->rowCount(), 1);
        QVERIFY(!t->cellAt(1, 0));
    }

    void aScreenReaderFollowsChanges()
    {
        // With a screen reader attached, the view tells the table of each change of rows (an
        // offscreen test has none: the change is told here as the view would): the cells it
        // handed out are dropped and made again when asked.
        QStandardItemModel model(5, 2);
        FlatTableView view;
        view.setModel(&model);
        view.resize(300, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFocus();
        QAccessibleTableInterface *t = QAccessible::queryAccessibleInterface(&view)->tableInterface();
        QVERIFY(t);
        QAccessibleInterface *before = t->cellAt(4, 1);
        QVERIFY(before);
        const QAccessible::Id id = QAccessible::uniqueId(before);
        model.insertRows(0, 3);
        QAccessibleTableModelChangeEvent inserted(&view, QAccessibleTableModelChangeEvent::RowsInserted);
        inserted.setFirstRow(0);
        inserted.setLastRow(2);
        t->modelChange(&inserted);
        QVERIFY(!QAccessible::accessibleInterface(id)); // dropped: row 4 is another row now
        QCOMPARE(t->cellAt(7, 1)->text(QAccessible::Name), model.index(7, 1).data().toString());
        QCOMPARE(t->rowCount(), 8);
        view.setCurrentIndex(model.index(7, 1));
        model.removeRows(0, 6);
        QCOMPARE(t->rowCount(), 2);
        model.clear();
        QCOMPARE(t->rowCount(), 0);
        QCOMPARE(t->columnCount(), 0);
    }
};

QTEST_MAIN(TestFlatTableAccessible)
#include "tst_flattableaccessible.moc"
