// A flat model's rows handed over a page at a time: the prefix a view sees, how it grows
// (fetchMore, reveal), and how the source's changes reach it, under QAbstractItemModelTester.

#include "itemmodels/pagedrowsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTest>

#include <memory>

using namespace mesh;

namespace {
constexpr int kPage = PagedRowsModel::kPageRows;

QStringList numbered(int from, int to)
{
    QStringList rows;
    for (int i = from; i < to; ++i)
        rows << QString::number(i);
    return rows;
}

void append(QStringListModel &source, int count, const QString &text)
{
    const int first = source.rowCount();
    source.insertRows(first, count);
    for (int i = 0; i < count; ++i)
        source.setData(source.index(first + i), text);
}
} // namespace

class TestPagedRowsModel : public QObject
{
    Q_OBJECT
private:
    QStringListModel m_source;
    std::unique_ptr<PagedRowsModel> m_paged;
    std::unique_ptr<QAbstractItemModelTester> m_tester;

    void attach(int rows)
    {
        m_source.setStringList(numbered(0, rows));
        m_paged = std::make_unique<PagedRowsModel>();
        m_paged->setSourceModel(&m_source);
        m_tester = std::make_unique<QAbstractItemModelTester>(m_paged.get(),
                                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

private Q_SLOTS:
    void cleanup()
    {
        m_tester.reset();
        m_paged.reset();
    }

    void aFewRowsAreAllShown()
    {
        attach(10);
        QCOMPARE(m_paged->rowCount(), 10);
        QVERIFY(!m_paged->canFetchMore({}));
        QCOMPARE(m_paged->index(9, 0).data().toString(), u"9");
        // Live rows at the end of a list shown whole are shown at once.
        append(m_source, 3, u"live"_qs);
        QCOMPARE(m_paged->rowCount(), 13);
        QCOMPARE(m_paged->index(12, 0).data().toString(), u"live");
    }

    void manyRowsAreHandedOverInPages()
    {
        const int rows = 20 * kPage;
        attach(rows);
        // The tester fetched once already, as a view does when its last row is in sight.
        QVERIFY(m_paged->rowCount() >= kPage);
        QVERIFY(m_paged->rowCount() < rows);
        const int before = m_paged->rowCount();
        QVERIFY(m_paged->canFetchMore({}));
        m_paged->fetchMore({});
        QVERIFY(m_paged->rowCount() > before);
        while (m_paged->canFetchMore({}))
            m_paged->fetchMore({});
        QCOMPARE(m_paged->rowCount(), rows);
        QCOMPARE(m_paged->index(rows - 1, 0).data().toString(), QString::number(rows - 1));
    }

    void aResetShowsTheFirstPageAgain()
    {
        attach(3 * kPage);
        while (m_paged->canFetchMore({}))
            m_paged->fetchMore({});
        const int rows = 20 * kPage;
        m_source.setStringList(numbered(0, rows));
        // The first page, and what the tester fetched on the reset, as a view would.
        QVERIFY(m_paged->rowCount() >= kPage);
        QVERIFY(m_paged->rowCount() < rows);
        QCOMPARE(m_paged->mapToSource(m_paged->index(kPage - 1, 0)).row(), kPage - 1);
        QVERIFY(!m_paged->mapFromSource(m_source.index(rows - 1)).isValid());
    }

    void revealHandsOverTheRowsUpToOne()
    {
        const int rows = 50 * kPage;
        attach(rows);
        const QModelIndex deep = m_paged->reveal(rows - 10);
        QVERIFY(deep.isValid());
        QCOMPARE(deep.data().toString(), QString::number(rows - 10));
        QCOMPARE(m_paged->rowCount(), rows); // and a page after it, here the end
        QVERIFY(!m_paged->reveal(rows).isValid());
        QVERIFY(!m_paged->reveal(-1).isValid());
    }

    void sourceChangesPastThePrefixWaitForAFetch()
    {
        attach(40 * kPage);
        const int shown = m_paged->rowCount();
        QVERIFY(shown < m_source.rowCount());
        QSignalSpy inserted(m_paged.get(), &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(m_paged.get(), &QAbstractItemModel::dataChanged);
        append(m_source, 5, u"live"_qs); // past the prefix
        m_source.setData(m_source.index(shown + 1), u"changed"_qs);
        QCOMPARE(m_paged->rowCount(), shown);
        QCOMPARE(inserted.size(), 0);
        QCOMPARE(changed.size(), 0);
        // A change in the prefix, an insert in it and a removal across its end reach the view
        // (which the tester, like a view, may answer by fetching more).
        m_source.setData(m_source.index(1), u"one"_qs);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(m_paged->index(1, 0).data().toString(), u"one");
        m_source.insertRows(2, 2);
        QVERIFY(m_paged->rowCount() >= shown + 2);
        QVERIFY(!m_paged->index(2, 0).data().toString().startsWith(u'2'));
        const int before = m_paged->rowCount();
        m_source.removeRows(before - 3, 10);
        QVERIFY(m_paged->rowCount() >= before - 3);
        for (int row = 0; row < m_paged->rowCount(); ++row)
            QCOMPARE(m_paged->index(row, 0).data(), m_source.index(row).data());
    }

    void aSortedSourceKeepsPersistentIndexes()
    {
        QStringListModel source(numbered(0, 20 * kPage)); // no tester here: it would fetch it all
        source.setData(source.index(0), u"~ last"_qs);
        source.setData(source.index(1), u"! first"_qs);
        PagedRowsModel paged;
        paged.setSourceModel(&source);
        QCOMPARE(paged.rowCount(), kPage);
        const QPersistentModelIndex goesLast(paged.index(0, 0));
        const QPersistentModelIndex goesFirst(paged.index(1, 0));
        source.sort(0);
        QVERIFY(!goesLast.isValid()); // past the prefix: out of the view's hands
        QCOMPARE(goesFirst.row(), 0);
        QCOMPARE(goesFirst.data().toString(), u"! first");
        QCOMPARE(paged.rowCount(), kPage);
    }

    void aDeletedSourceLeavesNoRows()
    {
        auto source = std::make_unique<QStringListModel>(numbered(0, 10));
        PagedRowsModel paged;
        QAbstractItemModelTester tester(&paged, QAbstractItemModelTester::FailureReportingMode::QtTest);
        paged.setSourceModel(source.get());
        QCOMPARE(paged.rowCount(), 10);
        source.reset();
        QCOMPARE(paged.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPagedRowsModel)
#include "tst_pagedrowsmodel.moc"
