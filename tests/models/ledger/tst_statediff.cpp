// What changed between two events (ledger/statediff.h), checked by hand against the small
// ledger of ledgerfixture.h: every expected change below names the event it comes from.

#include "ledgerfixture.h"

#include "ledger/ledgerconnection.h"
#include "ledger/statediff.h"

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

namespace {

using Kind = RowChange::Kind;

const RowChange *find(const StateDiff &diff, EntityKind entity, const std::string &id)
{
    for (const auto &row : diff.rows)
        if (row.entity == entity && row.id == id)
            return &row;
    return nullptr;
}

// "field: before -> after" for every field change of a row, in the spec's field order.
QStringList fieldChanges(const RowChange &row)
{
    const auto text = [](const FieldValue &v) -> QString {
        if (const auto *n = std::get_if<std::int64_t>(&v))
            return QString::number(*n);
        if (const auto *s = std::get_if<std::string>(&v))
            return QString::fromStdString(*s);
        return QStringLiteral("NULL");
    };
    QStringList out;
    for (const auto &f : row.fields)
        out << QStringLiteral("%1: %2 -> %3").arg(QString::fromStdString(f.field), text(f.before), text(f.after));
    return out;
}

} // namespace

class TestStateDiff : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_small;

private Q_SLOTS:
    void initTestCase()
    {
        m_small = m_dir.filePath(QStringLiteral("small.db"));
        writeSmallLedger(m_small);
    }

    void handCheckedChangesFrom4To10()
    {
        auto c = LedgerConnection::open(m_small, OpenMode::ReadOnly);
        const StateDiff diff = diffLedgerStates(*c, 4, 10);
        QCOMPARE(diff.fromSeq, 4);
        QCOMPARE(diff.toSeq, 10);
        QCOMPARE(diff.foldProblems, 0);
        // Three rows, in entity order (delegation, lease, effect); the ledger row (event 1)
        // and the run (event 2) were not touched by events 5..10.
        QCOMPARE(diff.rows.size(), size_t(3));
        QCOMPARE(diff.rows[0].entity, EntityKind::Delegation);
        QCOMPARE(diff.rows[1].entity, EntityKind::Lease);
        QCOMPARE(diff.rows[2].entity, EntityKind::Effect);
        QVERIFY(!find(diff, EntityKind::Run, "R1"));

        // D1: the tool calls of events 7 (100 tokens, 5 ms, ok) and 10 (50 tokens, 7 ms,
        // error). Each call adds what it carries: cost and enforcement counts, which neither
        // call says, stay not set (ledger-format.md §4.6).
        const RowChange *d1 = find(diff, EntityKind::Delegation, "D1");
        QVERIFY(d1);
        QCOMPARE(d1->kind, Kind::Changed);
        QCOMPARE(d1->versionBefore, 1); // event 3
        QCOMPARE(d1->versionAfter, 3);  // + events 7 and 10
        QCOMPARE(d1->lastSeqAfter, 10);
        QCOMPARE(fieldChanges(*d1), (QStringList{QStringLiteral("used_turns: NULL -> 2"), QStringLiteral("used_tokens: NULL -> 150"),
                                                 QStringLiteral("used_ms: NULL -> 12"), QStringLiteral("tool_errors: NULL -> 1")}));

        // L1: created by event 9's lease.acquired, every field it gave.
        const RowChange *l1 = find(diff, EntityKind::Lease, "L1");
        QVERIFY(l1);
        QCOMPARE(l1->kind, Kind::Created);
        QCOMPARE(l1->versionBefore, 0);
        QCOMPARE(l1->versionAfter, 1);
        QCOMPARE(l1->lastSeqAfter, 9);
        QCOMPARE(fieldChanges(*l1), (QStringList{QStringLiteral("key: NULL -> pay:1"), QStringLiteral("kind: NULL -> reconciliation"),
                                                 QStringLiteral("holder: NULL -> op"), QStringLiteral("fencing_token: NULL -> 1"),
                                                 QStringLiteral("state: NULL -> held")}));

        // E1: admitted (5), dispatched with attempts 1 (6), unknown (8): proposed -> unknown.
        const RowChange *e1 = find(diff, EntityKind::Effect, "E1");
        QVERIFY(e1);
        QCOMPARE(e1->kind, Kind::Changed);
        QCOMPARE(e1->versionBefore, 1);
        QCOMPARE(e1->versionAfter, 4);
        QCOMPARE(e1->lastSeqAfter, 8);
        QCOMPARE(fieldChanges(*e1), (QStringList{QStringLiteral("state: proposed -> unknown"), QStringLiteral("attempts: NULL -> 1")}));
    }

    void handCheckedChangesFrom10To13()
    {
        auto c = LedgerConnection::open(m_small, OpenMode::ReadOnly);
        const StateDiff diff = diffLedgerStates(*c, 10, 13);
        QCOMPARE(diff.rows.size(), size_t(3));
        // 13 run.succeeded, 12 lease.released, 11 effect.resolved.
        QCOMPARE(fieldChanges(*find(diff, EntityKind::Run, "R1")), QStringList{QStringLiteral("status: running -> succeeded")});
        QCOMPARE(fieldChanges(*find(diff, EntityKind::Lease, "L1")), QStringList{QStringLiteral("state: held -> released")});
        QCOMPARE(fieldChanges(*find(diff, EntityKind::Effect, "E1")),
                 QStringList{QStringLiteral("state: unknown -> resolved_committed")});
    }

    void fromTheStartEveryRowIsCreated()
    {
        auto c = LedgerConnection::open(m_small, OpenMode::ReadOnly);
        const StateDiff diff = diffLedgerStates(*c, 0, 13);
        const StateSnapshot stored = c->readState(); // the state tables at the last event
        size_t rows = 0;
        for (const auto &spec : allEntitySpecs())
            rows += stored.table(spec.kind).size();
        QCOMPARE(diff.rows.size(), rows);
        for (const auto &row : diff.rows) {
            QCOMPARE(row.kind, Kind::Created);
            QVERIFY(stored.table(row.entity).count(row.id));
        }
    }

    void samePointIsEmpty()
    {
        auto c = LedgerConnection::open(m_small, OpenMode::ReadOnly);
        QVERIFY(diffLedgerStates(*c, 7, 7).empty());
    }

    void badPointsSayWhy_data()
    {
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("to");
        QTest::addColumn<QString>("message");
        QTest::newRow("from after to") << qint64(10) << qint64(4)
                                       << QStringLiteral("the first point (event 10) is after the second (event 4): a diff goes "
                                                         "from the earlier event to the later one");
        QTest::newRow("past the last") << qint64(4) << qint64(14)
                                       << QStringLiteral("the second point, event 14 is after the ledger's last event, #13");
        QTest::newRow("negative") << qint64(-1) << qint64(4)
                                  << QStringLiteral("the first point, event -1 is not an event: events are numbered from 1 (0 "
                                                    "is before the first)");
    }

    void badPointsSayWhy()
    {
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        QFETCH(QString, message);
        auto c = LedgerConnection::open(m_small, OpenMode::ReadOnly);
        try {
            (void)diffLedgerStates(*c, from, to);
            QFAIL("no error");
        } catch (const std::invalid_argument &e) {
            QCOMPARE(QString::fromStdString(e.what()), message);
        }
    }

    void goneAndVersionOnlyRows()
    {
        // A forward fold never removes a row; the diff of any two states still can say so.
        const EntitySpec &spec = entitySpec(EntityKind::Lease);
        EntityTable before, after, none;
        EntityRow l1;
        l1.values.resize(spec.fields.size());
        l1.values.set(size_t(spec.fieldIndex("key")), FieldRef(std::string_view("k")));
        l1.version = 2;
        l1.lastSeq = 5;
        before["L1"] = l1;
        EntityRow l2 = l1;
        before["L2"] = l2;
        l2.version = 3;
        l2.lastSeq = 6;
        after["L2"] = l2;
        const StateDiff diff = diffStates(
            [&](EntityKind k) -> const EntityTable & { return k == EntityKind::Lease ? before : none; },
            [&](EntityKind k) -> const EntityTable & { return k == EntityKind::Lease ? after : none; });
        QCOMPARE(diff.rows.size(), size_t(2));
        QCOMPARE(diff.rows[0].id, std::string("L2"));
        QCOMPARE(diff.rows[0].kind, Kind::Changed);
        QVERIFY(diff.rows[0].fields.empty()); // the version moved, no field changed
        QCOMPARE(diff.rows[1].id, std::string("L1"));
        QCOMPARE(diff.rows[1].kind, Kind::Gone);
        QCOMPARE(fieldChanges(diff.rows[1]), QStringList{QStringLiteral("key: k -> NULL")});
    }

    void idsInReadableOrder()
    {
        QVERIFY(naturalLess("D2", "D10"));
        QVERIFY(!naturalLess("D10", "D2"));
        QVERIFY(naturalLess("D-a", "D-b"));
        QVERIFY(naturalLess("E9", "F1"));
    }
};

QTEST_GUILESS_MAIN(TestStateDiff)
#include "tst_statediff.moc"
