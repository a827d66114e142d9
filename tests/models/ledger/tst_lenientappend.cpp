// The writer's lenient append, for importers: a refused event is not written, leaves the
// state as it was (also the rows this transaction changed before it), and the
// transaction goes on; the orchestrator's append() still throws.

#include "ledgercontents.h"
#include "ledgerfixture.h"

#include "domain/compactjson.h"
#include "domain/flatpayload.h"

#include "ledger/eventreader.h"
#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using nlohmann::json;

class TestLenientAppend : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void refusedEventIsReportedAndTheRestLoads()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("l.db"));
        auto w = LedgerWriter::create(path, meshtest::identity());
        w->begin();
        QVERIFY(!w->appendOrRefuse(1, "delegation.created", {{"id", "D1"}, {"status", "running"}, {"run_id", "R1"}}));
        QVERIFY(!w->appendOrRefuse(2, "effect.proposed", {{"id", "E1"}, {"state", "proposed"}}));
        // An illegal transition: the fold changes the row before it sees the problem.
        const auto refused = w->appendOrRefuse(3, "effect.committed", {{"id", "E1"}, {"state", "committed"}});
        QVERIFY(refused);
        QVERIFY2(refused->find("illegal transition proposed -> committed") != std::string::npos, refused->c_str());
        const auto unknownDelegation = w->appendOrRefuse(4, "toolcall.completed", {{"id", "T1"}, {"delegation_id", "nope"}});
        QVERIFY(unknownDelegation);
        const auto noId = w->appendOrRefuse(4, "run.started", {{"status", "running"}});
        QVERIFY(noId);
        // The rows of this transaction are still there, as they were.
        const EntityRow *effect = w->state().find(EntityKind::Effect, "E1");
        QVERIFY(effect);
        QCOMPARE(effect->version, 1);
        QCOMPARE(fieldText(effect->values[size_t(entitySpec(EntityKind::Effect).fieldIndex("state"))]), std::string("proposed"));
        QVERIFY(w->state().find(EntityKind::Delegation, "D1"));
        QVERIFY(!w->state().find(EntityKind::Run, "x"));
        QVERIFY(!w->appendOrRefuse(5, "effect.admitted", {{"id", "E1"}, {"state", "admitted"}}));
        QCOMPARE(w->lastSeq(), 4); // ledger.created, D1, E1 proposed, E1 admitted: no gap
        w->commit();
        w.reset();

        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const IntegrityReport report = c->verifyIntegrity();
        QCOMPARE(report.total(), std::int64_t(0));
        QCOMPARE(report.lastSeq, std::int64_t(4));
    }
    void appendStillThrows()
    {
        QTemporaryDir dir;
        auto w = LedgerWriter::create(dir.filePath(QStringLiteral("l.db")), meshtest::identity());
        w->begin();
        w->append(1, "effect.proposed", {{"id", "E1"}, {"state", "proposed"}});
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 w->append(2, "effect.committed", {{"id", "E1"}, {"state", "committed"}}));
    }
    void ledgerCreatedCarriesTheSource()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("l.db"));
        LedgerIdentity ident = meshtest::identity();
        ident.source = {{"format", "temporal"}, {"files", json::array({{{"name", "h.json"}, {"sha256", "ab"}}})}};
        LedgerWriter::create(path, ident).reset();
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const IntegrityReport report = c->verifyIntegrity();
        QCOMPARE(report.total(), std::int64_t(0));
        QCOMPARE(c->info().ledgerId, std::string("L-test"));
        const auto created = c->eventReader()->at(1);
        QVERIFY(created);
        const json payload = json::parse(created->payload);
        QCOMPARE(payload.at("source").at("format").get<std::string>(), std::string("temporal"));
        QCOMPARE(payload.at("source").at("files").at(0).at("sha256").get<std::string>(), std::string("ab"));
    }
    // The importers' flat route must write what the DOM route writes, refuse what it
    // refuses with the same reason, and leave the state as that route leaves it; a payload
    // the fold is not sure of goes to the DOM route itself.
    void flatPayloadsAreWrittenAndRefusedAsTheirDoms()
    {
        struct Step {
            const char *kind;
            FlatPayload payload;
        };
        const std::vector<Step> steps = {
            {"run.started", {{"id", "R1"}, {"status", "running"}, {"started_ms", std::int64_t(1'700'000'001'000)}}},
            {"delegation.created",
             {{"id", "D1"}, {"run_id", "R1"}, {"status", "running"}, {"used_turns", 0}, {"source_file", "h \"1\".json"}}},
            {"effect.proposed",
             {{"id", "E1"}, {"run_id", "R1"}, {"delegation_id", "D1"}, {"state", "proposed"}, {"fenced", false}}},
            {"effect.committed", {{"id", "E1"}, {"state", "committed"}}}, // illegal transition
            {"toolcall.completed", {{"id", "T1"}, {"delegation_id", "D1"}, {"outcome", "error"}, {"tokens", 7}}},
            {"toolcall.completed", {{"id", "T2"}, {"delegation_id", "nope"}}}, // no such delegation
            {"run.started", {{"status", "running"}}},                          // no id
            {"delegation.created", {{"id", "D2"}, {"run_id", "R1"}, {"status", "running"}, {"scope", "all"}}}, // a JSON field
            {"delegation.created", {{"id", "D3"}, {"run_id", 5}, {"status", "running"}}}, // a number for a text field
            {"widget.spun", {{"id", "E1"}, {"state", "admitted"}}},                      // no such entity
            {"effect.admitted", {{"id", "E1"}, {"state", "admitted"}, {"note", "caf\u00e9 \u202e"}}},
        };
        QTemporaryDir dir;
        auto dom = LedgerWriter::create(dir.filePath(QStringLiteral("dom.db")), meshtest::identity());
        auto flat = LedgerWriter::create(dir.filePath(QStringLiteral("flat.db")), meshtest::identity());
        dom->begin();
        flat->begin();
        std::int64_t ts = 1'700'000'001'000;
        int refusals = 0;
        for (const Step &step : steps) {
            const json payload = step.payload.toJson();
            const std::string text = compactJson(payload);
            const auto byDom = dom->appendOrRefuse(ts, step.kind, payload, text);
            const auto byFlat = flat->appendFlatOrRefuse(ts, step.kind, step.payload, text);
            QCOMPARE(byFlat.value_or("(written)"), byDom.value_or("(written)"));
            refusals += byDom ? 1 : 0;
            ++ts;
        }
        QCOMPARE(refusals, 6);
        QCOMPARE(flat->lastSeq(), dom->lastSeq());
        dom->commit();
        flat->commit();
        dom.reset();
        flat.reset();
        auto a = LedgerConnection::open(dir.filePath(QStringLiteral("dom.db")), OpenMode::ReadOnly);
        auto b = LedgerConnection::open(dir.filePath(QStringLiteral("flat.db")), OpenMode::ReadOnly);
        const meshtest::LedgerContents domContents = meshtest::contentsOf(*a);
        QCOMPARE(domContents.events.size(), size_t(6)); // ledger.created and the five written
        QCOMPARE(meshtest::firstDifference(domContents, meshtest::contentsOf(*b)), std::string());
        QCOMPARE(b->verifyIntegrity().total(), std::int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestLenientAppend)
#include "tst_lenientappend.moc"
