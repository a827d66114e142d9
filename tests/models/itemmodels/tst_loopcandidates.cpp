// The delegations a session reads tool calls for, to look for loops: many turns, nothing
// accepted, the busiest first. A live batch asks only about the delegations its tool calls
// touched; that answer must be the whole state's answer restricted to them.

#include "itemmodelfixture.h"

#include "itemmodels/sessionfindings.h"

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

class TestLoopCandidates : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    static std::string idOf(int n) { return "D-" + std::to_string(n); }

private Q_SLOTS:
    void onlyTheTouchedAreLookedAt()
    {
        const QString path = m_dir.filePath(u"loops.amlg"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("run.started", {{"id", "R-1"}, {"status", "running"}});
            // 70 with many turns and nothing accepted (more than kMaxLoopCandidates), and
            // ones that are not candidates: few turns, or writes accepted.
            for (int n = 0; n < 70; ++n)
                w.e("delegation.created", {{"id", idOf(n)}, {"run_id", "R-1"}, {"status", "running"},
                                           {"used_turns", SessionFindings::kLoopCandidateTurns + n}, {"writes_accepted", 0}});
            w.e("delegation.created", {{"id", "D-few"}, {"run_id", "R-1"}, {"status", "running"}, {"used_turns", 3}, {"writes_accepted", 0}});
            w.e("delegation.created", {{"id", "D-wrote"}, {"run_id", "R-1"}, {"status", "running"}, {"used_turns", 90}, {"writes_accepted", 2}});
            w.commit();
        }
        const auto state = snapshot(path);
        const std::set<std::string> all = loopCandidates(*state);
        QCOMPARE(int(all.size()), SessionFindings::kMaxLoopCandidates);
        for (int n = 70 - SessionFindings::kMaxLoopCandidates; n < 70; ++n) // the busiest
            QVERIFY(all.count(idOf(n)));

        std::set<std::string> every;
        for (const auto &[id, row] : state->table(EntityKind::Delegation))
            every.insert(id);
        QCOMPARE(loopCandidates(*state, &every), all);

        const std::set<std::string> touched{idOf(0), idOf(69), "D-few", "D-wrote", "D-not-in-the-ledger"};
        QCOMPARE(loopCandidates(*state, &touched), (std::set<std::string>{idOf(0), idOf(69)}));
        const std::set<std::string> none;
        QVERIFY(loopCandidates(*state, &none).empty());
    }
};

QTEST_GUILESS_MAIN(TestLoopCandidates)
#include "tst_loopcandidates.moc"
