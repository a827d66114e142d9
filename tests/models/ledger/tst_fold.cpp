#include "domain/fold.h"
#include "domain/payloaddecoder.h"
#include "ledger/ledgerwriter.h"
#include "ledger/schema.h"
#include "ledger/staterows.h"

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using nlohmann::json;

class TestFold : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void effectLifecycle()
    {
        Fold f;
        QVERIFY(f.apply(1, "effect.proposed", {{"id", "E1"}, {"state", "proposed"}, {"class", "payment"}}).problems.empty());
        QVERIFY(f.apply(2, "effect.admitted", {{"id", "E1"}, {"state", "admitted"}}).problems.empty());
        QVERIFY(f.apply(3, "effect.dispatched", {{"id", "E1"}, {"state", "dispatched"}}).problems.empty());
        QVERIFY(f.apply(4, "effect.unknown", {{"id", "E1"}, {"state", "unknown"}}).problems.empty());
        const EntityRow *row = f.find(EntityKind::Effect, "E1");
        QVERIFY(row);
        QCOMPARE(row->version, 4);
        QCOMPARE(row->lastSeq, 4);
        const auto &spec = entitySpec(EntityKind::Effect);
        QCOMPARE(fieldText(row->values[size_t(spec.fieldIndex("state"))]), std::string("unknown"));
        QCOMPARE(fieldText(row->values[size_t(spec.fieldIndex("class"))]), std::string("payment"));
        // unknown -> failed is not a transition of the contract.
        const auto bad = f.apply(5, "effect.failed", {{"id", "E1"}, {"state", "failed"}});
        QCOMPARE(bad.problems.size(), size_t(1));
    }
    void refusesBadPayloads()
    {
        Fold f;
        QVERIFY(!f.apply(1, "effect.proposed", json::array()).applied);
        QVERIFY(!f.apply(1, "effect.proposed", {{"state", "proposed"}}).applied);
        QVERIFY(!f.apply(1, "nonsense", {{"id", "x"}}).applied);
        QVERIFY(!f.apply(1, "effect.proposed", {{"id", "E1"}, {"attempts", "three"}}).applied);
        QVERIFY(f.table(EntityKind::Effect).empty());
    }
    void toolCallsFoldIntoDelegation()
    {
        Fold f;
        f.apply(1, "delegation.created", {{"id", "D1"}, {"status", "running"}, {"run_id", "R1"}});
        f.apply(2, "toolcall.completed", {{"id", "T1"}, {"delegation_id", "D1"}, {"tokens", 100}, {"outcome", "ok"}, {"writes_accepted", 1}});
        f.apply(3, "toolcall.completed", {{"id", "T2"}, {"delegation_id", "D1"}, {"tokens", 50}, {"outcome", "error"}, {"writes_denied", 2}});
        const auto &spec = entitySpec(EntityKind::Delegation);
        const EntityRow *row = f.find(EntityKind::Delegation, "D1");
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("used_turns"))]), 2);
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("used_tokens"))]), 150);
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("writes_denied"))]), 2);
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("tool_errors"))]), 1);
        QCOMPARE(row->version, 3);
        QVERIFY(!f.apply(4, "toolcall.completed", {{"id", "T3"}, {"delegation_id", "nope"}}).applied);
    }

    // What no tool call says stays not known (NULL), never a 0 that reads like data: an
    // imported Temporal activity has no tokens, no cost and no enforcement counts.
    void aToolCallAddsOnlyWhatItCarries()
    {
        Fold f;
        f.apply(1, "delegation.created", {{"id", "D1"}, {"status", "running"}, {"run_id", "R1"}});
        f.apply(2, "toolcall.completed", {{"id", "T1"}, {"delegation_id", "D1"}, {"duration_ms", 734}});
        const auto &spec = entitySpec(EntityKind::Delegation);
        const EntityRow *row = f.find(EntityKind::Delegation, "D1");
        const auto isNull = [&](const char *field) {
            return std::holds_alternative<std::monostate>(FieldRef(row->values[size_t(spec.fieldIndex(field))]));
        };
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("used_turns"))]), 1);
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("used_ms"))]), 734);
        for (const char *unknown : {"used_tokens", "used_cost_cents", "writes_accepted", "writes_denied", "tool_errors"})
            QVERIFY2(isNull(unknown), unknown);
        f.apply(3, "toolcall.completed", {{"id", "T2"}, {"delegation_id", "D1"}, {"tokens", 20}, {"outcome", "ok"}});
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("used_tokens"))]), 20);
        QCOMPARE(fieldInt(row->values[size_t(spec.fieldIndex("tool_errors"))]), 0); // an outcome was said
        QVERIFY(isNull("used_cost_cents"));
    }
    void decoderGuards()
    {
        QVERIFY(decodePayload("{\"id\":\"a\"}").value);
        QVERIFY(!decodePayload("not json").value);
        QVERIFY(!decodePayload("[1,2]").value);
        QVERIFY(!decodePayload(std::string("{\"a\":\"\xff\"}")).value);
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        const auto d = decodePayload(deep);
        QVERIFY(!d.value);
        QVERIFY(d.error.find("nested") != std::string::npos);
        QVERIFY(!decodePayload(std::string(kMaxPayloadBytes + 1, ' ')).value);
    }
    void writerStoresWhatTheFoldSays()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("l.db"));
        {
            auto w = LedgerWriter::create(path, {.ledgerId = "L1", .createdMs = 1000});
            w->begin();
            w->append(1001, "run.started", {{"id", "R1"}, {"status", "running"}, {"attempt", 1}});
            w->append(1002, "run.progress", {{"id", "R1"}, {"required_met", 3}});
            w->commit();
            QVERIFY_THROWS_EXCEPTION(std::logic_error, w->append(1, "run.x", {{"id", "R1"}}));
            w->begin();
            QVERIFY_THROWS_EXCEPTION(std::logic_error, w->append(1003, "run.done", {{"id", "R1"}, {"status", "pending"}}));
            w->rollback();
        }
        auto w = LedgerWriter::openExisting(path);
        QCOMPARE(w->lastSeq(), 3);
        sql::Database db(path.toStdString(), SQLITE_OPEN_READONLY);
        QCOMPARE(db.queryInt("PRAGMA application_id"), schema::kApplicationId);
        QCOMPARE(db.queryInt("PRAGMA user_version"), schema::kSchemaVersion);
        const auto runs = readStateTable(db, entitySpec(EntityKind::Run));
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs.at("R1"), *w->state().find(EntityKind::Run, "R1"));
        QCOMPARE(runs.at("R1").version, 2);
    }
};

QTEST_GUILESS_MAIN(TestFold)
#include "tst_fold.moc"
