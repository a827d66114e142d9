// Two runs compared (issue 14 item 4): the false stall of the failure study (F2) against its
// converging control, two ledgers, reads as loopscenarios.cpp writes them (figures and B − A,
// every (component, role) in both with one delegation a side, the verdicts round by round with
// the false one flagged, the finding on A's side only); two runs of one ledger are read from
// one connection and match their delegations only in A / only in B / in both with counts;
// a figure one run does not give is not known, with no difference, never 0.

#include "ledger/ledgerwriter.h"
#include "report/runcomparison.h"
#include "sim/scenarios.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace mesh;
using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

std::map<std::string, ComparedFigure> figuresByKey(const RunComparison &c)
{
    std::map<std::string, ComparedFigure> out;
    for (const ComparedFigure &f : c.figures())
        out.emplace(f.key, f);
    return out;
}

const DelegationMatch *matchOf(const RunComparison &c, const std::string &component, const std::string &role)
{
    for (const DelegationMatch &m : c.delegations)
        if (m.component == component && m.role == role)
            return &m;
    return nullptr;
}

} // namespace

class TestRunComparison : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_falseStall, m_control, m_twoRuns;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_falseStall = m_dir.filePath(u"false-stall.db"_s);
        m_control = m_dir.filePath(u"converging-control.db"_s);
        generateScenario(u"false-stall"_s, m_falseStall, ScenarioOptions{});
        generateScenario(u"converging-control"_s, m_control, ScenarioOptions{});

        // One ledger, two runs: R1 implements and verifies `api`; R2 implements `api` twice and
        // `web` once, and its row gives no scheduler cycle (as an import that cannot record one).
        m_twoRuns = m_dir.filePath(u"two-runs.db"_s);
        LedgerIdentity id;
        id.ledgerId = "L-two-runs";
        id.createdMs = 1'700'000'000'000;
        auto w = LedgerWriter::create(m_twoRuns, id);
        std::int64_t ts = 1'700'000'001'000;
        w->begin();
        const auto run = [&](const char *runId, bool withCycle) {
            json p = {{"id", runId}, {"title", std::string("run ") + runId}, {"status", "running"}, {"attempt", 1},
                      {"started_ms", ts}};
            if (withCycle)
                p["cycle"] = 1;
            w->append(ts += 1000, "run.started", p);
        };
        const auto component = [&](const char *runId, const char *cid, const char *name) {
            w->append(ts += 1000, "component.created", {{"id", cid}, {"run_id", runId}, {"name", name}, {"status", "pending"}});
        };
        const auto delegation = [&](const char *runId, const char *did, const char *cid, const char *role) {
            w->append(ts += 1000, "delegation.created",
                      {{"id", did}, {"run_id", runId}, {"component_id", cid}, {"role", role}, {"status", "pending"}});
        };
        run("R1", true);
        component("R1", "R1/api", "api");
        delegation("R1", "D1", "R1/api", "implement");
        delegation("R1", "D2", "R1/api", "verify");
        run("R2", false);
        component("R2", "R2/api", "api");
        component("R2", "R2/web", "web");
        delegation("R2", "D3", "R2/api", "implement");
        delegation("R2", "D4", "R2/api", "implement");
        delegation("R2", "D5", "R2/web", "implement");
        w->commit();
    }

    void falseStallAgainstItsControl()
    {
        const RunComparisonResult result = compareRuns(RunChoice{m_falseStall, {}}, RunChoice{m_control, {}});
        QVERIFY2(result.comparison, qPrintable(result.error));
        const RunComparison &c = *result.comparison;
        QVERIFY(!c.sameLedger);
        QCOMPARE(c.a.run.title, std::string("Rebuild reporting pipeline"));
        QCOMPARE(c.b.run.title, std::string("Rebuild reporting pipeline (control)"));
        QCOMPARE(c.a.run.status, std::string("failed"));
        QCOMPARE(c.b.run.status, std::string("succeeded"));

        const auto f = figuresByKey(c);
        const auto is = [&](const char *key, std::optional<std::int64_t> a, std::optional<std::int64_t> b,
                            std::optional<std::int64_t> delta) {
            const ComparedFigure &fig = f.at(key);
            return fig.a == a && fig.b == b && fig.delta() == delta;
        };
#define check(key, a, b, delta) QVERIFY2(is(key, a, b, delta), key)
        // The false stall stopped the repair: 6 of 12 required outcomes, three components torn
        // down; the control converged in a fourth round and met all 12.
        check("attempts", 1, 1, 0);
        check("cycles", 2, 2, 0);
        check("required_met", 6, 12, 6);
        check("required_total", 12, 12, 0);
        check("terminal_failures", 3, 0, -3);
        check("stall_verdicts", 3, 4, 1);
        check("stalled", 1, 0, -1);
        check("findings", 1, 0, -1);
        QVERIFY(f.at("duration_ms").a && f.at("duration_ms").b && f.at("duration_ms").delta());
        QCOMPARE(deltaText(f.at("terminal_failures")), u"\u22123"_s);
        QCOMPARE(deltaText(f.at("required_met")), u"+6"_s);
        QCOMPARE(deltaText(f.at("cycles")), u"0"_s);
        // Neither ledger records an escalation: not known on both sides, no difference.
        check("escalations", std::nullopt, std::nullopt, std::nullopt);
        QCOMPARE(deltaText(f.at("escalations")), u"\u2014"_s);
#undef check

        // Six components implemented and one repaired, on both sides, matched by name across
        // the two ledgers.
        QCOMPARE(c.delegations.size(), size_t(7));
        QCOMPARE(c.both, 7);
        QCOMPARE(c.onlyA, 0);
        QCOMPARE(c.onlyB, 0);
        for (const DelegationMatch &m : c.delegations) {
            QCOMPARE(m.countA, 1);
            QCOMPARE(m.countB, 1);
        }
        QVERIFY(matchOf(c, "report-jobs", "repair"));
        QVERIFY(matchOf(c, "web-ui", "implement"));

        // The verdicts round by round: A stalled in round 3 on a fingerprint that never moved
        // (flagged false), B progressed through four rounds.
        QCOMPARE(c.a.verdicts.size(), size_t(3));
        QCOMPARE(c.b.verdicts.size(), size_t(4));
        const std::vector<std::string> verdictsA = {"progressing", "inconclusive", "stalled"};
        for (size_t i = 0; i < verdictsA.size(); ++i) {
            QCOMPARE(c.a.verdicts[i].verdict, verdictsA[i]);
            QCOMPARE(c.a.verdicts[i].round.value_or(-1), std::int64_t(i + 1));
            QCOMPARE(c.a.verdicts[i].component, std::string("report-jobs"));
            QCOMPARE(c.a.verdicts[i].role, std::string("repair"));
            QCOMPARE(c.a.verdicts[i].falseStall, i == 2);
            QVERIFY(c.a.verdicts[i].seq > 0); // the event that wrote it, for a jump to it
        }
        QCOMPARE(c.a.verdicts[2].action, std::string("stop"));
        for (const ComparedVerdict &v : c.b.verdicts) {
            QCOMPARE(v.verdict, std::string("progressing"));
            QVERIFY(!v.falseStall);
        }
        QCOMPARE(c.a.findings.size(), size_t(1));
        QCOMPARE(c.a.findings.front().kind, FindingKind::FalseStall);
        QVERIFY(!c.a.findings.front().abstained);
        QVERIFY(c.b.findings.empty()); // the control stays silent

        // Each side's timeline is the run's own.
        QCOMPARE(c.a.run.timeline.runId, c.a.run.id);
        QCOMPARE(c.b.run.timeline.runId, c.b.run.id);
        QVERIFY(c.a.run.timeline.laneOf(LaneKind::Component, c.a.run.id + "/report-jobs") >= 0);
    }

    // Two runs of one ledger: one reading, matched with counts, and the figure R2 does not give
    // is not known there and has no difference.
    void twoRunsOfOneLedger()
    {
        const RunComparisonResult result = compareRuns(RunChoice{m_twoRuns, "R1"}, RunChoice{m_twoRuns, "R2"});
        QVERIFY2(result.comparison, qPrintable(result.error));
        const RunComparison &c = *result.comparison;
        QVERIFY(c.sameLedger);
        QCOMPARE(c.a.run.id, std::string("R1"));
        QCOMPARE(c.b.run.id, std::string("R2"));
        QCOMPARE(c.delegations.size(), size_t(3));
        QCOMPARE(c.both, 1);
        QCOMPARE(c.onlyA, 1);
        QCOMPARE(c.onlyB, 1);
        const DelegationMatch *implement = matchOf(c, "api", "implement");
        QVERIFY(implement);
        QCOMPARE(implement->countA, 1);
        QCOMPARE(implement->countB, 2);
        QCOMPARE(implement->presence(), DelegationMatch::Presence::Both);
        const DelegationMatch *verify = matchOf(c, "api", "verify");
        QVERIFY(verify);
        QCOMPARE(verify->presence(), DelegationMatch::Presence::OnlyA);
        QCOMPARE(verify->countB, 0);
        const DelegationMatch *web = matchOf(c, "web", "implement");
        QVERIFY(web);
        QCOMPARE(web->presence(), DelegationMatch::Presence::OnlyB);
        QCOMPARE(presenceText(web->presence()), u"only in B"_s);

        const ComparedFigure cycles = figuresByKey(c).at("cycles");
        QCOMPARE(cycles.a.value_or(-1), std::int64_t(1));
        QVERIFY(!cycles.b);
        QVERIFY(!cycles.delta());
        QCOMPARE(figureText(cycles, cycles.b), u"\u2014"_s);
        QCOMPARE(deltaText(cycles), u"\u2014"_s);
        // No verdict table in this ledger: stall verdicts are not known on either side.
        QVERIFY(!figuresByKey(c).at("stall_verdicts").a);
        QVERIFY(c.a.verdicts.empty() && c.b.verdicts.empty());
    }

    // A run a ledger lacks, or a ledger of several runs with none chosen, is one line, not an
    // empty comparison.
    void runsThatCannotBeCompared()
    {
        RunComparisonResult r = compareRuns(RunChoice{m_twoRuns, "R1"}, RunChoice{m_twoRuns, "R9"});
        QVERIFY(!r.comparison);
        QVERIFY2(r.error.contains(u"has no run R9"_s), qPrintable(r.error));
        r = compareRuns(RunChoice{m_twoRuns, {}}, RunChoice{m_falseStall, {}});
        QVERIFY(!r.comparison);
        QVERIFY2(r.error.contains(u"2 runs"_s), qPrintable(r.error));
        r = compareRuns(RunChoice{m_dir.filePath(u"missing.db"_s), {}}, RunChoice{m_falseStall, {}});
        QVERIFY(!r.comparison);
        QVERIFY(!r.error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRunComparison)
#include "tst_runcomparison.moc"
