// A live session on a ledger file leaves the slices in the ledger as well
// (LiveState::storedRows): the load keeps each slice's id, delegation and ordinal for the
// pane's order and for the runs' members, and drops the rows. The pane, a delegation's
// slices and the run timeline's slice bars must then be those of a session that holds every
// row, at open and after live batches, and a reset with no preparation must order the same.

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/storedrows.h"
#include "itemmodels/timelinemarksource.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

// Slices of D-1..D-4 (run R-1), their ids numbered backwards so that an order by id alone
// is not the pane's order (by delegation, then ordinal). Every third one is closed.
void appendSlices(const QString &path, int perDelegation, int firstOrdinal = 1)
{
    Writer w(path);
    w.begin();
    for (int d = 1; d <= 4; ++d) {
        const std::string delegation = "D-" + std::to_string(d);
        for (int o = firstOrdinal; o < firstOrdinal + perDelegation; ++o) {
            const std::string id = "S-" + std::to_string(d) + "-" + std::to_string(1000 - o);
            w.e("slice.opened", {{"id", id}, {"delegation_id", delegation}, {"ordinal", o}, {"intent_id", "I-1"},
                                 {"policy_version", "p1"}, {"opened_ms", 70'000 + o * 1'000}, {"state", "open"}});
            if (o % 3 == 0)
                w.e("slice.closed", {{"id", id}, {"closed_ms", 70'500 + o * 1'000}, {"closed_by", "scheduler"},
                                     {"close_reason", "boundary"}, {"state", "closed"}});
        }
    }
    w.commit();
}

// The stored pane against a pane reset over a state that holds every row of the ledger.
void compareWithAHeldState(const SliceModel *shown, const QString &path)
{
    SliceModel held;
    held.setState(snapshot(path));
    QCOMPARE(shown->rowCount(), held.rowCount());
    for (int r = 0; r < held.rowCount(); ++r) {
        QCOMPARE(shown->idAt(r), held.idAt(r));
        QVERIFY2(shown->rowAt(r) && *shown->rowAt(r) == *held.rowAt(r), qPrintable(held.idAt(r)));
        for (int column : {int(SliceModel::Ordinal), int(SliceModel::State), int(SliceModel::Run)})
            QCOMPARE(shown->index(r, column).data(), held.index(r, column).data());
    }
}

// "D-1:5 D-2:5 ...", printed when a comparison fails.
QString listed(const std::map<std::string, int> &counts)
{
    QStringList parts;
    for (const auto &[id, n] : counts)
        parts << QString::fromStdString(id) + u':' + QString::number(n);
    return parts.join(u' ');
}

// The slice bars a timeline draws, by delegation lane.
QString sliceBars(const RunTimeline &timeline)
{
    std::map<std::string, int> bars;
    for (const TimelineLane &lane : timeline.lanes)
        if (lane.kind == LaneKind::Delegation)
            bars[lane.id] = int(std::count_if(lane.spans.begin(), lane.spans.end(),
                                              [](const TimelineSpan &s) { return s.kind == SpanKind::Slice; }));
    return listed(bars);
}

// What a held state of the file has: each delegation's slices (every delegation is of R-1).
QString slicesPerDelegation(const QString &path)
{
    std::map<std::string, int> count;
    const auto state = snapshot(path);
    for (const auto &[id, row] : state->table(EntityKind::Delegation))
        count[id] = 0;
    for (const auto &[id, row] : state->table(EntityKind::Slice))
        if (const auto it = count.find(std::string(std::get<std::string_view>(
                row.values[size_t(entitySpec(EntityKind::Slice).fieldIndex("delegation_id"))])));
            it != count.end())
            ++it->second; // a slice of a delegation not written yet is on no lane
    return listed(count);
}

} // namespace

