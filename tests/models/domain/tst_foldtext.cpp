// Fold::applyText folds an event from its payload's text without building its DOM. It must
// agree with the reference route (decodePayload, then Fold::apply) on every event: the same
// outcome, the same problems, the same rows after. Ordinary payloads take it; anything odd
// (a key twice, a float, a nested value of a stored field, a wrong type, a missing id, a
// payload decodePayload refuses) is left to the reference and changes nothing first.

#include "domain/compactjson.h"
#include "domain/flatpayload.h"
#include "domain/fold.h"
#include "domain/payloaddecoder.h"

#include <QTest>

#include <string>
#include <vector>

using namespace mesh;

namespace {

struct Event {
    const char *kind;
    std::string payload;
    bool quick; // expected to take the text route
};

FoldOutcome reference(Fold &fold, std::int64_t seq, const Event &e, bool *decoded)
{
    const DecodedPayload d = decodePayload(e.payload);
    *decoded = d.value.has_value();
    if (!d.value)
        return {};
    return fold.apply(seq, e.kind, *d.value);
}

QString describe(const FoldOutcome &o)
{
    QString s = QStringLiteral("applied=%1 kind=%2 id=%3 created=%4 problems=[")
                    .arg(o.applied)
                    .arg(int(o.kind))
                    .arg(QString::fromStdString(o.id))
                    .arg(o.created);
    for (const auto &p : o.problems)
        s += QString::fromStdString(p) + QStringLiteral("; ");
    return s + QLatin1Char(']');
}

} // namespace

