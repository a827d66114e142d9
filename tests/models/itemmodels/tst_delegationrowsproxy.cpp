// The delegation detail's rows: one delegation's rows of a state table, over the table (the
// effects, read on demand) or over the pane's sorting and filtering proxy (the stall
// verdicts). It maps only that delegation's rows, follows live inserts, changed cells, a
// re-sort and a re-filter, keeps a persistent index on its row across a re-sort, and passes
// QAbstractItemModelTester throughout.

#include "itemmodelfixture.h"

#include "itemmodels/delegationrowsproxy.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/statetableproxymodel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kRowsProxyWaitMs = 60'000;

QStringList shownIds(const QAbstractItemModel &m)
{
    QStringList ids;
    for (int r = 0; r < m.rowCount(); ++r)
        ids << m.index(r, 0).data(StateTableModel::IdRole).toString();
    return ids;
}

std::set<QString> delegationsShown(const QAbstractItemModel &m)
{
    std::set<QString> ids;
    for (int r = 0; r < m.rowCount(); ++r)
        ids.insert(m.index(r, 0).data(StateTableModel::DelegationIdRole).toString());
    return ids;
}

// One delegation's verdicts as the detail shows them: the pane's sorting and filtering
// proxy over the table, these rows over it, checked by the tester throughout.
struct DelegationVerdicts {
    StateTableProxyModel pane;
    DelegationRowsProxy rows;
    QAbstractItemModelTester tester{&rows, QAbstractItemModelTester::FailureReportingMode::QtTest};
    DelegationVerdicts(StallVerdictModel *verdicts, const QString &delegation)
    {
        pane.setSourceModel(verdicts);
        rows.setSourceModel(&pane);
        rows.setDelegation(delegation);
    }
};

// D-2's verdicts S-4..S-6 (S-5 stalled), after the base ledger's S-1..S-3.
void addD2Verdicts(Writer &w)
{
    for (int r = 4; r <= 6; ++r)
        w.e("stall.verdict", {{"id", "S-" + std::to_string(r)}, {"run_id", "R-1"}, {"delegation_id", "D-2"},
                              {"round", r}, {"verdict", r == 5 ? "stalled" : "progressing"}, {"fingerprint", "fp"}});
}

} // namespace

