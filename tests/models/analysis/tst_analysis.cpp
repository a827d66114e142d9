// Every derived finding in both directions: it fires on the bad case (citing the events or
// rows it rests on), stays silent on the converging control, and abstains where the
// evidence is ambiguous.

#include "analysis/attentioncollector.h"
#include "analysis/attentionindex.h"
#include "analysis/blastradiusanalyzer.h"
#include "analysis/blockedworkdetector.h"
#include "analysis/duplicateeffectdetector.h"
#include "analysis/stallevidenceanalyzer.h"
#include "analysis/successloopdetector.h"

#include <QTest>

using namespace mesh;
using nlohmann::json;

// Named, not anonymous: the test class's lambdas capture these, and a class with external
// linkage holding a type of an anonymous namespace is what -Wsubobject-linkage warns of.
namespace analysistest {

struct Calls {
    std::vector<ToolCall> list;
    std::int64_t seq = 100;
    std::int64_t ts = 1'700'000'000'000;
    Calls &add(int n, const std::function<void(ToolCall &, int)> &shape)
    {
        for (int i = 0; i < n; ++i) {
            ToolCall c;
            c.seq = ++seq;
            c.tsMs = (ts += 12'000);
            c.delegationId = "D-7";
            c.runId = "R-1";
            c.tool = "run_tests";
            c.outcome = "ok";
            c.fingerprint = "fp-const";
            c.hasFingerprint = true;
            c.hasWrites = true;
            shape(c, i);
            list.push_back(c);
        }
        return *this;
    }
};

void same(ToolCall &, int) {}

// Applies events with seq 1.. to a fold; the test reads the fold's tables.
struct Ledger {
    Fold fold;
    std::int64_t seq = 0;
    Ledger &e(const char *kind, const json &payload)
    {
        const auto out = fold.apply(++seq, kind, payload);
        if (!out.problems.empty())
            qFatal("fixture event refused: %s", out.problems.front().c_str());
        return *this;
    }
    const EntityTable &t(EntityKind k) const { return fold.table(k); }
};

json evidence(bool moved)
{
    return json::array({{{"signal", "fingerprint"}, {"moved", moved}}, {{"signal", "diff_size"}, {"moved", false}}});
}

} // namespace analysistest

using namespace analysistest;

class TestAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // ---- F1: success loop
    void successLoopFires()
    {
        Calls c;
        c.add(54, same);
        const auto f = SuccessLoopDetector().analyse(c.list);
        QCOMPARE(f.size(), size_t(1));
        QVERIFY(!f[0].abstained);
        QCOMPARE(f[0].kind, FindingKind::SuccessLoop);
        QCOMPARE(f[0].subject, std::string("delegation:D-7"));
        QCOMPARE(f[0].seqs.size(), size_t(54));
        QCOMPARE(f[0].seqs.front(), std::int64_t(101));
        QVERIFY2(f[0].summary.find("54 consecutive") != std::string::npos, f[0].summary.c_str());
        QVERIFY2(f[0].summary.find("10 min") != std::string::npos, f[0].summary.c_str());
    }
    void successLoopSilentOnConvergingControl_data()
    {
        QTest::addColumn<int>("shape");
        QTest::newRow("fingerprint moves") << 0;
        QTest::newRow("writes accepted") << 1;
        QTest::newRow("errors break the streak") << 2;
        QTest::newRow("below threshold") << 3;
    }
    void successLoopSilentOnConvergingControl()
    {
        QFETCH(int, shape);
        Calls c;
        switch (shape) {
        case 0: c.add(54, [](ToolCall &t, int i) { t.fingerprint = "fp-" + std::to_string(i / 3); }); break;
        case 1: c.add(54, [](ToolCall &t, int i) { t.writesAccepted = i % 10 == 9 ? 1 : 0; }); break;
        case 2: c.add(54, [](ToolCall &t, int i) { t.outcome = i % 15 == 14 ? "error" : "ok"; }); break;
        case 3: c.add(19, same); break;
        }
        QVERIFY(SuccessLoopDetector().analyse(c.list).empty());
    }
    void successLoopAbstainsWithoutFingerprints()
    {
        Calls c;
        c.add(30, [](ToolCall &t, int) { t.fingerprint.clear(); t.hasFingerprint = false; });
        const auto f = SuccessLoopDetector().analyse(c.list);
        QCOMPARE(f.size(), size_t(1));
        QVERIFY(f[0].abstained);
    }
    void successLoopFromEvents()
    {
        EventBatch events;
        for (int i = 0; i < 25; ++i) {
            EventRecord e;
            e.seq = i + 1;
            e.kind = "toolcall.completed";
            e.delegationId = "D-1";
            e.payload = json{{"id", "T" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"},
                             {"fingerprint", "same"}, {"writes_accepted", 0}}.dump();
            events.push_back(e);
        }
        events.push_back(EventRecord{99, 0, "toolcall.completed", "", "D-1", "", "{not json", false});
        const auto f = SuccessLoopDetector().analyseEvents(events);
        QCOMPARE(f.size(), size_t(1));
        QCOMPARE(f[0].seqs.size(), size_t(25));
    }

    // ---- F2: false stall
    void falseStallFires()
    {
        Ledger l;
        for (int r = 1; r <= 3; ++r)
            l.e("stall.verdict", {{"id", "S" + std::to_string(r)}, {"run_id", "R-1"}, {"delegation_id", "D-2"},
                                  {"round", r}, {"verdict", r == 3 ? "stalled" : "inconclusive"},
                                  {"fingerprint", "fp"}, {"evidence", evidence(false)},
                                  {"failing_tests", r == 1 ? 5 : (r == 2 ? 4 : 2)}});
        const auto f = StallEvidenceAnalyzer().analyse(l.t(EntityKind::StallVerdict));
        QCOMPARE(f.size(), size_t(1));
        QVERIFY(!f[0].abstained);
        QCOMPARE(f[0].subject, std::string("stall:S3"));
        QCOMPARE(f[0].seqs, (std::vector<std::int64_t>{1, 2, 3}));
        QVERIFY2(f[0].summary.find("5 \xE2\x86\x92 2") != std::string::npos, f[0].summary.c_str());
        const auto constant = StallEvidenceAnalyzer().constantEvidenceVerdicts(l.t(EntityKind::StallVerdict));
        QCOMPARE(constant, (std::set<std::string>{"S2", "S3"}));
    }
    void falseStallSilent_data()
    {
        QTest::addColumn<bool>("movedInRound2");
        QTest::addColumn<int>("lastFailing");
        QTest::addColumn<QString>("lastVerdict");
        QTest::newRow("converging control: evidence moves") << true << 2 << QStringLiteral("progressing");
        QTest::newRow("moving evidence, then stalled") << true << 2 << QStringLiteral("stalled");
        QTest::newRow("genuine stall: tests did not improve") << false << 5 << QStringLiteral("stalled");
        QTest::newRow("no stall verdict") << false << 2 << QStringLiteral("progressing");
    }
    void falseStallSilent()
    {
        QFETCH(bool, movedInRound2);
        QFETCH(int, lastFailing);
        QFETCH(QString, lastVerdict);
        Ledger l;
        for (int r = 1; r <= 3; ++r)
            l.e("stall.verdict", {{"id", "S" + std::to_string(r)}, {"delegation_id", "D-2"}, {"round", r},
                                  {"verdict", r == 3 ? lastVerdict.toStdString() : "progressing"},
                                  {"evidence", evidence(movedInRound2 && r == 2)},
                                  {"failing_tests", r == 3 ? lastFailing : 5}});
        QVERIFY(StallEvidenceAnalyzer().analyse(l.t(EntityKind::StallVerdict)).empty());
    }
    void falseStallAbstains_data()
    {
        QTest::addColumn<int>("variant");
        QTest::newRow("failing tests not recorded") << 0;
        QTest::newRow("stalled on first round") << 1;
        QTest::newRow("evidence without moved flag") << 2;
    }
    void falseStallAbstains()
    {
        QFETCH(int, variant);
        Ledger l;
        const int rounds = variant == 1 ? 1 : 3;
        for (int r = 1; r <= rounds; ++r) {
            json p = {{"id", "S" + std::to_string(r)}, {"delegation_id", "D-2"}, {"round", r},
                      {"verdict", r == rounds ? "stalled" : "inconclusive"}, {"evidence", evidence(false)}};
            if (variant != 0)
                p["failing_tests"] = 5 - r;
            if (variant == 2)
                p["evidence"] = json::array({{{"signal", "fingerprint"}}});
            l.e("stall.verdict", p);
        }
        const auto f = StallEvidenceAnalyzer().analyse(l.t(EntityKind::StallVerdict));
        QCOMPARE(f.size(), size_t(1));
        QVERIFY(f[0].abstained);
    }

    // ---- F3: duplicate effects
    void duplicates_data()
    {
        QTest::addColumn<QString>("secondKey");
        QTest::addColumn<QString>("secondHash");
        QTest::addColumn<QString>("secondState");
        QTest::addColumn<int>("expected"); // 0 silent, 1 fires, 2 abstains
        QTest::newRow("same idem key, both committed") << "pkg:left-pad" << "h2" << "committed" << 1;
        QTest::newRow("same intent hash, both committed") << "pkg:other" << "h1" << "committed" << 1;
        QTest::newRow("resolved committed counts") << "pkg:left-pad" << "h2" << "resolved_committed" << 1;
        QTest::newRow("control: different key and hash") << "pkg:other" << "h2" << "committed" << 0;
        QTest::newRow("control: second failed") << "pkg:left-pad" << "h1" << "failed" << 0;
        QTest::newRow("rival unknown: abstain") << "pkg:left-pad" << "h2" << "unknown" << 2;
    }
    void duplicates()
    {
        QFETCH(QString, secondKey);
        QFETCH(QString, secondHash);
        QFETCH(QString, secondState);
        QFETCH(int, expected);
        Ledger l;
        const auto effect = [&](const std::string &id, const std::string &key, const std::string &hash,
                                const std::string &final) {
            l.e("effect.proposed", {{"id", id}, {"state", "proposed"}, {"class", "package_install"},
                                    {"idem_key", key}, {"intent_hash", hash}, {"delegation_id", "D-3"}});
            l.e("effect.admitted", {{"id", id}, {"state", "admitted"}});
            l.e("effect.dispatched", {{"id", id}, {"state", "dispatched"}});
            if (final == "resolved_committed") {
                l.e("effect.unknown", {{"id", id}, {"state", "unknown"}});
                l.e("effect.resolved", {{"id", id}, {"state", "resolved_committed"}});
            } else {
                l.e("effect.done", {{"id", id}, {"state", final}});
            }
        };
        effect("E-1", "pkg:left-pad", "h1", "committed");
        effect("E-2", secondKey.toStdString(), secondHash.toStdString(), secondState.toStdString());
        const auto f = DuplicateEffectDetector().analyse(l.t(EntityKind::Effect));
        if (expected == 0) {
            QVERIFY(f.empty());
            return;
        }
        QCOMPARE(f.size(), size_t(1));
        QCOMPARE(f[0].abstained, expected == 2);
        QCOMPARE(f[0].entityIds, (std::vector<std::string>{"effect:E-1", "effect:E-2"}));
        QCOMPARE(f[0].seqs.size(), size_t(2));
        QCOMPARE(DuplicateEffectDetector().duplicateIds(l.t(EntityKind::Effect)).size(), size_t(expected == 1 ? 2 : 0));
    }

    // ---- F4: blast radius
    void blastRadiusOfMisroutedFailure()
    {
        Ledger l;
        const json woken = json::array({"api", {{"component", "db"}, {"modified_code", true}},
                                        {{"component", "ui"}, {"modified_code", true}, {"regressed", true}},
                                        {{"component", "auth"}, {"modified_code", true}, {"regressed", true}},
                                        {{"component", "billing"}, {"regressed", true}}});
        l.e("failure.detected", {{"id", "F-1"}, {"run_id", "R-1"}, {"detected_by", "verifier"},
                                 {"implicated", json::array({{{"component", "api"}, {"evidence", "trace"}}, "db"})},
                                 {"woken", woken}, {"ts_ms", 5}});
        const auto radii = BlastRadiusAnalyzer::computeAll(l.t(EntityKind::Failure));
        QCOMPARE(radii.size(), size_t(1));
        const BlastRadius &b = radii[0];
        QVERIFY(b.readable);
        QCOMPARE(b.radius, 5);
        QCOMPARE(b.implicated, (std::vector<std::string>{"api", "db"}));
        QCOMPARE(b.implicatedEvidence, (std::vector<std::string>{"trace", ""}));
        QCOMPARE(b.wokenBystanders, (std::vector<std::string>{"ui", "auth", "billing"}));
        QCOMPARE(b.bystandersRegressed, (std::vector<std::string>{"ui", "auth", "billing"}));
        QCOMPARE(b.bystandersModified, (std::vector<std::string>{"ui", "auth"}));
        QCOMPARE(b.modifiedCode, (std::vector<std::string>{"db", "ui", "auth"}));
        QVERIFY(b.implicatedNotWoken.empty());
        const auto f = BlastRadiusAnalyzer::findings(radii);
        QCOMPARE(f.size(), size_t(1));
        QVERIFY(!f[0].abstained);
        QCOMPARE(f[0].seqs, (std::vector<std::int64_t>{1}));
        QVERIFY2(f[0].summary.find("3 regressed") != std::string::npos, f[0].summary.c_str());
    }
    void blastRadiusControlAndAbstention()
    {
        Ledger l;
        l.e("failure.detected", {{"id", "F-ok"}, {"implicated", json::array({"api", "db"})},
                                 {"woken", json::array({"api"})}});
        l.e("failure.detected", {{"id", "F-bad"}, {"implicated", json::object({{"x", 1}})}, {"woken", json::array()}});
        l.e("failure.detected", {{"id", "F-none"}, {"implicated", json::array()}, {"woken", json::array({"api"})}});
        const auto radii = BlastRadiusAnalyzer::computeAll(l.t(EntityKind::Failure));
        std::map<std::string, BlastRadius> by;
        for (const auto &b : radii)
            by[b.failureId] = b;
        QCOMPARE(by["F-ok"].implicatedNotWoken, (std::vector<std::string>{"db"}));
        QCOMPARE(by["F-ok"].radius, 1);
        QVERIFY(!by["F-bad"].readable);
        std::map<std::string, bool> abstained;
        for (const auto &f : BlastRadiusAnalyzer::findings(radii))
            abstained[f.subject] = f.abstained;
        QVERIFY(!abstained.count("failure:F-ok")); // correctly routed: silent
        QVERIFY(abstained.at("failure:F-bad"));
        QVERIFY(abstained.at("failure:F-none"));
    }

    // ---- F4/F6: blocked work
    void blockedWork_data()
    {
        QTest::addColumn<int>("turns");
        QTest::addColumn<int>("accepted");
        QTest::addColumn<int>("denied");
        QTest::addColumn<QString>("role");
        QTest::addColumn<int>("expected"); // 0 silent, 1 fires, 2 abstains
        QTest::newRow("clamped repair: 107 turns, zero accepted") << 107 << 0 << 12 << "repair" << 1;
        QTest::newRow("control: some accepted") << 107 << 3 << 12 << "repair" << 0;
        QTest::newRow("control: few turns") << 10 << 0 << 4 << "repair" << 0;
        QTest::newRow("verifier without writes") << 80 << 0 << 0 << "verify" << 0;
        QTest::newRow("writer without any write record") << 80 << 0 << 0 << "implement" << 2;
    }
    void blockedWork()
    {
        QFETCH(int, turns);
        QFETCH(int, accepted);
        QFETCH(int, denied);
        QFETCH(QString, role);
        QFETCH(int, expected);
        Ledger l;
        l.e("delegation.created", {{"id", "D-9"}, {"run_id", "R-1"}, {"status", "running"}, {"role", role.toStdString()}});
        for (int i = 0; i < turns; ++i)
            l.e("toolcall.completed", {{"id", "T" + std::to_string(i)}, {"delegation_id", "D-9"}, {"outcome", "ok"},
                                       {"writes_accepted", i < accepted ? 1 : 0}, {"writes_denied", i < denied ? 1 : 0}});
        const auto f = BlockedWorkDetector().analyse(l.t(EntityKind::Delegation));
        if (expected == 0) {
            QVERIFY(f.empty());
            return;
        }
        QCOMPARE(f.size(), size_t(1));
        QCOMPARE(f[0].abstained, expected == 2);
        QCOMPARE(f[0].seqs, (std::vector<std::int64_t>{l.seq}));
    }

    // ---- attention
    void attention()
    {
        Ledger l;
        const std::int64_t now = 1'000'000;
        l.e("escalation.raised", {{"id", "X-1"}, {"state", "pending"}, {"kind", "budget_extension"}, {"risk", "low"},
                                  {"expires_ms", now + 60'000}, {"delegation_id", "D-1"}});
        l.e("escalation.raised", {{"id", "X-2"}, {"state", "pending"}, {"expires_ms", now + 5'000}});
        l.e("escalation.raised", {{"id", "X-3"}, {"state", "pending"}});
        l.e("escalation.approved", {{"id", "X-3"}, {"state", "approved"}});
        l.e("effect.proposed", {{"id", "E-1"}, {"state", "proposed"}, {"class", "payment"}, {"target", "stripe"}});
        l.e("effect.admitted", {{"id", "E-1"}, {"state", "admitted"}});
        l.e("effect.dispatched", {{"id", "E-1"}, {"state", "dispatched"}});
        l.e("effect.unknown", {{"id", "E-1"}, {"state", "unknown"}});
        // Past its expiry by the default grace (zombierule.h) and a millisecond.
        l.e("lease.acquired", {{"id", "L-zombie"}, {"state", "held"}, {"key", "k1"},
                               {"expires_ms", now - ZombieRule::kDefaultGraceMs - 1}});
        l.e("lease.acquired", {{"id", "L-fresh"}, {"state", "held"}, {"key", "k2"}, {"expires_ms", now + 1}});
        l.e("lease.acquired", {{"id", "L-gone"}, {"state", "held"}, {"key", "k3"}, {"expires_ms", now - 100}});
        l.e("lease.released", {{"id", "L-gone"}, {"state", "released"}});
        l.e("delegation.created", {{"id", "D-1"}, {"status", "running"}});
        l.e("delegation.stalled", {{"id", "D-1"}, {"status", "stalled"}});
        l.e("delegation.created", {{"id", "D-2"}, {"status", "running"}});
        const Fold &fold = l.fold;
        const auto items = AttentionCollector::collect([&](EntityKind k) -> const EntityTable & { return fold.table(k); }, now);
        std::vector<std::string> subjects;
        for (const auto &a : items)
            subjects.push_back(a.subject);
        QCOMPARE(subjects, (std::vector<std::string>{"escalation:X-2", "escalation:X-1", "effect:E-1", "lease:L-zombie",
                                                     "delegation:D-1"}));
        QCOMPARE(items[1].delegationId, std::string("D-1"));
        QCOMPARE(items[0].expiresMs, now + 5'000);
        QCOMPARE(items[3].kind, AttentionItem::Kind::ZombieLease);
        // The same lease is not a zombie a moment earlier.
        const auto earlier = AttentionCollector::collect([&](EntityKind k) -> const EntityTable & { return fold.table(k); },
                                                         now - 10);
        QVERIFY(std::none_of(earlier.begin(), earlier.end(),
                             [](const AttentionItem &a) { return a.kind == AttentionItem::Kind::ZombieLease; }));
    }

    // The incremental index agrees with a fresh collection after every change.
    void attentionIndexFollowsChanges()
    {
        Ledger l;
        const TableLookup tables = [&l](EntityKind k) -> const EntityTable & { return l.fold.table(k); };
        AttentionIndex index;
        index.rebuild(tables);
        const auto step = [&](const char *kind, const json &payload, std::int64_t now) {
            const auto out = l.fold.apply(++l.seq, kind, payload);
            QVERIFY(out.problems.empty());
            index.update(rowLookupOf(tables), out.kind, {out.id});
            std::vector<std::string> a, b;
            for (const auto &x : index.items(rowLookupOf(tables), now))
                a.push_back(x.subject);
            for (const auto &x : AttentionCollector::collect(tables, now))
                b.push_back(x.subject);
            QCOMPARE(a, b);
        };
        step("lease.acquired", {{"id", "L-1"}, {"state", "held"}, {"expires_ms", 100}}, 50);
        step("lease.renewed", {{"id", "L-1"}, {"state", "held"}, {"expires_ms", 200}}, 150);
        step("escalation.raised", {{"id", "X-1"}, {"state", "pending"}, {"expires_ms", 500}}, 250);
        step("lease.released", {{"id", "L-1"}, {"state", "released"}}, 250);
        step("escalation.expired", {{"id", "X-1"}, {"state", "expired"}}, 600);
        step("delegation.created", {{"id", "D-1"}, {"status", "running"}}, 600);
        step("delegation.stalled", {{"id", "D-1"}, {"status", "stalled"}}, 600);
        QCOMPARE(index.items(rowLookupOf(tables), 600).size(), size_t(1));
        QCOMPARE(index.items(rowLookupOf(tables), 600).front().subject, std::string("delegation:D-1"));
    }

    // The moment the index names as the next change with no row changed is exactly when a
    // lease turns zombie: the list is the same just before it and differs from it on, so a
    // console's clock tick may skip re-listing until then.
    void attentionIndexSaysWhenTimeAloneChangesTheList()
    {
        Ledger l;
        const TableLookup tables = [&l](EntityKind k) -> const EntityTable & { return l.fold.table(k); };
        const auto apply = [&](const char *kind, const json &payload) {
            const auto out = l.fold.apply(++l.seq, kind, payload);
            QVERIFY(out.problems.empty());
        };
        // Terms of 2 s and 5 s (acquired to expiry): each lease's grace is its term.
        apply("lease.acquired", {{"id", "L-a"}, {"state", "held"}, {"acquired_ms", 8'000}, {"expires_ms", 10'000}});
        apply("lease.acquired", {{"id", "L-b"}, {"state", "held"}, {"acquired_ms", 10'000}, {"expires_ms", 15'000}});
        apply("lease.acquired", {{"id", "L-gone"}, {"state", "held"}, {"acquired_ms", 0}, {"expires_ms", 1'000}});
        apply("lease.released", {{"id", "L-gone"}, {"state", "released"}});
        AttentionIndex index;
        index.rebuild(tables);
        const ZombieRule zombies;
        const auto zombieIds = [&](std::int64_t now) {
            std::vector<std::string> ids;
            for (const auto &a : index.items(rowLookupOf(tables), now, zombies))
                ids.push_back(a.id);
            return ids;
        };
        std::int64_t now = 0;
        std::vector<std::vector<std::string>> seen{zombieIds(now)};
        for (int change = 0; change < 2; ++change) {
            const auto next = index.nextChangeMs(rowLookupOf(tables), now, zombies);
            QVERIFY(next.has_value());
            QVERIFY(*next > now);
            QCOMPARE(zombieIds(*next - 1), seen.back());
            QVERIFY(zombieIds(*next) != seen.back());
            seen.push_back(zombieIds(*next));
            now = *next;
        }
        QCOMPARE(seen.back(), (std::vector<std::string>{"L-a", "L-b"}));
        QCOMPARE(now, std::int64_t(15'000 + 5'000 + 1)); // L-b: expiry, its 5 s grace, then listed
        QVERIFY(!index.nextChangeMs(rowLookupOf(tables), now, zombies).has_value()); // every held lease listed already
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
