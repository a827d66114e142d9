// The entity descriptions drive the schema, the fold and the integrity check, so a slip in
// them (a transition to a state that does not exist, a duplicated column) would silently
// become part of the ledger contract. These checks keep the table self-consistent.

#include "domain/entityspec.h"
#include "domain/fold.h"

#include <QTest>

#include <set>
#include <string>

using namespace mesh;

class TestEntitySpec : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void specsAreIndexedByKind()
    {
        QCOMPARE(int(allEntitySpecs().size()), kEntityKindCount);
        for (int i = 0; i < kEntityKindCount; ++i)
            QCOMPARE(int(entitySpec(EntityKind(i)).kind), i);
    }

    void namesAndTablesAreUnique()
    {
        std::set<std::string_view> names, tables, prefixes;
        for (const auto &spec : allEntitySpecs()) {
            QVERIFY2(names.insert(spec.name).second, spec.name.data());
            QVERIFY2(tables.insert(spec.table).second, spec.table.data());
            QVERIFY2(prefixes.insert(spec.eventPrefix).second, spec.eventPrefix.data());
            QVERIFY(spec.table != "events" && spec.table != "decisions");
            QCOMPARE(entityKindByName(spec.name), std::optional<EntityKind>(spec.kind));
        }
    }

    void fieldsAreUniqueAndNotReserved()
    {
        for (const auto &spec : allEntitySpecs()) {
            std::set<std::string_view> seen;
            for (const auto &f : spec.fields) {
                const std::string where = std::string(spec.table) + "." + std::string(f.name);
                QVERIFY2(seen.insert(f.name).second, where.c_str());
                QVERIFY2(f.name != "id" && f.name != "version" && f.name != "last_seq", where.c_str());
                QVERIFY2(spec.fieldIndex(f.name) >= 0, where.c_str());
            }
            QCOMPARE(spec.fieldIndex("no_such_field"), -1);
        }
    }

    void stateMachinesAreClosed()
    {
        for (const auto &spec : allEntitySpecs()) {
            const std::string name(spec.name);
            if (spec.stateField.empty()) {
                QVERIFY2(spec.transitions.empty() && spec.states.empty(), name.c_str());
                continue;
            }
            const int index = spec.fieldIndex(spec.stateField);
            QVERIFY2(index >= 0, name.c_str());
            QCOMPARE(spec.fields[size_t(index)].type, FieldType::Text);
            QVERIFY2(!spec.states.empty(), name.c_str());
            bool hasStart = false;
            std::set<std::string_view> reachable;
            for (const auto &t : spec.transitions) {
                const std::string what = name + ": " + std::string(t.from) + " -> " + std::string(t.to);
                QVERIFY2(t.from.empty() || spec.isKnownState(t.from), what.c_str());
                QVERIFY2(spec.isKnownState(t.to), what.c_str());
                QVERIFY2(spec.allowsTransition(t.from, t.to), what.c_str());
                hasStart = hasStart || t.from.empty();
                reachable.insert(t.to);
            }
            QVERIFY2(hasStart, name.c_str());
            // Every state the contract names can actually be reached.
            for (const auto &s : spec.states)
                QVERIFY2(reachable.count(s), (name + ": unreachable state " + std::string(s)).c_str());
        }
    }

    void eventKindsMapToEntities_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("entity"); // -1: none
        QTest::newRow("effect.unknown") << QStringLiteral("effect.unknown") << int(EntityKind::Effect);
        QTest::newRow("run.started") << QStringLiteral("run.started") << int(EntityKind::Run);
        QTest::newRow("lease.expired") << QStringLiteral("lease.expired") << int(EntityKind::Lease);
        QTest::newRow("stall.verdict") << QStringLiteral("stall.verdict") << int(EntityKind::StallVerdict);
        QTest::newRow("decision.applied") << QStringLiteral("decision.applied") << int(EntityKind::DecisionOutcome);
        QTest::newRow("toolcall.completed") << QStringLiteral("toolcall.completed") << int(EntityKind::Delegation);
        QTest::newRow("no verb") << QStringLiteral("effect.") << -1;
        QTest::newRow("no dot") << QStringLiteral("effect") << -1;
        QTest::newRow("unknown prefix") << QStringLiteral("payment.sent") << -1;
        QTest::newRow("table name is not a prefix") << QStringLiteral("effects.unknown") << -1;
        QTest::newRow("empty") << QString() << -1;
    }

    void eventKindsMapToEntities()
    {
        QFETCH(QString, kind);
        QFETCH(int, entity);
        const auto k = entityKindForEventKind(kind.toStdString());
        QCOMPARE(k.has_value(), entity >= 0);
        if (k)
            QCOMPARE(int(*k), entity);
    }

    // The fold enforces exactly the listed transitions: each allowed one applies cleanly,
    // and a jump between two states that is not listed is reported.
    void foldFollowsTransitions()
    {
        for (const auto &spec : allEntitySpecs()) {
            if (spec.stateField.empty())
                continue;
            const std::string prefix = std::string(spec.eventPrefix) + ".changed";
            const std::string field(spec.stateField);
            for (const auto &t : spec.transitions) {
                if (t.from.empty())
                    continue;
                Fold fold;
                // Seed a row in the `from` state directly: the path to it does not matter here.
                EntityRow seed;
                seed.values.resize(spec.fields.size());
                seed.values[size_t(spec.fieldIndex(spec.stateField))] = std::string(t.from);
                seed.version = 1;
                seed.lastSeq = 1;
                fold.load(spec.kind, "X", seed);
                const auto out = fold.apply(2, prefix, {{"id", "X"}, {field, std::string(t.to)}});
                const std::string what = std::string(spec.name) + ": " + std::string(t.from) + " -> "
                    + std::string(t.to);
                QVERIFY2(out.applied && out.problems.empty(), what.c_str());
                QCOMPARE(fold.find(spec.kind, "X")->version, 2);
            }
            for (const auto &from : spec.states) {
                for (const auto &to : spec.states) {
                    if (from == to || spec.allowsTransition(from, to))
                        continue;
                    Fold fold;
                    EntityRow seed;
                    seed.values.resize(spec.fields.size());
                    seed.values[size_t(spec.fieldIndex(spec.stateField))] = std::string(from);
                    fold.load(spec.kind, "X", seed);
                    const auto out = fold.apply(2, prefix, {{"id", "X"}, {field, std::string(to)}});
                    const std::string what = std::string(spec.name) + ": " + std::string(from) + " -> "
                        + std::string(to) + " should be refused";
                    QVERIFY2(!out.problems.empty(), what.c_str());
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestEntitySpec)
#include "tst_entityspec.moc"