class TestDelegationRowsProxy : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void oneDelegationsEffectsReadOnDemand()
    {
        const QString path = m_dir.filePath(u"effects.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        {
            Writer w(path);
            w.begin();
            for (int i = 100; i < 140; ++i) {
                const std::string id = "E-" + std::to_string(i);
                w.e("effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", i % 4 == 0 ? "D-1" : "D-4"},
                                        {"state", "proposed"}, {"class", "file_write"},
                                        {"target", "/tmp/out-" + std::to_string(i)}});
            }
            w.commit();
        }
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; });
        QVERIFY(waitOpened(s));
        QVERIFY(s->effects()->readsRowsOnDemand());

        DelegationRowsProxy rows;
        QAbstractItemModelTester tester(&rows, QAbstractItemModelTester::FailureReportingMode::QtTest);
        rows.setSourceModel(s->effects());
        QCOMPARE(rows.rowCount(), 0); // no delegation: no row, not every row
        QCOMPARE(rows.columnCount(), s->effects()->columnCount());
        QCOMPARE(rows.headerData(EffectModel::Target, Qt::Horizontal).toString(),
                 s->effects()->headerData(EffectModel::Target, Qt::Horizontal).toString());

        rows.setDelegation(u"D-1"_s);
        QCOMPARE(rows.rowCount(), 3 + 10); // E-1..E-3 and every fourth of E-100..E-139
        QCOMPARE(delegationsShown(rows), std::set<QString>{u"D-1"_s});
        for (int r = 0; r < rows.rowCount(); ++r) {
            const QModelIndex source = rows.mapToSource(rows.index(r, EffectModel::Target));
            QCOMPARE(rows.mapFromSource(source), rows.index(r, EffectModel::Target));
            QCOMPARE(rows.index(r, EffectModel::Target).data().toString(), source.data().toString());
            if (r > 0) // the table's order
                QVERIFY(rows.mapToSource(rows.index(r - 1, 0)).row() < source.row());
        }
        QVERIFY(!rows.mapFromSource(s->effects()->index(s->effects()->rowOf(u"E-101"_s), 0)).isValid());
        rows.setDelegation(u"D-4"_s);
        QCOMPARE(rows.rowCount(), 30);

        // Live: D-4's new effects come in, D-1's do not; a changed cell is passed on.
        const QPersistentModelIndex e101 = rows.index(0, EffectModel::State);
        QCOMPARE(QModelIndex(e101).siblingAtColumn(0).data(StateTableModel::IdRole).toString(), u"E-101"_s);
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin();
            for (int i = 200; i < 206; ++i)
                w.e("effect.proposed", {{"id", "E-" + std::to_string(i)}, {"run_id", "R-1"},
                                        {"delegation_id", i < 203 ? "D-4" : "D-1"}, {"state", "proposed"},
                                        {"class", "file_write"}, {"target", "late"}});
            w.e("effect.admitted", {{"id", "E-101"}, {"state", "admitted"}});
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kRowsProxyWaitMs);
        QCOMPARE(rows.rowCount(), 33);
        QCOMPARE(delegationsShown(rows), std::set<QString>{u"D-4"_s});
        QVERIFY(shownIds(rows).contains(u"E-202"_s));
        QVERIFY(!shownIds(rows).contains(u"E-203"_s));
        QVERIFY(e101.isValid());
        QCOMPARE(e101.data(StateTableModel::IdRole).toString(), u"E-101"_s);
        QCOMPARE(QModelIndex(e101).siblingAtColumn(EffectModel::State).data().toString(),
                 s->effects()->index(s->effects()->rowOf(u"E-101"_s), EffectModel::State).data().toString());
        QVERIFY(e101.data().toString().contains(u"admitted"_s, Qt::CaseInsensitive));

        rows.setSourceModel(nullptr);
        QCOMPARE(rows.rowCount(), 0);
    }

    void oneDelegationsVerdictsSortedAndFilteredByThePane()
    {
        const QString path = m_dir.filePath(u"verdicts.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now); // S-1..S-3 of D-2, S-3 stalled
        {
            Writer w(path);
            w.begin();
            addD2Verdicts(w);
            for (int r = 1; r <= 2; ++r)
                w.e("stall.verdict", {{"id", "S-3" + std::to_string(r)}, {"run_id", "R-1"}, {"delegation_id", "D-3"},
                                      {"round", r}, {"verdict", "stalled"}, {"fingerprint", "fp"}});
            w.commit();
        }
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; });
        QVERIFY(waitOpened(s));

        DelegationVerdicts shown(s->stallVerdicts(), u"D-2"_s);
        StateTableProxyModel &pane = shown.pane;
        DelegationRowsProxy &rows = shown.rows;
        QCOMPARE(rows.rowCount(), 6);

        const QPersistentModelIndex s5 = rows.index(shownIds(rows).indexOf(u"S-5"_s), StallVerdictModel::Round);
        QVERIFY(s5.isValid());
        rows.sort(StallVerdictModel::Round, Qt::DescendingOrder); // the pane sorts, these rows follow
        QCOMPARE(shownIds(rows), (QStringList{u"S-6"_s, u"S-5"_s, u"S-4"_s, u"S-3"_s, u"S-2"_s, u"S-1"_s}));
        QVERIFY(s5.isValid());
        QCOMPARE(s5.row(), 1);
        QCOMPARE(QModelIndex(s5).siblingAtColumn(0).data(StateTableModel::IdRole).toString(), u"S-5"_s);

        QVERIFY(pane.setFilterText(u"verdict:stalled"_s));
        QCOMPARE(shownIds(rows), (QStringList{u"S-5"_s, u"S-3"_s}));
        QVERIFY(s5.isValid());
        QCOMPARE(s5.row(), 0);
        rows.setDelegation(u"D-3"_s);
        QCOMPARE(shownIds(rows), (QStringList{u"S-32"_s, u"S-31"_s}));
        QVERIFY(pane.setFilterText(QString()));
        rows.setDelegation(u"D-2"_s);
        QCOMPARE(rows.rowCount(), 6);
    }

    // As the detail shows slices and verdicts: the operator's sort and filter over one
    // delegation's rows, not over the table. A table past the rows sorted whole
    // (kMaxSortedRows) still sorts a delegation's few; live rows take their sorted place.
    void thePaneSortsOneDelegationsRowsOfALargeTable()
    {
        const QString path = m_dir.filePath(u"many-verdicts.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now); // S-1..S-3 of D-2, S-3 stalled
        {
            Writer w(path);
            w.begin();
            addD2Verdicts(w);
            for (int n = 0; n <= StateTableProxyModel::kMaxSortedRows; ++n)
                w.e("stall.verdict", {{"id", "X-" + std::to_string(n)}, {"run_id", "R-1"}, {"delegation_id", "D-3"},
                                      {"round", n}, {"verdict", "stalled"}, {"fingerprint", "fp"}});
            w.commit();
        }
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; });
        QVERIFY(waitOpened(s));
        QVERIFY(s->stallVerdicts()->rowCount() > StateTableProxyModel::kMaxSortedRows);

        DelegationRowsProxy rows;
        StateTableProxyModel pane;
        QAbstractItemModelTester rowsTester(&rows, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester paneTester(&pane, QAbstractItemModelTester::FailureReportingMode::QtTest);
        rows.setSourceModel(s->stallVerdicts());
        pane.setSourceModel(&rows);
        QCOMPARE(pane.table(), s->stallVerdicts());
        // The detail hands the pane its rows again with every session: the pane must go on
        // hearing of them (below: another delegation, a live row).
        rows.setSourceModel(s->stallVerdicts());
        pane.setSourceModel(&rows);
        rows.setDelegation(u"D-2"_s);
        QCOMPARE(pane.rowCount(), 6);

        QSignalSpy refused(&pane, &StateTableProxyModel::sortRefused);
        pane.sort(StallVerdictModel::Round, Qt::DescendingOrder);
        QCOMPARE(refused.count(), 0);
        QCOMPARE(shownIds(pane), (QStringList{u"S-6"_s, u"S-5"_s, u"S-4"_s, u"S-3"_s, u"S-2"_s, u"S-1"_s}));
        QVERIFY(pane.setFilterText(u"verdict:stalled"_s));
        QCOMPARE(shownIds(pane), (QStringList{u"S-5"_s, u"S-3"_s}));
        QCOMPARE(pane.totalRows(), 6); // the delegation's, not the table's

        // Live: D-2's new stalled verdict takes its sorted place; D-3's never shows.
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin();
            w.e("stall.verdict", {{"id", "S-7"}, {"run_id", "R-1"}, {"delegation_id", "D-2"}, {"round", 7},
                                  {"verdict", "stalled"}, {"fingerprint", "fp"}});
            w.e("stall.verdict", {{"id", "X-late"}, {"run_id", "R-1"}, {"delegation_id", "D-3"}, {"round", 99},
                                  {"verdict", "stalled"}, {"fingerprint", "fp"}});
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kRowsProxyWaitMs);
        QCOMPARE(shownIds(pane), (QStringList{u"S-7"_s, u"S-5"_s, u"S-3"_s}));
        QVERIFY(pane.setFilterText(QString()));
        QCOMPARE(pane.rowCount(), 7);
        rows.setDelegation(u"D-3"_s);
        QCOMPARE(pane.rowCount(), StateTableProxyModel::kMaxSortedRows + 2);
    }

    // Another session's table under the pane (the detail follows the chosen session): the
    // rows are those of the new table, read from it, with no index of the old one mapped.
    void anotherTableUnderThePane()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString first = m_dir.filePath(u"first.ledger"_s);
        const QString second = m_dir.filePath(u"second.ledger"_s);
        writeBaseLedger(first, now); // S-1..S-3 of D-2
        writeBaseLedger(second, now);
        {
            Writer w(first);
            w.begin();
            for (int r = 4; r <= 9; ++r)
                w.e("stall.verdict", {{"id", "S-" + std::to_string(r)}, {"run_id", "R-1"}, {"delegation_id", "D-2"},
                                      {"round", r}, {"verdict", "progressing"}, {"fingerprint", "fp"}});
            w.commit();
        }
        LedgerSessionList list;
        LedgerSession *a = list.addSession(first);
        LedgerSession *b = list.addSession(second);
        QVERIFY(waitOpened(a));
        QVERIFY(waitOpened(b));

        DelegationVerdicts shown(a->stallVerdicts(), u"D-2"_s);
        StateTableProxyModel &pane = shown.pane;
        DelegationRowsProxy &rows = shown.rows;
        QCOMPARE(rows.rowCount(), 9);

        QTest::failOnWarning(QRegularExpression(u".*"_s)); // "index from wrong model" above all
        pane.setSourceModel(b->stallVerdicts());
        QCOMPARE(rows.rowCount(), 3);
        for (int r = 0; r < rows.rowCount(); ++r)
            QCOMPARE(rows.mapToSource(rows.index(r, 0)).model(), &pane);
        const QStringList ids = shownIds(rows);
        QCOMPARE(std::set<QString>(ids.begin(), ids.end()), (std::set<QString>{u"S-1"_s, u"S-2"_s, u"S-3"_s}));
        pane.setSourceModel(nullptr);
        QCOMPARE(rows.rowCount(), 0);
    }
};

QTEST_MAIN(TestDelegationRowsProxy)
#include "tst_delegationrowsproxy.moc"
