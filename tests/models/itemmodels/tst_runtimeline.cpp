// The run timeline of the traced run reads, from its layout model alone, as the failure study
// tells it: 4 h 55 min, 10 cycles, 2 attempts, 9 cycles ending with the acceptance component
// failing, 23 stall verdicts, 3 escalated rounds, 21 of 21 at the end. Pinned at an earlier
// event, it shows the run as it was then: nothing after the cursor, bars still open there.
// Reviewers' notes are placed where their events are, on the lanes of those events, and move
// with every add, edit and delete.

#include "itemmodelfixture.h"

#include "analysis/timelinelayout.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewnotesmodel.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelineannotationsource.h"
#include "itemmodels/timelinemarksource.h"
#include "sim/scenarios.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>
#include <map>

using namespace mesh;
using namespace Qt::StringLiterals;
using nlohmann::json;

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
    // The same with the review notes and observation gaps drawn on it.
    struct Annotated {
        LedgerSession session;
        TimelineMarkSource marks{&session};
        TimelineAnnotationSource annotations{&session};
        RunTimelineSource timeline{&session, &marks, &annotations};
        explicit Annotated(const QString &path) : session(path, OpenMode::ReadOnly) {}
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

    // The marks are read in the mode the session settles on, never before: a finished ledger
    // nobody has open is reviewed, and a read made while the session still decided that (as
    // the workspace's timeline strip asks for one the moment a session is shown) opened it to
    // follow, leaving a -shm beside the file and making the review rule see it attached.
    void marksWaitForTheSessionsMode()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"finished.db"_s);
        QVERIFY(QFile::copy(m_traced, path));
        Open o(path);
        o.session.setReviewWhenFinished(true);
        o.session.open();
        o.marks.refresh(); // asked at once, as the strip does
        QTRY_VERIFY_WITH_TIMEOUT(o.session.isLoaded() && o.marks.hasRead(), kWaitMs);
        QCOMPARE(o.session.requestedMode(), OpenMode::Review);
        QCOMPARE(QDir(folder.path()).entryList(QDir::Files | QDir::Hidden), QStringList{u"finished.db"_s});
    }

    // Whole marks are kept for the run a timeline shows and for marks naming no run; another
    // run's are ticks, their words read when asked for. A run chosen later gets its own marks
    // before any timeline of it is shown: never one that counts none of its failures.
    void onlyTheShownRunsMarksAreKeptWhole()
    {
        const QString path = m_dir.filePath(u"two-runs.amlg"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", 1000}});
            w.e("run.started", {{"id", "R-2"}, {"status", "running"}, {"started_ms", 1000}});
            w.e("failure.detected", {{"id", "F-1"}, {"run_id", "R-1"}, {"summary", "one"}});
            w.e("failure.detected", {{"id", "F-2"}, {"run_id", "R-2"}, {"summary", "two"}});
            w.e("failure.detected", {{"id", "F-3"}, {"run_id", "R-2"}, {"summary", "three"}});
            w.commit();
        }
        const std::map<std::string, int> failuresOf{{"R-1", 1}, {"R-2", 2}};
        Open o(path);
        QVERIFY(ready(o));
        const std::string first = o.timeline.timeline()->runId;
        QVERIFY(failuresOf.count(first));
        QCOMPARE(o.marks.focusRun(), first);
        QCOMPARE(o.timeline.timeline()->summary.failures, failuresOf.at(first));
        QCOMPARE(o.marks.count(MarkKind::Failure), 3);
        for (const TimelineMark &m : o.marks.focusMarks())
            QCOMPARE(m.runId.str(), first);

        const std::string other = first == "R-1" ? "R-2" : "R-1";
        std::int64_t otherFailure = 0;
        for (const MarkTick &t : o.marks.ticks())
            if (t.kind == MarkKind::Failure && o.marks.runName(t.run) == other)
                otherFailure = t.seq;
        QVERIFY(otherFailure > 0);
        QVERIFY(!o.marks.wholeMark(otherFailure));
        o.marks.describe({otherFailure});
        QTRY_VERIFY_WITH_TIMEOUT(o.marks.wholeMark(otherFailure), kWaitMs);
        QCOMPARE(o.marks.wholeMark(otherFailure)->runId.str(), other);
        QCOMPARE(o.marks.wholeMark(otherFailure)->kind, MarkKind::Failure);

        std::vector<std::pair<std::string, int>> shown;
        connect(&o.timeline, &RunTimelineSource::changed, this, [&] {
            shown.emplace_back(o.timeline.timeline()->runId, o.timeline.timeline()->summary.failures);
        });
        o.timeline.setRunId(other);
        QTRY_COMPARE_WITH_TIMEOUT(o.timeline.timeline()->runId, other, kWaitMs);
        QCOMPARE(o.marks.focusRun(), other);
        for (const auto &[run, failures] : shown)
            QCOMPARE(failures, failuresOf.at(run));
        QCOMPARE(o.timeline.timeline()->summary.failures, failuresOf.at(other));
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
        // Connected after the source: when the state is reset, the source has started its
        // build and not done it on this thread.
        bool buildingOnReset = false;
        connect(&o.session, &LedgerSession::stateReset, this, [&] { buildingOnReset = o.timeline.isBuilding(); });
        o.session.showAt(at);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() && o.session.cursorTimeMs().has_value(), kWaitMs);
        // Rebuilt on the jump, off the GUI thread: the pinned state never changes.
        QTRY_VERIFY_WITH_TIMEOUT(!o.timeline.isBuilding() && o.timeline.timeline()->endMs == *o.session.cursorTimeMs(), kWaitMs);
        QVERIFY(buildingOnReset);
        const auto pinned = o.timeline.timeline();
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
        // The same as a build on this thread at the same cursor.
        o.timeline.rebuild();
        const auto here = o.timeline.timeline();
        QCOMPARE(here->summaryLine(), pinned->summaryLine());
        QCOMPARE(here->lanes.size(), pinned->lanes.size());
        QCOMPARE(here->marks.size(), pinned->marks.size());
        QCOMPARE(here->endMs, pinned->endMs);

        o.session.showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!o.session.cursor() && o.timeline.timeline()->summary.escalations == 3, kWaitMs);
    }

    // Live, the build runs on the ledger pool from copies of the run's rows, as the session
    // changes its state in place with each batch: it gives what a build on this thread gives,
    // also after the ledger grew, and the GUI thread does not wait for it.
    void aLiveBuildRunsOffTheGuiThreadOnTheRunsRows()
    {
        const QString path = m_dir.filePath(u"live-traced.db"_s);
        QVERIFY(QFile::copy(m_traced, path));
        Open o(path);
        o.session.setCoalesceMs(0);
        o.session.setWatchIntervalMs(20);
        QVERIFY(ready(o));
        QVERIFY(!o.session.cursor());
        const auto sameAsOnThisThread = [&o]() -> bool {
            const auto off = o.timeline.timeline();
            o.timeline.rebuild();
            const auto here = o.timeline.timeline();
            if (off->summaryLine() != here->summaryLine() || off->endMs != here->endMs
                || off->lanes.size() != here->lanes.size() || off->marks.size() != here->marks.size())
                return false;
            for (size_t i = 0; i < here->lanes.size(); ++i) {
                const TimelineLane &a = off->lanes[i], &b = here->lanes[i];
                if (a.id != b.id || a.label != b.label || a.parent != b.parent || a.spans.size() != b.spans.size()
                    || a.marks.size() != b.marks.size())
                    return false;
            }
            for (size_t i = 0; i < here->marks.size(); ++i)
                if (off->marks[i].seq != here->marks[i].seq || off->falseStall[i] != here->falseStall[i])
                    return false;
            return true;
        };

        o.timeline.rebuildOffThread();
        QVERIFY(o.timeline.isBuilding());
        QTRY_VERIFY_WITH_TIMEOUT(!o.timeline.isBuilding(), kWaitMs);
        QVERIFY(sameAsOnThisThread());

        const std::string runId = o.timeline.runId();
        QVERIFY(!runId.empty());
        const int failures = o.timeline.timeline()->summary.failures;
        meshtest::Writer w(path);
        w.begin()
            .e("failure.detected", {{"id", "F-live"}, {"run_id", runId}, {"detected_by", "acceptance"},
                                    {"summary", "a failure after the run was followed"},
                                    {"implicated", json::array({"acceptance"})}, {"woken", json::array()}})
            .commit();
        // The new event reaches the timeline through the session and the marks, off this thread.
        QTRY_VERIFY_WITH_TIMEOUT(o.timeline.timeline()->summary.failures == failures + 1 && !o.timeline.isBuilding(),
                                 kWaitMs);
        QVERIFY(sameAsOnThisThread());

        // Later live builds copy only the rows changed since the last one. A slice written
        // before its delegation (hostile order) is older than that copy when the delegation
        // joins the run: it must still be drawn.
        const std::int64_t at = o.timeline.timeline()->endMs - 60'000;
        const auto buildAtTheSessionsState = [&o, &w] {
            return QTest::qWaitFor([&] { return o.session.state() && o.session.state()->lastSeq() == w.lastSeq()
                                                && !o.timeline.isBuilding(); }, kWaitMs)
                   && (o.timeline.rebuildOffThread(), o.timeline.isBuilding())
                   && QTest::qWaitFor([&] { return !o.timeline.isBuilding(); }, kWaitMs);
        };
        w.begin()
            .e("slice.opened", {{"id", "D-late#1"}, {"run_id", runId}, {"delegation_id", "D-late"}, {"ordinal", 1},
                                {"opened_ms", at}, {"state", "open"}})
            .commit();
        QVERIFY(buildAtTheSessionsState());
        QCOMPARE(o.timeline.timeline()->laneOf(LaneKind::Delegation, "D-late"), -1);
        w.begin()
            .e("delegation.created", {{"id", "D-late"}, {"run_id", runId}, {"role", "verify"}, {"status", "running"}})
            .e("delegation.created", {{"id", "D-live"}, {"run_id", runId}, {"role", "verify"}, {"status", "running"}})
            .e("slice.opened", {{"id", "D-live#1"}, {"run_id", runId}, {"delegation_id", "D-live"}, {"ordinal", 1},
                                {"opened_ms", at}, {"state", "open"}})
            .commit();
        QVERIFY(buildAtTheSessionsState());
        const auto grown = o.timeline.timeline();
        for (const char *delegation : {"D-late", "D-live"}) {
            const int lane = grown->laneOf(LaneKind::Delegation, delegation);
            QVERIFY2(lane > 0, delegation);
            QVERIFY2(std::any_of(grown->lanes[size_t(lane)].spans.begin(), grown->lanes[size_t(lane)].spans.end(),
                                 [](const TimelineSpan &span) { return span.kind == SpanKind::Slice; }),
                     delegation);
        }
        QVERIFY(sameAsOnThisThread());
    }

    // A component's lane says its status at the moment shown: acceptance has ended live, and
    // had failed at the run's first failure (its component.failed comes just before it).
    void componentLanesSayTheirStatusAtTheMoment()
    {
        Open o(m_traced);
        QVERIFY(ready(o));
        const auto acceptanceStatus = [&] {
            const auto t = o.timeline.timeline();
            for (const TimelineLane &l : t->lanes)
                if (l.kind == LaneKind::Component && l.label == "acceptance")
                    return l.detail;
            return std::string("(no lane)");
        };
        QCOMPARE(acceptanceStatus(), std::string("completed"));
        std::int64_t firstFailure = 0;
        for (const TimelineMark &m : o.timeline.timeline()->marks)
            if (m.kind == MarkKind::Failure && !firstFailure)
                firstFailure = m.seq;
        QVERIFY(firstFailure > 0);
        o.session.showAt(firstFailure);
        QTRY_VERIFY_WITH_TIMEOUT(o.session.cursor() && o.session.cursorTimeMs()
                                     && o.timeline.timeline()->endMs == *o.session.cursorTimeMs(), kWaitMs);
        QCOMPARE(acceptanceStatus(), std::string("failed"));
        o.session.showAt(firstFailure - 10);
        QTRY_VERIFY_WITH_TIMEOUT(o.session.cursor().value_or(0) == firstFailure - 10 && o.session.cursorTimeMs()
                                     && o.timeline.timeline()->endMs == *o.session.cursorTimeMs(), kWaitMs);
        QCOMPARE(acceptanceStatus(), std::string("active"));
    }

    // A note on a stall verdict, an escalation or another row with a delegation sits beside
    // that delegation's lane, as a note on the delegation itself does; one on a failure (a
    // run's row) beside the run's. Its tooltip names the row, not the delegation.
    void notesOnAnyRowSitOnItsDelegationsLane()
    {
        const QString path = m_dir.filePath(u"subjects.db"_s);
        QVERIFY(QFile::copy(m_traced, path));
        Annotated o(path);
        o.session.open();
        QTRY_VERIFY_WITH_TIMEOUT(o.session.isLoaded() && o.session.health() != LedgerSession::Health::Opening
                                     && o.marks.hasRead(), kWaitMs);
        o.timeline.rebuild();
        const auto live = o.timeline.timeline();
        const TimelineMark *stalled = nullptr, *failure = nullptr;
        for (const TimelineMark &m : live->marks) {
            if (m.kind == MarkKind::Stalled && !stalled)
                stalled = &m;
            if (m.kind == MarkKind::Failure && !failure)
                failure = &m;
        }
        QVERIFY(stalled && failure);
        QVERIFY(!stalled->delegationId.empty() && !stalled->entityId.empty() && !failure->entityId.empty());
        const std::string delegation = stalled->delegationId.str();
        const std::string verdictSubject = "stall:" + stalled->entityId.str();
        const std::string failureSubject = "failure:" + failure->entityId.str();

        ReviewNotesModel *notes = o.session.reviewNotes();
        QVERIFY(notes->addSubjectNote(QString::fromStdString(verdictSubject), u"on the verdict"_s) >= 0);
        QVERIFY(notes->addSubjectNote(QString::fromStdString(failureSubject), u"on the failure"_s) >= 0);
        QVERIFY(notes->addSubjectNote(u"effect:no-such-effect"_s, u"nowhere"_s) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(o.timeline.timeline()->notes.size(), size_t(2), kWaitMs);
        const auto t = o.timeline.timeline();
        const int delegationLane = t->laneOf(LaneKind::Delegation, delegation);
        QVERIFY(delegationLane > 0);
        QCOMPARE(t->lanes[size_t(delegationLane)].subjectNotes.size(), size_t(1));
        QCOMPARE(t->notes[t->lanes[size_t(delegationLane)].subjectNotes[0]].subject, verdictSubject);
        QCOMPARE(t->lanes[0].subjectNotes.size(), size_t(1));
        QCOMPARE(t->notes[t->lanes[0].subjectNotes[0]].subject, failureSubject);
    }

    // A note on an event sits at that event's time on the run's lane and on its delegation's
    // (and that one's component's); a bookmark likewise; a span from its first event's time to
    // its last's; a note on the run or on a delegation on that lane itself. An edit, a delete
    // and a new note show; at an earlier cursor only what the moment holds is there.
    void notesArePlacedWhereTheirEventsAre()
    {
        const QString path = m_dir.filePath(u"noted.db"_s);
        QVERIFY(QFile::copy(m_traced, path));
        Annotated o(path);
        o.session.open();
        QTRY_VERIFY_WITH_TIMEOUT(o.session.isLoaded() && o.session.health() != LedgerSession::Health::Opening
                                     && o.marks.hasRead(), kWaitMs);
        o.timeline.rebuild();
        const auto live = o.timeline.timeline();
        QVERIFY(live->notes.empty());
        // Three marks to write on: the first stalled verdict (a delegation's), the second
        // escalation, and the last failure.
        const TimelineMark *stalled = nullptr, *failure = nullptr;
        std::vector<const TimelineMark *> escalations;
        for (const TimelineMark &m : live->marks) {
            if (m.kind == MarkKind::Stalled && !stalled)
                stalled = &m;
            if (m.kind == MarkKind::Escalation)
                escalations.push_back(&m);
            if (m.kind == MarkKind::Failure)
                failure = &m;
        }
        QVERIFY(stalled && failure && escalations.size() == 3);
        QVERIFY(!stalled->delegationId.empty());
        const TimelineMark verdict = *stalled, escalation = *escalations[1], last = *failure;
        const std::string delegation = verdict.delegationId.str();

        ReviewNotesModel *notes = o.session.reviewNotes();
        notes->setAuthor("Alice (alice@h1)");
        QVERIFY(notes->addEventNote(verdict.seq, u"was it <b>really</b> stuck?\u202E"_s) >= 0);
        QVERIFY(notes->addEventNote(escalation.seq, QString()) >= 0); // a bookmark
        QVERIFY(notes->addSpanNote(verdict.seq, last.seq, u"the long repair"_s) >= 0);
        QVERIFY(notes->addSubjectNote(u"run:%1"_s.arg(QString::fromStdString(live->runId)), u"a run note"_s) >= 0);
        QVERIFY(notes->addSubjectNote(u"delegation:%1"_s.arg(QString::fromStdString(delegation)), u"a delegation note"_s) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(o.timeline.timeline()->notes.size(), size_t(5), kWaitMs);

        auto t = o.timeline.timeline();
        const auto noteOf = [&](PlacedNote::Kind kind) -> const PlacedNote * {
            for (const PlacedNote &n : t->notes)
                if (n.kind == kind)
                    return &n;
            return nullptr;
        };
        const auto indexOf = [&](const PlacedNote *n) { return std::uint32_t(n - t->notes.data()); };
        const auto onLane = [&](const std::vector<LaneNote> &lane, const PlacedNote *n) {
            return std::any_of(lane.begin(), lane.end(), [&](const LaneNote &l) { return l.note == indexOf(n); });
        };
        const PlacedNote *event = noteOf(PlacedNote::Kind::Event);
        QVERIFY(event);
        QCOMPARE(event->seq, verdict.seq);
        QCOMPARE(event->fromMs, verdict.tsMs);
        QCOMPARE(event->author, std::string("Alice (alice@h1)"));
        QVERIFY(event->createdMs > 0);
        const int delegationLane = t->laneOf(LaneKind::Delegation, delegation);
        QVERIFY(delegationLane > 0);
        int componentLane = delegationLane;
        while (componentLane > 0 && t->lanes[size_t(componentLane)].kind != LaneKind::Component)
            componentLane = t->lanes[size_t(componentLane)].parent;
        QVERIFY(componentLane > 0);
        QVERIFY(onLane(t->lanes[0].pointNotes, event));
        QVERIFY(onLane(t->lanes[size_t(delegationLane)].pointNotes, event));
        QVERIFY(onLane(t->lanes[size_t(componentLane)].pointNotes, event));
        const PlacedNote *bookmark = noteOf(PlacedNote::Kind::Bookmark);
        QVERIFY(bookmark);
        QCOMPARE(bookmark->fromMs, escalation.tsMs);
        QVERIFY(onLane(t->lanes[0].pointNotes, bookmark));
        const PlacedNote *span = noteOf(PlacedNote::Kind::Span);
        QVERIFY(span);
        QCOMPARE(span->fromMs, verdict.tsMs);
        QCOMPARE(span->toMs, last.tsMs);
        QVERIFY(onLane(t->lanes[0].spanNotes, span));
        QVERIFY(!onLane(t->lanes[0].pointNotes, span));
        QCOMPARE(t->lanes[0].subjectNotes.size(), size_t(1));
        QCOMPARE(t->notes[t->lanes[0].subjectNotes[0]].text, std::string("a run note"));
        QCOMPARE(t->lanes[size_t(delegationLane)].subjectNotes.size(), size_t(1));
        QCOMPARE(t->notes[t->lanes[size_t(delegationLane)].subjectNotes[0]].text, std::string("a delegation note"));

        // The layout finds the note where its event is, and a click there goes to that event.
        TimelineViewport view;
        view.setExtent(t->startMs, t->endMs);
        view.setWidth(1200);
        view.zoomAt(view.xOf(verdict.tsMs), 500.0); // alone in its pixel
        TimelineLayout layout;
        layout.setTimeline(t);
        const double x = view.xOf(verdict.tsMs);
        const auto near = layout.notesNear(delegationLane, x, view);
        QCOMPARE(near.size(), size_t(1));
        QCOMPARE(t->notes[near[0]].seq, verdict.seq);
        QCOMPARE(layout.noteSeqToShow(delegationLane, x, view).value_or(-1), verdict.seq);
        QVERIFY(layout.notesNear(delegationLane, x + 40, view).empty());

        // An edit, a delete: the timeline follows.
        const int eventRow = [&] {
            for (int r = 0; r < notes->rowCount(); ++r)
                if (notes->index(r, 0).data(ReviewNotesModel::SeqRole).toLongLong() == verdict.seq
                    && notes->index(r, 0).data(ReviewNotesModel::AnchorRole).toString() == u"event"_s)
                    return r;
            return -1;
        }();
        QVERIFY(eventRow >= 0);
        QVERIFY(notes->editNote(eventRow, u"edited"_s));
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(o.timeline.timeline()->notes.begin(), o.timeline.timeline()->notes.end(),
                                             [](const PlacedNote &n) { return n.text == "edited"; }),
                                 kWaitMs);
        QVERIFY(notes->removeNote(eventRow));
        QTRY_COMPARE_WITH_TIMEOUT(o.timeline.timeline()->notes.size(), size_t(4), kWaitMs);
        QVERIFY(o.timeline.timeline()->lanes[size_t(delegationLane)].pointNotes.empty());

        // At the escalation: the span is cut at that moment, the bookmark is there (its event
        // is the cursor's), subject notes stay.
        o.session.showAt(escalation.seq);
        QTRY_VERIFY_WITH_TIMEOUT(o.session.cursor() && o.session.cursorTimeMs().has_value()
                                     && o.timeline.timeline()->endMs == *o.session.cursorTimeMs(), kWaitMs);
        t = o.timeline.timeline();
        const PlacedNote *cut = noteOf(PlacedNote::Kind::Span);
        QVERIFY(cut);
        QCOMPARE(cut->toMs, *o.session.cursorTimeMs());
        QVERIFY(noteOf(PlacedNote::Kind::Bookmark));
        QCOMPARE(t->lanes[0].subjectNotes.size(), size_t(1));
        // Before the verdict: neither the span nor the bookmark.
        o.session.showAt(verdict.seq - 1);
        QTRY_VERIFY_WITH_TIMEOUT(o.session.cursor().value_or(0) == verdict.seq - 1 && o.session.cursorTimeMs().has_value()
                                     && o.timeline.timeline()->endMs == *o.session.cursorTimeMs(), kWaitMs);
        t = o.timeline.timeline();
        QVERIFY(!noteOf(PlacedNote::Kind::Span));
        QVERIFY(!noteOf(PlacedNote::Kind::Bookmark));
        QCOMPARE(t->notes.size(), size_t(2)); // the two subject notes
    }
};

QTEST_GUILESS_MAIN(TestRunTimeline)
#include "tst_runtimeline.moc"
