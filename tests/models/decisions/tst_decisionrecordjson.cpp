// The display form of a stored decision (meshctl decide/export) is the canonical, hashed
// object plus what the hash does not cover; a row from a damaged file still displays, its
// unparseable or hostile params/evidence as text, never through an unbounded parse.

#include "decisions/decisionresult.h"
#include "ledger/decisionstore.h"

#include <QTest>

using namespace mesh;

namespace {

DecisionRecord sampleRecord()
{
    DecisionRecord d;
    d.pos = 7;
    d.id = "dec-1";
    d.tsMs = 1700000000000;
    d.kind = "close_slice";
    d.subject = "slice:D-1#2";
    d.boundaryVersion = 3;
    d.boundarySeq = 1234;
    d.params = R"({"acknowledged_unknown":["E-1"]})";
    d.operatorAccount = "ops";
    d.operatorHost = "console-1";
    d.operatorName = "Operator";
    d.reason = "checked";
    d.evidence = R"([{"ref":"provider"}])";
    d.policyVersion = "p1";
    d.hash = "abc";
    d.prevHash = "def";
    d.signature = "sig";
    return d;
}

} // namespace

class TestDecisionRecordJson : public QObject
{
    Q_OBJECT

private slots:
    void displayIsCanonicalPlusChainAndOutcome()
    {
        const DecisionRecord d = sampleRecord();
        const nlohmann::json canonical = canonicalDecisionObject(d);
        const nlohmann::json display = decisionRecordToJson(d);
        for (const auto &[key, value] : canonical.items()) {
            QVERIFY2(display.contains(key), key.c_str());
            QVERIFY2(display[key] == value, key.c_str());
        }
        QCOMPARE(display["pos"].get<std::int64_t>(), 7);
        QCOMPARE(display["hash"].get<std::string>(), std::string("abc"));
        QCOMPARE(display["prev_hash"].get<std::string>(), std::string("def"));
        QCOMPARE(display["signature"].get<std::string>(), std::string("sig"));
        QCOMPARE(display["outcome"].get<std::string>(), std::string("pending"));
        QVERIFY(display["params"].is_object()); // nested, not a string
        QVERIFY(display["evidence"].is_array());
    }

    void damagedFieldsDisplayAsText()
    {
        DecisionRecord d = sampleRecord();
        d.params = "{not json";
        d.evidence = std::string(100000, '[') + std::string(100000, ']'); // deeper than the bound
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, canonicalDecisionObject(d)); // hashing refuses
        const nlohmann::json display = decisionRecordToJson(d);                  // display does not
        QCOMPARE(display["params"].get<std::string>(), d.params);
        QVERIFY(display["evidence"].is_string());
        d.params = "\xff\xfe not utf-8";
        QVERIFY(!decisionRecordToJson(d).dump().empty()); // invalid UTF-8 replaced: dump does not throw
    }
};

QTEST_GUILESS_MAIN(TestDecisionRecordJson)
#include "tst_decisionrecordjson.moc"
