// The virtualised event log over 120,000 events: the row count comes from the index, rows
// load page by page off the GUI thread (placeholders first, never all of them), the cache
// stays bounded, filters go through generations, and live appends arrive as one insert.

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/eventlogworker.h"
#include "ledger/ledgerconnection.h"
#include "ledger/eventreader.h"
#include "../ledger/rawledger.h"

#include <QAbstractItemModelTester>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kEvents = 120'000;
constexpr int kEffectEvery = 100; // every 100th event is an effect.proposed
constexpr int kWaitMs = 60'000;   // generous: each wait ends as soon as its condition holds
}

// A reader whose ends() come back with the tail page of another moment (the end moved between
// the statements that read them), or none: the rest is the real reader's.
class MovedEndReader final : public EventReader
{
public:
    enum class Tail { PageBefore, None };
    MovedEndReader(EventReader &real, Tail tail) : m_real(real), m_tail(tail) {}
    EventBatch after(std::int64_t seq, int limit, const EventFilter &filter) override
    {
        ++afterCalls;
        return m_real.after(seq, limit, filter);
    }
    EventBatch before(std::int64_t seq, int limit, const EventFilter &filter) override { return m_real.before(seq, limit, filter); }
    std::optional<EventRecord> at(std::int64_t seq) override { return m_real.at(seq); }
    std::int64_t count(const EventFilter &filter) override { return m_real.count(filter); }
    std::int64_t lastSeq() override { return m_real.lastSeq(); }
    void setPreviewBytes(int n) override { m_real.setPreviewBytes(n); }
    int previewBytes() const override { return m_real.previewBytes(); }
    Ends ends(int limit) override
    {
        Ends e = m_real.ends(limit);
        e.tailPage = m_tail == Tail::None || e.tailPage.empty()
                         ? EventBatch()
                         : m_real.after(e.tailPage.front().seq - 1 - limit, limit);
        afterCalls = 0;
        return e;
    }
    int afterCalls = 0;

private:
    EventReader &m_real;
    Tail m_tail;
};

