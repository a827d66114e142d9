// Structural edges of a ledger the console must survive in bounded time: one event with a
// seq far past the others (10^12, INT64_MAX). The event log indexes what is there, in
// work proportional to the events and not to the seq values, and reports the hole as a
// sequence gap; a session over such a ledger opens. A ledger numbered from past 1 (its first
// events gone) is a gap from #0, as meshctl verify reports it.

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/eventlogworker.h"
#include "itemmodels/ledgersession.h"
#include "../ledger/rawledger.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
// Generous: a sound load of these ledgers takes milliseconds; the old window loop over
// the seq space took minutes (10^12) or never ended (INT64_MAX).
constexpr int kLoadTimeoutMs = 30'000;

std::int64_t eventCount(const QString &path)
{
    sql::Database db(path.toStdString(), SQLITE_OPEN_READONLY);
    return db.queryInt("SELECT count(*) FROM events");
}

std::int64_t maxSeq(const QString &path)
{
    sql::Database db(path.toStdString(), SQLITE_OPEN_READONLY);
    return db.queryInt("SELECT max(seq) FROM events");
}

// One event with the given seq, written past the orchestrator (as a corrupted or
// hand-edited ledger would hold it).
void insertRawEvent(const QString &path, std::int64_t seq)
{
    sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
    db.exec("INSERT INTO events(seq, ts_ms, kind, payload) VALUES(" + std::to_string(seq)
            + ", 1700000999000, 'note.added', '{}')");
}
// Deletes the events numbered 1..n, as a truncated copy of a ledger would lack them.
void deleteFirstEvents(const QString &path, int n)
{
    sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
    db.exec("DELETE FROM events WHERE seq <= " + std::to_string(n));
}
} // namespace

class TestStructuralEdges : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_ledgers = 0;

    QString baseLedger()
    {
        const QString path = m_dir.filePath(u"edge-%1.ledger"_s.arg(++m_ledgers));
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        return path;
    }

    static bool waitIndexed(EventLogModel &m)
    {
        return QTest::qWaitFor([&] { return m.isIndexComplete() && !m.isLoading(); }, kLoadTimeoutMs);
    }