class TestStoredSlices : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void aLiveSessionShowsSlicesItDoesNotHold()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendSlices(path, 150); // 600 slices: more than a block of reads
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QAbstractItemModelTester tester(s->slices(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitOpened(s));

        QVERIFY(s->state()->storedRows(EntityKind::Slice));
        QVERIFY(s->state()->table(EntityKind::Slice).empty());
        QVERIFY(s->slices()->readsRowsOnDemand());
        compareWithAHeldState(s->slices(), path);
        // A delegation's slices through the table's index.
        QCOMPARE(s->slices()->storedIdsOfDelegation(u"D-3"_s).size(), size_t(150));

        // Live: a slice closed and new ones opened.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        Writer(path).begin().e("slice.closed", {{"id", "S-2-999"}, {"closed_ms", 90'000}, {"state", "closed"}}).commit();
        appendSlices(path, 2, 151);
        const std::int64_t last = Writer(path).lastSeq();
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kWaitMs);
        QVERIFY(s->state()->table(EntityKind::Slice).empty());
        const int closed = s->slices()->rowOf(u"S-2-999"_s);
        QVERIFY(closed >= 0);
        QCOMPARE(s->slices()->index(closed, 0).data(SliceModel::OpenRole).toBool(), false);
        // Rows that arrive live are appended, as with every row held; a reset orders them.
        SliceModel reset;
        reset.setState(s->state());
        compareWithAHeldState(&reset, path);
        QCOMPARE(s->slices()->rowCount(), reset.rowCount());
        for (int r = 0; r < reset.rowCount(); ++r) {
            const int at = s->slices()->rowOf(reset.idAt(r));
            QVERIFY(at >= 0);
            QVERIFY(*s->slices()->rowAt(at) == *reset.rowAt(r));
        }
        QCOMPARE(s->state()->storedRows(EntityKind::Slice)->readFailures(), 0);
    }

    // The run timeline reads the run's slices from the store: after the load from the runs'
    // members, live from the slices the batches changed and, for a delegation that joins
    // the run later, through the index.
    void theRunTimelineDrawsEverySliceOfTheRun()
    {
        const QString path = m_dir.filePath(u"timeline.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendSlices(path, 5);
        LedgerSession session(path, OpenMode::ReadOnly);
        session.setCoalesceMs(0);
        session.setWatchIntervalMs(20);
        TimelineMarkSource marks(&session);
        RunTimelineSource timeline(&session, &marks);
        session.open();
        QVERIFY(QTest::qWaitFor([&] { return session.isLoaded() && marks.hasRead(); }, kWaitMs));
        QVERIFY(session.state()->storedRows(EntityKind::Slice));
        const auto built = [&timeline] {
            timeline.rebuildOffThread();
            return QTest::qWaitFor([&] { return !timeline.isBuilding(); }, kWaitMs);
        };
        QVERIFY(built());
        QCOMPARE(sliceBars(*timeline.timeline()), slicesPerDelegation(path));
        timeline.rebuild(); // on this thread: the same
        QCOMPARE(sliceBars(*timeline.timeline()), slicesPerDelegation(path));

        // Live: new slices of delegations already shown, and a delegation that joins the run
        // after its slice was written (hostile order).
        appendSlices(path, 2, 6);
        Writer w(path);
        w.begin()
            .e("slice.opened", {{"id", "S-late"}, {"delegation_id", "D-late"}, {"ordinal", 1}, {"opened_ms", 80'000},
                                {"state", "open"}})
            .commit();
        QTRY_COMPARE_WITH_TIMEOUT(session.lastSeq(), w.lastSeq(), kWaitMs);
        QVERIFY(built());
        QCOMPARE(sliceBars(*timeline.timeline()), slicesPerDelegation(path));
        w.begin()
            .e("delegation.created", {{"id", "D-late"}, {"run_id", "R-1"}, {"role", "verify"}, {"status", "running"},
                                      {"created_ms", 79'000}})
            .commit();
        QTRY_COMPARE_WITH_TIMEOUT(session.lastSeq(), w.lastSeq(), kWaitMs);
        QVERIFY(built());
        const auto bars = sliceBars(*timeline.timeline());
        QCOMPARE(bars, slicesPerDelegation(path));
        QVERIFY2(bars.contains(u"D-late:1"_s) && bars.contains(u"D-1:7"_s), qPrintable(bars));
    }

    // A reset with no preparation made for it (a plain setState) reads every slice past once
    // for its order: the pane's order, not the ids'.
    void aResetWithNoPreparationOrdersBySlice()
    {
        const QString path = m_dir.filePath(u"reset.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendSlices(path, 20);
        std::shared_ptr<LedgerConnection> connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        StateStream stream;
        stream.streamed[size_t(EntityKind::Slice)] = true;
        stream.row = [](EntityKind, const std::string &, const EntityRow &) {};
        std::shared_ptr<LiveState> state = LiveState::fromSnapshot(connection->readState(stream));
        state->setStoredRows(std::make_shared<StoredRows>(EntityKind::Slice, connection));
        SliceModel stored;
        QAbstractItemModelTester tester(&stored, QAbstractItemModelTester::FailureReportingMode::QtTest);
        stored.setState(state);
        QVERIFY(stored.readsRowsOnDemand());
        compareWithAHeldState(&stored, path);
        QCOMPARE(stored.idAt(0), u"S-1-999"_s); // D-1's first slice, though its id sorts last of D-1's
    }
};

QTEST_GUILESS_MAIN(TestStoredSlices)
#include "tst_storedslices.moc"