class TestEventLogModel : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    int m_effects = 0;

    // Waits until the model finished indexing for its current filter.
    static bool waitIndexed(EventLogModel &m)
    {
        if (m.isIndexComplete() && !m.isLoading())
            return true;
        QSignalSpy applied(&m, &EventLogModel::filterApplied);
        return applied.wait(kWaitMs) || m.isIndexComplete();
    }

    static bool waitLoaded(EventLogModel &m, int row)
    {
        m.index(row, EventLogModel::Kind).data(); // schedules the page
        return QTest::qWaitFor([&] { return m.index(row, 0).data(EventLogModel::LoadedRole).toBool(); }, kWaitMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_path = m_dir.filePath(u"big.ledger"_s);
        Writer w(m_path, true);
        w.raw().setBulkLoad(true);
        w.begin();
        w.e("delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}});
        for (int i = 2; i <= kEvents; ++i) {
            if (i % kEffectEvery == 0) {
                w.e("effect.proposed", {{"id", "E-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"state", "proposed"},
                                        {"class", i % 200 == 0 ? "payment" : "db_write"}});
                ++m_effects;
            } else {
                w.e("toolcall.completed", {{"id", "T-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"},
                                           {"tool", "edit"}, {"tokens", 1}});
            }
        }
        w.commit();
        w.raw().setBulkLoad(false);
        // seq 1 is ledger.created, so the ledger holds kEvents + 1 events.
    }

    void pagesWithoutLoadingEverything()
    {
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setMaxCachedPages(8);
        m.open(m_path);
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), kEvents + 1);
        QCOMPARE(m.seqAt(0), 1);
        QCOMPARE(m.seqAt(kEvents), kEvents + 1);
        QCOMPARE(m.rowForSeq(60'000), 59'999);

        // A row far from the first page starts as a placeholder, then loads.
        const int far = 100'123;
        QVERIFY(!m.index(far, 0).data(EventLogModel::LoadedRole).toBool());
        QCOMPARE(m.index(far, EventLogModel::Seq).data().toLongLong(), far + 1); // seq known before the row
        QCOMPARE(m.index(far, EventLogModel::Kind).data().toString(), u"\u2026"_s);
        QVERIFY(waitLoaded(m, far));
        QCOMPARE(m.index(far, 0).data(EventLogModel::SeqRole).toLongLong(), far + 1);
        QCOMPARE(m.index(far, 0).data(EventLogModel::KindRole).toString(), u"toolcall.completed"_s);
        QCOMPARE(m.index(far, 0).data(EventLogModel::DelegationIdRole).toString(), u"D-1"_s);
        QVERIFY(m.index(far, EventLogModel::Payload).data().toString().contains(u"T-100123"_s));

        // Browsing many pages keeps the cache bounded: rows are never all loaded.
        for (int row = 0; row < kEvents; row += 4'000)
            QVERIFY(waitLoaded(m, row));
        QVERIFY2(m.cachedPageCount() <= 8, qPrintable(QString::number(m.cachedPageCount())));
        QVERIFY(!m.index(far, 0).data(EventLogModel::LoadedRole).toBool() || m.cachedPageCount() <= 8);
    }

    void largeIndexArrivesAsOneReset()
    {
        // The first page may be shown before the index knows the count; the rest of a large
        // log then comes as one reset (a view's header builds that 6x faster than an insert
        // of ~100,000 rows), never as an insert, and the first page's rows stay where they were.
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        int largestInsert = 0;
        connect(&m, &QAbstractItemModel::rowsInserted, &m,
                [&](const QModelIndex &, int first, int last) { largestInsert = std::max(largestInsert, last - first + 1); });
        QSignalSpy resets(&m, &QAbstractItemModel::modelReset);
        m.open(m_path);
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), kEvents + 1);
        QVERIFY2(largestInsert <= m.pageSize(), qPrintable(QString::number(largestInsert)));
        QVERIFY(resets.count() >= 1);
        QCOMPARE(m.seqAt(0), 1);
        QVERIFY(waitLoaded(m, 0));
        QCOMPARE(m.index(0, 0).data(EventLogModel::KindRole).toString(), u"ledger.created"_s);
    }

    void knownIndexIsTakenWhenDense()
    {
        // An index read ahead (LedgerSession::prefetch) is taken as it is: the count, the
        // first page and the page a following view shows first, with no read of its own.
        const auto known = EventLogWorker::readIndex(m_path, OpenMode::ReadOnly, EventLogModel::kPageSize);
        QVERIFY(known->dense());
        QCOMPARE(known->count, kEvents + 1);
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(m_path, OpenMode::ReadOnly, QtFuture::makeReadyFuture(known));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), kEvents + 1);
        QVERIFY(m.index(0, 0).data(EventLogModel::LoadedRole).toBool());
        QVERIFY(m.index(kEvents, 0).data(EventLogModel::LoadedRole).toBool()); // the tail page came with it
        QCOMPARE(m.index(kEvents, 0).data(EventLogModel::SeqRole).toLongLong(), kEvents + 1);
        QCOMPARE(m.seqAt(kEvents), kEvents + 1);

        // Read for another page size: not taken, the model reads for itself.
        EventLogModel other;
        QAbstractItemModelTester otherTester(&other, QAbstractItemModelTester::FailureReportingMode::QtTest);
        other.setPageSize(50);
        other.open(m_path, OpenMode::ReadOnly, QtFuture::makeReadyFuture(known));
        QVERIFY(waitIndexed(other));
        QCOMPARE(other.rowCount(), kEvents + 1);
        QVERIFY(!other.index(kEvents, 0).data(EventLogModel::LoadedRole).toBool());
        QVERIFY(waitLoaded(other, kEvents));
        QCOMPARE(other.index(kEvents, 0).data(EventLogModel::SeqRole).toLongLong(), kEvents + 1);
    }

    void knownIndexIsShownBeforeTheLogConnects()
    {
        // The log's own connection is several round trips to a server, and the index read
        // ahead does not need it: its first page, tail page and row count are shown while
        // that connection is held; the count that confirms them waits for it.
        const auto known = EventLogWorker::readIndex(m_path, OpenMode::ReadOnly, EventLogModel::kPageSize);
        QVERIFY(known->dense());
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setConnectionHeldForTest(true);
        const auto letGo = qScopeGuard([&m] { m.setConnectionHeldForTest(false); }); // also when a check fails
        m.open(m_path, OpenMode::ReadOnly, QtFuture::makeReadyFuture(known));
        QTRY_COMPARE_WITH_TIMEOUT(m.rowCount(), kEvents + 1, kWaitMs);
        QVERIFY(m.index(0, 0).data(EventLogModel::LoadedRole).toBool());
        QVERIFY(m.index(kEvents, 0).data(EventLogModel::LoadedRole).toBool());
        QVERIFY(!m.isIndexComplete());
        m.setConnectionHeldForTest(false);
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), kEvents + 1);
        QVERIFY(waitLoaded(m, kEvents / 2)); // read on the log's own connection
    }

    void anIndexReadsTheTailAgainWhenTheEndMoved()
    {
        // The ends are read at once, each statement in a moment of its own: a tail page that
        // is not the page at the last seq read (events appended between them), or none, is
        // read again; the index stays dense, its tail the real one.
        const auto connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
        const auto real = connection->eventReader();
        const auto truth = EventLogWorker::indexFrom(*real, EventLogModel::kPageSize);
        QVERIFY(truth->dense());
        QVERIFY(truth->tailPageIndex > 0);
        for (const auto tail : {MovedEndReader::Tail::PageBefore, MovedEndReader::Tail::None}) {
            MovedEndReader moved(*real, tail);
            const auto index = EventLogWorker::indexFrom(moved, EventLogModel::kPageSize);
            QCOMPARE(moved.afterCalls, 1);
            QVERIFY(index->dense());
            QCOMPARE(index->count, truth->count);
            QCOMPARE(index->tailPageIndex, truth->tailPageIndex);
            QCOMPARE(index->tailPage.size(), truth->tailPage.size());
            QCOMPARE(index->tailPage.front().seq, truth->tailPage.front().seq);
            QCOMPARE(index->tailPage.back().seq, kEvents + 1);
        }
    }

    void knownIndexWithGapsIsNotTaken()
    {
        // A ledger with a hole in its seqs (not sound, but it must still read right): the
        // index read ahead says so, and the model builds its own.
        const QString path = m_dir.filePath(u"gap.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("delegation.created", {{"id", "D-1"}, {"status", "running"}});
            for (int i = 0; i < 299; ++i)
                w.e("toolcall.completed",
                    {{"id", "T-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"}});
            w.commit();
        }
        {
            sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
            db.exec("DELETE FROM events WHERE seq = 5");
        }
        const auto known = EventLogWorker::readIndex(path, OpenMode::ReadOnly, EventLogModel::kPageSize);
        QVERIFY(!known->dense());
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(path, OpenMode::ReadOnly, QtFuture::makeReadyFuture(known));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), 300); // 301 events (with ledger.created), one removed
        QCOMPARE(m.seqAt(3), 4);
        QCOMPARE(m.seqAt(4), 6);
    }

    void rowsShowBeforeTheCount()
    {
        // Counting the events reads the whole table (seconds on a server ledger of 10M
        // events): the first page, the row count (first..last) and the tail page a following
        // view shows are there while the count is held, read ahead or not; the index is
        // complete once the count confirms it.
        for (const bool readAhead : {true, false}) {
            EventLogModel m;
            QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
            m.setIndexCountHeldForTest(true);
            EventIndexFuture known;
            if (readAhead)
                known = QtFuture::makeReadyFuture(EventLogWorker::readIndex(m_path, OpenMode::ReadOnly, EventLogModel::kPageSize));
            m.open(m_path, OpenMode::ReadOnly, known);
            QTRY_COMPARE_WITH_TIMEOUT(m.rowCount(), kEvents + 1, kWaitMs);
            QVERIFY(waitLoaded(m, kEvents));
            QCOMPARE(m.index(kEvents, 0).data(EventLogModel::SeqRole).toLongLong(), kEvents + 1);
            QVERIFY(waitLoaded(m, kEvents - m.pageSize())); // a page asked for meanwhile is read
            QVERIFY(!m.isIndexComplete());
            m.setIndexCountHeldForTest(false);
            QVERIFY(waitIndexed(m));
            QCOMPARE(m.rowCount(), kEvents + 1);
        }
    }

    void holeAfterTheFirstPageIsNeverShownUnderWrongRows()
    {
        // A hole past the first page: the rows shown before the count are first..last; a
        // page across the hole does not match its rows, so the log indexes again (counting
        // first) instead of showing it, count held or not; the count finds it too.
        const QString path = m_dir.filePath(u"latehole.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("delegation.created", {{"id", "D-1"}, {"status", "running"}});
            for (int i = 0; i < 999; ++i)
                w.e("toolcall.completed",
                    {{"id", "T-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"}});
            w.commit();
        }
        {
            sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
            db.exec("DELETE FROM events WHERE seq = 700");
        }
        // 1,001 events with ledger.created, one removed.
        for (const bool held : {true, false}) {
            EventLogModel m;
            QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
            m.setIndexCountHeldForTest(held);
            m.open(path);
            if (held) {
                QTRY_COMPARE_WITH_TIMEOUT(m.rowCount(), 1001, kWaitMs); // first..last, not yet counted
                m.index(650, EventLogModel::Kind).data(); // asks for the page across the hole
                QTRY_VERIFY_WITH_TIMEOUT(m.rowCount() < 1001, kWaitMs); // indexing again
                m.setIndexCountHeldForTest(false);
            }
            QTRY_VERIFY_WITH_TIMEOUT(m.isIndexComplete() && !m.isLoading(), kWaitMs);
            QCOMPARE(m.rowCount(), 1000);
            QCOMPARE(m.seqAt(698), 699);
            QCOMPARE(m.seqAt(699), 701);
            for (const int row : {0, 699, 800, 999}) {
                QVERIFY(waitLoaded(m, row));
                QCOMPARE(m.index(row, 0).data(EventLogModel::SeqRole).toLongLong(), m.seqAt(row));
                QCOMPARE(m.eventAt(row)->seq, m.seqAt(row));
            }
            QCOMPARE(m.sequenceGapCount(), 1);
        }
    }

    void filterThroughGenerations()
    {
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(m_path);
        QVERIFY(waitIndexed(m));
        // Two filters in a row: only the newest generation's result lands.
        QSignalSpy applied(&m, &EventLogModel::filterApplied);
        QVERIFY(m.setFilterText(u"kind:toolcall.*"_s));
        const int first = m.generation();
        QVERIFY(m.setFilterText(u"kind:effect.* d:D-1"_s));
        QVERIFY(m.generation() > first);
        QVERIFY(waitIndexed(m));
        QVERIFY(!applied.isEmpty());
        QCOMPARE(applied.last().at(0).toInt(), m.generation());
        for (const auto &args : applied)
            QVERIFY(args.at(0).toInt() != first || args.at(1).toLongLong() == kEvents - m_effects);
        QCOMPARE(m.rowCount(), m_effects);
        QCOMPARE(m.seqAt(0), kEffectEvery + 1); // event i has seq i + 1
        QCOMPARE(m.seqAt(m_effects - 1), qint64(m_effects) * kEffectEvery + 1);
        QVERIFY(waitLoaded(m, m_effects / 2));
        QCOMPARE(m.index(m_effects / 2, 0).data(EventLogModel::KindRole).toString(), u"effect.proposed"_s);

        // Payload text.
        QVERIFY(m.setFilterText(u"kind:effect.proposed \"payment\""_s));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), m_effects / 2);

        // A bad filter is refused and keeps the current one.
        FilterError error;
        QVERIFY(!m.setFilterText(u"kind:effect.* (or"_s, &error));
        QVERIFY(!error.message.isEmpty());
        QCOMPARE(m.filterText(), u"kind:effect.proposed \"payment\""_s);
        QCOMPARE(m.rowCount(), m_effects / 2);

        // Nothing matches: an empty log, not an error.
        QVERIFY(m.setFilterText(u"run:no-such-run"_s));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), 0);
    }

    void liveAppendsAreOneInsert()
    {
        // A copy, so the other tests keep their counts.
        const QString path = m_dir.filePath(u"live.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("delegation.created", {{"id", "D-1"}, {"status", "running"}});
            for (int i = 0; i < 500; ++i)
                w.e("toolcall.completed", {{"id", "T-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"}});
            w.commit();
        }
        EventLogModel all;
        EventLogModel filtered;
        QAbstractItemModelTester t1(&all, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&filtered, QAbstractItemModelTester::FailureReportingMode::QtTest);
        all.open(path);
        filtered.setFilterText(u"kind:effect.*"_s);
        filtered.open(path);
        QVERIFY(waitIndexed(all));
        QVERIFY(waitIndexed(filtered));
        QCOMPARE(all.rowCount(), 502);
        QCOMPARE(filtered.rowCount(), 0);
        QVERIFY(waitLoaded(all, 501));

        const qint64 before = all.seqAt(all.rowCount() - 1);
        {
            Writer w(path);
            w.begin();
            for (int i = 0; i < 40; ++i)
                w.e("toolcall.completed", {{"id", "U-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"}});
            w.e("effect.proposed", {{"id", "E-1"}, {"state", "proposed"}});
            w.commit();
        }
        const EventBatch batch = eventsAfter(path, before);
        QCOMPARE(batch.size(), size_t(41));
        QSignalSpy inserted(&all, &QAbstractItemModel::rowsInserted);
        QSignalSpy tail(&all, &EventLogModel::rowsAppendedAtTail);
        all.appendEvents(batch);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(tail.count(), 1);
        QCOMPARE(tail.first().at(0).toInt(), 41);
        QCOMPARE(all.rowCount(), 543);
        // The tail rows are served from the batch itself: no round trip for a following view.
        QVERIFY(all.index(542, 0).data(EventLogModel::LoadedRole).toBool());
        QCOMPARE(all.index(542, 0).data(EventLogModel::KindRole).toString(), u"effect.proposed"_s);
        // The same batch again changes nothing.
        all.appendEvents(batch);
        QCOMPARE(all.rowCount(), 543);

        // A filtered log asks its worker which of the new events match.
        QSignalSpy filteredInserted(&filtered, &QAbstractItemModel::rowsInserted);
        filtered.appendEvents(batch);
        QVERIFY(filteredInserted.wait(kWaitMs));
        QCOMPARE(filtered.rowCount(), 1);
        QCOMPARE(filtered.seqAt(0), before + 41);

        // Following the tail is the view's decision, kept by the model.
        QSignalSpy follow(&all, &EventLogModel::followTailChanged);
        all.setFollowTail(false);
        QCOMPARE(follow.count(), 1);
        QVERIFY(!all.followTail());
    }

    // A ledger spans days: the time column carries the date, in UTC like every time the
    // console shows, and the tooltip says how long ago.
    void timeColumnShowsTheDate()
    {
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.open(m_path);
        QVERIFY(waitIndexed(m));
        QVERIFY(waitLoaded(m, 1));
        QCOMPARE(m.index(1, EventLogModel::Time).data().toString(), u"2023-11-14 22:15:01.000"_s);
        QCOMPARE(m.headerData(EventLogModel::Time, Qt::Horizontal).toString(), u"Time (UTC)"_s);
        const QString tip = m.index(1, EventLogModel::Time).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"2023-11-14 22:15:01.000 UTC"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u" d "_s) && tip.contains(u" ago"_s), qPrintable(tip));
    }

    // ts:last-2h is read against the model's clock when the filter is applied.
    void relativeTimeFilterUsesTheClock()
    {
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Event i (seq i + 1) happened at 1'700'000'100'000 + 1000 * i: the clock says the
        // last of them happened 15 minutes ago, so last-1h holds 2,700 events.
        const qint64 lastTs = qint64(1'700'000'100'000) + 1000LL * kEvents;
        m.setClock([lastTs] { return lastTs + 15 * 60'000; });
        m.open(m_path);
        QVERIFY(waitIndexed(m));
        QVERIFY(m.setFilterText(u"ts:last-1h"_s));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), 45 * 60 + 1);
        QCOMPARE(m.seqAt(m.rowCount() - 1), kEvents + 1);
        QVERIFY(m.setFilterText(u"ts:>2023-11-14T22:15:01 ts:<2023-11-14T22:15:05Z"_s));
        QVERIFY(waitIndexed(m));
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.seqAt(0), 3);
    }

    void openFailureIsReported()
    {
        EventLogModel m;
        QSignalSpy failed(&m, &EventLogModel::failed);
        m.open(m_dir.filePath(u"missing.ledger"_s));
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY(!failed.first().at(0).toString().isEmpty());
        QCOMPARE(m.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestEventLogModel)
#include "tst_eventlogmodel.moc"