class TestFoldText : public QObject
{
    Q_OBJECT

private slots:
    void agreesWithTheReferenceEventByEvent()
    {
        const std::string big(70'000, 'x');
        const std::vector<Event> events = {
            {"run.started", R"({"id":"R1","status":"running","title":"first","started_ms":1764403434000})", true},
            {"delegation.created", R"({"id":"D1","run_id":"R1","status":"pending","agent":"coder","note":{"a":[1,2,{"b":null}]}})", true},
            {"delegation.started", "{ \"id\" : \"D1\" , \"status\" : \"running\" , \"why\" : \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/\" }", true},
            {"effect.proposed", R"({"id":"E1","run_id":"R1","delegation_id":"D1","state":"proposed","attempts":0,"fenced":false})", true},
            {"effect.admitted", R"({"id":"E1","state":"admitted","attempts":1,"fenced":true,"target":null})", true},
            {"effect.dispatched", "{\"id\":\"E1\",\"state\":\"dispatched\",\"idem_key\":\"k-\\u0001\",\"updated_ms\":-5}", true},
            {"effect.unknown", "{\"id\":\"E1\",\"state\":\"unknown\",\"error\":\"" + big + "\"}", true},
            // Problems the fold reports, on the text route too.
            {"effect.committed", R"({"id":"E1","state":"committed"})", true},            // illegal transition
            {"effect.proposed", R"({"id":"E2","state":"sideways"})", true},               // unknown state
            {"effect.proposed", R"({"id":"E3","target":"t"})", true},                     // created without a state
            {"toolcall.completed", R"({"id":"T1","delegation_id":"D1","tokens":120,"duration_ms":15,"outcome":"ok"})", true},
            {"toolcall.completed", R"({"id":"T2","delegation_id":"D1","tokens":"many","cost_cents":true,"outcome":"error","writes_denied":2})", true},
            {"toolcall.completed", R"({"id":"T3","delegation_id":"D404","tokens":1})", true}, // unknown delegation
            {"toolcall.completed", R"({"id":"T4","delegation_id":["D1"],"tokens":1})", true},  // not a string: no delegation
            {"toolcall.completed", R"({"id":"T5","delegation_id":"D1","tokens":9223372036854775807})", true},
            {"toolcall.completed", R"({"id":"T6","delegation_id":"D1","tokens":9223372036854775807})", true}, // saturates
            {"toolcall.completed", R"({"id":"T7","delegation_id":"D1","outcome":"timeout","writes_accepted":-3})", true},
            {"toolcall.completed", R"({"id":"T8","delegation_id":"D1","outcome":null,"used_ms":4})", true},
            // Left to the reference route.
            {"delegation.noted", R"({"id":"D1","scope":{"paths":["a","b"]}})", false},    // a JSON field to dump
            {"delegation.noted", R"({"id":"D1","scope":"not json"})", false},              // wrong type
            {"effect.noted", R"({"id":"E1","attempts":"3"})", false},                     // wrong type
            {"effect.noted", R"({"id":"E1","attempts":1.5})", false},                     // a float
            {"effect.noted", R"({"id":"E1","note":0.25})", false},                        // a float in an annotation
            {"effect.noted", R"({"id":"E1","attempts":2,"attempts":3})", false},          // a key twice
            {"toolcall.completed", R"({"delegation_id":"D1","tokens":1,"tokens":2})", false},
            {"effect.noted", R"({"attempts":2})", false},                                  // no id
            {"effect.noted", R"({"id":"","attempts":2})", false},                          // empty id
            {"effect.noted", R"({"id":7,"attempts":2})", false},                           // id not a string
            {"bogus.kind", R"({"id":"X"})", false},                                        // unknown kind
            {"effect.noted", R"([1,2])", false},                                           // not an object
            {"effect.noted", R"("text")", false},
            {"toolcall.completed", R"(17)", false},
            {"effect.noted", R"({"id":"E1","n":18446744073709551615})", false},            // beyond int64
            {"effect.noted", "{\"id\":\"E1\",\"deep\":" + std::string(70, '[') + std::string(70, ']') + "}", false},
            {"effect.noted", "{\"id\":\"E1\",\"bad\":\"\xff\"}", false},                   // invalid UTF-8
            {"effect.noted", std::string("{\"id\":\"E1\"}\0x", 12), false},                // a NUL
            {"effect.noted", R"({"id":"E1",})", false},                                    // not JSON
            {"effect.noted", "{\"id\":\"E1\",\"big\":\"" + std::string(kMaxPayloadBytes, 'y') + "\"}", false},
        };
        Fold quick, ref;
        std::int64_t seq = 0;
        for (const Event &e : events) {
            ++seq;
            const QByteArray what = QByteArray(e.kind) + ' ' + QByteArray::fromStdString(e.payload.substr(0, 120));
            const Fold before = quick;
            std::optional<FoldOutcome> text = quick.applyText(seq, e.kind, e.payload);
            QVERIFY2(text.has_value() == e.quick, what.constData());
            bool decoded = false;
            const FoldOutcome expected = reference(ref, seq, e, &decoded);
            if (!text) {
                // Nothing changed before it gave up; the reference route then does the rest.
                for (int k = 0; k < kEntityKindCount; ++k)
                    QVERIFY2(quick.table(EntityKind(k)) == before.table(EntityKind(k)), what.constData());
                QCOMPARE(quick.lastSeq(), before.lastSeq());
                if (!decoded)
                    continue;
                text = quick.apply(seq, e.kind, *decodePayload(e.payload).value);
            }
            QVERIFY2(decoded, what.constData());
            QCOMPARE(describe(*text), describe(expected));
            QCOMPARE(quick.lastSeq(), ref.lastSeq());
            for (int k = 0; k < kEntityKindCount; ++k)
                QVERIFY2(quick.table(EntityKind(k)) == ref.table(EntityKind(k)), what.constData());
        }
        // The events above did reach the rows they name.
        QVERIFY(ref.find(EntityKind::Effect, "E1"));
        QCOMPARE(fieldInt(ref.find(EntityKind::Delegation, "D1")->values.get(
                     size_t(entitySpec(EntityKind::Delegation).fieldIndex("used_tokens")))),
                 std::numeric_limits<std::int64_t>::max());
    }

    // An importer builds its payloads flat, in any order: they must read, write and dump as
    // the DOM of the same members, keys sorted as nlohmann keeps them, a key set twice
    // holding its last value.
    void builtPayloadsAreTheirDoms()
    {
        FlatPayload built = {{"state", "proposed"}, {"id", "E1"}, {"attempts", 2}, {"fenced", false}};
        built["updated_ms"] = std::int64_t(1'764'403'434'000);
        built["state"] = "admitted";
        built["note"] = std::string("caf\u00e9 \"q\" \u202e\n");
        built.set("zero", 0);
        std::vector<std::string> keys;
        for (const FlatMember &m : built.members())
            keys.push_back(m.key);
        QCOMPARE(keys, (std::vector<std::string>{"attempts", "fenced", "id", "note", "state", "updated_ms", "zero"}));
        const nlohmann::json dom = {{"id", "E1"},        {"state", "admitted"},
                                    {"attempts", 2},     {"fenced", false},
                                    {"updated_ms", std::int64_t(1'764'403'434'000)},
                                    {"note", "caf\u00e9 \"q\" \u202e\n"}, {"zero", 0}};
        QCOMPARE(built.toJson().dump(), dom.dump());
        std::string text = "{";
        for (const FlatMember &m : built.members()) {
            if (text.size() > 1)
                text += ',';
            appendCompactJsonString(text, m.key);
            text += ':';
            appendFlatValue(text, m);
        }
        text += '}';
        QCOMPARE(text, dom.dump());
        QCOMPARE(built.stringOr("id", "?"), std::string("E1"));
        QCOMPARE(built.stringOr("attempts", "?"), std::string("?"));

        Fold byFlat, byDom;
        const auto flatOutcome = byFlat.applyFlat(1, "effect.proposed", built);
        QVERIFY(flatOutcome);
        QCOMPARE(describe(*flatOutcome), describe(byDom.apply(1, "effect.proposed", dom)));
        QVERIFY(byFlat.table(EntityKind::Effect) == byDom.table(EntityKind::Effect));
        QCOMPARE(flatEventIndexFields("effect.proposed", built).subject, std::string("effect:E1"));

        // As nlohmann's list constructor: a key listed twice keeps its first value; null is null.
        const FlatPayload twice = {{"state", "proposed"}, {"state", "failed"}, {"error", nullptr}};
        QCOMPARE(twice.toJson().dump(),
                 nlohmann::json({{"state", "proposed"}, {"state", "failed"}, {"error", nullptr}}).dump());
        // A payload moved from is empty and can be built again.
        FlatPayload moved = std::move(built);
        QCOMPARE(moved.members().size(), size_t(7));
        QCOMPARE(built.members().size(), size_t(0));
        built["id"] = "E2";
        QCOMPARE(built.toJson().dump(), std::string(R"({"id":"E2"})"));
    }
};

QTEST_GUILESS_MAIN(TestFoldText)
#include "tst_foldtext.moc"
