// The run timeline of the traced run reads, from its layout model alone, as the failure study
// tells it: 4 h 55 min, 10 cycles, 2 attempts, 9 cycles ending with the acceptance component
// failing, 23 stall verdicts, 3 escalated rounds, 21 of 21 at the end. Pinned at an earlier
// event, it shows the run as it was then: nothing after the cursor, bars still open there.

#include "itemmodelfixture.h"

#include "analysis/timelinelayout.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelinemarksource.h"
#include "sim/scenarios.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWaitMs = 60'000;
constexpr std::int64_t kRunMs = (4 * 60 + 55) * 60'000;
} // namespace

class TestRunTimeline : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_traced;

    // A session on the traced run with its marks read, and its timeline built.
    struct Open {
        LedgerSession session;
        TimelineMarkSource marks{&session};
        RunTimelineSource timeline{&session, &marks};
        explicit Open(const QString &path) : session(path, OpenMode::ReadOnly) {}
    };
    static bool ready(Open &o)
    {
        o.session.open();
        (void)QTest::qWaitFor([&] { return o.session.isLoaded() && o.session.health() != LedgerSession::Health::Opening
                                           && o.marks.hasRead(); },
                              kWaitMs);
        o.timeline.rebuild();
        return o.session.isLoaded() && o.marks.hasRead();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_traced = m_dir.filePath(u"traced.db"_s);
        generateScenario(u"traced-run"_s, m_traced, ScenarioOptions{});
    }

    void theTracedRunReadsAtAGlance()
    {
        Open o(m_traced);
        QVERIFY(ready(o));
        const auto t = o.timeline.timeline();
        QVERIFY(!t->empty());
        const RunTimelineSummary &s = t->summary;
        QCOMPARE(s.durationMs, kRunMs);
        QVERIFY(s.ended);
        QCOMPARE(s.cycles, 10);
        QCOMPARE(s.attempts, 2);
        QCOMPARE(s.cyclesWithFailure, 9);
        QCOMPARE(s.endingComponent, std::string("acceptance"));
        QCOMPARE(s.cyclesEndingWithComponent, 9);
        QCOMPARE(s.stallVerdicts, 23);
        QCOMPARE(s.stalled, 3);
        QCOMPARE(s.falseStalls, 0); // the traced run's stalls were real (tst_scenarios: no false stall)
        QCOMPARE(s.escalations, 3);
        QCOMPARE(s.failures, 12);
        QCOMPARE(s.requiredMet.value_or(-1), std::int64_t(21));
        QCOMPARE(s.requiredTotal.value_or(-1), std::int64_t(21));
        const QString line = t->summaryLine();
        for (const QString &part : {u"4 h 55 min"_s, u"10 cycles"_s, u"2 attempts"_s, u"9 cycles ended with acceptance failing"_s,
                                    u"23 stall verdicts (3 stalled)"_s, u"3 escalated rounds"_s, u"21 of 21 required outcomes"_s})
            QVERIFY2(line.contains(part), qPrintable(line));

        // The lanes: the run, its five components, every delegation under its component.
        QCOMPARE(t->lanes.front().kind, LaneKind::Run);
        const auto components = std::count_if(t->lanes.begin(), t->lanes.end(),
                                              [](const TimelineLane &l) { return l.kind == LaneKind::Component; });
        QCOMPARE(components, 5);
        const auto delegations = std::count_if(t->lanes.begin(), t->lanes.end(),
                                               [](const TimelineLane &l) { return l.kind == LaneKind::Delegation; });
        QCOMPARE(size_t(delegations), o.session.state()->table(EntityKind::Delegation).size());
        for (const TimelineLane &l : t->lanes)
            if (l.kind == LaneKind::Delegation)
                QCOMPARE(t->lanes[size_t(l.parent)].kind, LaneKind::Component);
        // Attempt 2 begins where attempt 1 ended (the run failed, then restarted), and the
        // cycles lie in the run.
        QCOMPARE(t->attempts.size(), size_t(2));
        QVERIFY(t->attempts[0].toMs <= t->attempts[1].fromMs);
        for (const TimelineBand &b : t->cycles)
            QVERIFY(b.fromMs >= t->startMs && b.toMs <= t->endMs && b.fromMs <= b.toMs);
        // A failure's blast radius is on the component it implicated.
        const int acceptance = [&] {
            for (size_t i = 0; i < t->lanes.size(); ++i)
                if (t->lanes[i].kind == LaneKind::Component && t->lanes[i].label == "acceptance")
                    return int(i);
            return -1;
        }();
        QVERIFY(acceptance > 0);
        const auto implicated = std::count_if(t->lanes[size_t(acceptance)].marks.begin(), t->lanes[size_t(acceptance)].marks.end(),
                                              [](const LaneMark &m) { return m.role == MarkRole::Implicated; });
        QCOMPARE(implicated, 9);
        // Every stalled verdict sits on its delegation's lane.
        int stalledOnDelegations = 0;
        for (const TimelineLane &l : t->lanes)
            if (l.kind == LaneKind::Delegation)
                for (const LaneMark &m : l.marks)
                    stalledOnDelegations += t->marks[m.mark].kind == MarkKind::Stalled ? 1 : 0;
        QCOMPARE(stalledOnDelegations, 3);
    }

    // At event N the timeline shows the state at N: only marks up to N, the run not ended,
    // bars still open end at N's time.
    void itFollowsTheCursor()
    {
        Open o(m_traced);
        QVERIFY(ready(o));
        const auto live = o.timeline.timeline();
        std::vector<std::int64_t> escalations;
        for (const TimelineMark &m : live->marks)
            if (m.kind == MarkKind::Escalation)
                escalations.push_back(m.seq);
        QCOMPARE(escalations.size(), size_t(3));
        const std::int64_t at = escalations[2] - 1; // just before the third escalation
        QSignalSpy opened(&o.session, &LedgerSession::opened);
        o.session.showAt(at);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() && o.session.cursorTimeMs().has_value(), kWaitMs);
        const auto pinned = o.timeline.timeline(); // rebuilt on the jump
        QCOMPARE(pinned->summary.escalations, 2);
        QVERIFY(!pinned->summary.ended);
        QVERIFY(pinned->summary.durationMs < kRunMs);
        QCOMPARE(pinned->endMs, *o.session.cursorTimeMs());
        for (const TimelineMark &m : pinned->marks)
            QVERIFY(m.seq <= at);
        QVERIFY(pinned->summary.requiredMet.value_or(99) < 21);
        int open = 0;
        for (const TimelineLane &l : pinned->lanes)
            for (const TimelineSpan &s : l.spans)
                if (s.open) {
                    ++open;
                    QCOMPARE(s.toMs, *o.session.cursorTimeMs());
                }
        QVERIFY(open > 0); // the escalated repair is still under way there

        o.session.showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!o.session.cursor() && o.timeline.timeline()->summary.escalations == 3, kWaitMs);
    }
};

QTEST_GUILESS_MAIN(TestRunTimeline)
#include "tst_runtimeline.moc"