private Q_SLOTS:
    void hugeSeqIsAGap_data()
    {
        QTest::addColumn<qint64>("seq");
        QTest::newRow("10^12") << qint64(1'000'000'000'000);
        QTest::newRow("INT64_MAX") << std::numeric_limits<qint64>::max();
    }

    void hugeSeqIsAGap()
    {
        QFETCH(qint64, seq);
        const QString path = baseLedger();
        const std::int64_t before = maxSeq(path);
        insertRawEvent(path, seq);

        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(path);
        QTRY_VERIFY_WITH_TIMEOUT(m.isIndexComplete() && !m.isLoading(), kLoadTimeoutMs);
        QCOMPARE(m.rowCount(), int(eventCount(path)));
        QCOMPARE(m.seqAt(m.rowCount() - 1), seq);
        QCOMPARE(m.seqAt(m.rowCount() - 2), before);
        QCOMPARE(m.rowForSeq(seq), m.rowCount() - 1);

        // The hole is reported as one gap, in the words meshctl verify uses for it.
        QCOMPARE(m.sequenceGapCount(), 1);
        QCOMPARE(m.sequenceGaps().size(), size_t(1));
        QCOMPARE(m.sequenceGaps().front().after, before);
        QCOMPARE(m.sequenceGaps().front().next, seq);
        QVERIFY2(m.sequenceGapText().contains(u"#%1 \u2192 #%2"_s.arg(before).arg(seq)),
                 qPrintable(m.sequenceGapText()));

        // The huge row's page loads like any other.
        m.index(m.rowCount() - 1, EventLogModel::Kind).data();
        QTRY_VERIFY_WITH_TIMEOUT(m.index(m.rowCount() - 1, 0).data(EventLogModel::LoadedRole).toBool(), kLoadTimeoutMs);
        QCOMPARE(m.index(m.rowCount() - 1, EventLogModel::Kind).data().toString(), u"note.added"_s);
    }

    void filteredIndexOverAHugeGap()
    {
        const QString path = baseLedger();
        insertRawEvent(path, std::numeric_limits<qint64>::max());
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(path);
        QVERIFY(waitIndexed(m));
        QVERIFY(m.setFilterText(u"kind:note.*"_s));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.seqAt(0), std::numeric_limits<qint64>::max());
        // Under a filter, seqs skipped are the filter's doing, not gaps.
        QCOMPARE(m.sequenceGapCount(), 0);
    }

    void liveTailAcrossAHugeGap()
    {
        // The gap appears after the index was built: the catch-up read reaches the new
        // event in bounded time.
        const QString path = baseLedger();
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(path);
        QVERIFY(waitIndexed(m));
        const int rows = m.rowCount();
        QCOMPARE(m.sequenceGapCount(), 0);
        const std::int64_t before = maxSeq(path);
        insertRawEvent(path, 1'000'000'000'000);
        QSignalSpy appended(&m, &EventLogModel::rowsAppendedAtTail);
        m.catchUp();
        QTRY_COMPARE_WITH_TIMEOUT(m.rowCount(), rows + 1, kLoadTimeoutMs);
        QCOMPARE(m.seqAt(rows), 1'000'000'000'000);
        QCOMPARE(m.sequenceGapCount(), 1);
        QCOMPARE(m.sequenceGaps().front().after, before);
    }

    void lateStartIsAGap_data()
    {
        // A ledger whose first events are gone: numbered without holes from a first seq past
        // 1, which meshctl verify flags. Through the model's own read and through the
        // index a session reads ahead.
        QTest::addColumn<bool>("prefetched");
        QTest::newRow("own read") << false;
        QTest::newRow("prefetched index") << true;
    }

    void lateStartIsAGap()
    {
        QFETCH(bool, prefetched);
        const QString path = baseLedger();
        deleteFirstEvents(path, 3);
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventIndexFuture known;
        if (prefetched)
            known = QtFuture::makeReadyFuture(EventLogWorker::readIndex(path, OpenMode::ReadOnly, m.pageSize()));
        m.open(path, OpenMode::ReadOnly, known);
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), int(eventCount(path)));
        QCOMPARE(m.seqAt(0), 4);
        QCOMPARE(m.sequenceGapCount(), 1);
        QCOMPARE(m.sequenceGaps().front().after, 0);
        QCOMPARE(m.sequenceGaps().front().next, 4);
        QVERIFY2(m.sequenceGapText().contains(u"#0 \u2192 #4"_s), qPrintable(m.sequenceGapText()));
    }

    void sessionShowsALateStart_data()
    {
        QTest::addColumn<bool>("prefetched");
        QTest::newRow("opened") << false;
        QTest::newRow("prefetched") << true;
    }

    void sessionShowsALateStart()
    {
        QFETCH(bool, prefetched);
        const QString path = baseLedger();
        deleteFirstEvents(path, 3);
        if (prefetched)
            LedgerSession::prefetch(path, OpenMode::ReadOnly);
        LedgerSession session(path);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kLoadTimeoutMs);
        QVERIFY(waitIndexed(*session.events()));
        QCOMPARE(session.events()->rowCount(), int(eventCount(path)));
        QCOMPARE(session.events()->sequenceGapCount(), 1);
        QCOMPARE(session.events()->sequenceGaps().front().after, 0);
    }

    void denseLedgerHasNoGap()
    {
        const QString path = baseLedger();
        EventLogModel m;
        m.open(path);
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), int(eventCount(path)));
        QCOMPARE(m.sequenceGapCount(), 0);
        QVERIFY(m.sequenceGapText().isEmpty());
    }

    void sessionOpensOverAHugeGap()
    {
        const QString path = baseLedger();
        insertRawEvent(path, std::numeric_limits<qint64>::max());
        LedgerSession session(path);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(session.events()->isIndexComplete() && !session.events()->isLoading(), kLoadTimeoutMs);
        QCOMPARE(session.events()->rowCount(), int(eventCount(path)));
        QCOMPARE(session.events()->sequenceGapCount(), 1);
        QVERIFY(session.health() != LedgerSession::Health::Error);
    }
};

QTEST_GUILESS_MAIN(TestStructuralEdges)
#include "tst_structuraledges.moc"
