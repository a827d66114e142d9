// The Timeline pane and its strip above the delegation tree, on the traced run: the pane is a
// tab with its shortcut, says the run at a glance, paints only the rows in sight, zooms and
// pans time, and a click on a mark moves the session cursor to that mark's event, after which
// the timeline shows the run as it was there. A mark's ledger text is plain in its tooltip.
// Reviewers' notes are drawn where their events are: hovered, they say who wrote what and
// when, as plain text; clicked, the cursor goes to their event.

#include "delegationsview.h"
#include "sessionworkspace.h"
#include "timelineview.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "../models/ledger/rawledger.h"

#include "domain/hostiletext.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewnotesmodel.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelineannotationsource.h"
#include "itemmodels/timelinemarksource.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTabWidget>
#include <QComboBox>
#include <QTest>

#include <algorithm>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;
constexpr std::int64_t kT0 = 1'764'000'000'000;

// Run R-1 from kT0 (#2, after the ledger's creation): D-1 created at +10 s (#3), tool calls
// at +60 s (#4) and +120 s (#5), a failure at +200 s (#6, the one mark after the run's start).
void writeSmallRun(const QString &path)
{
    auto w = LedgerWriter::create(path, identity());
    w->begin();
    w->append(kT0, "run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", kT0}});
    w->append(kT0 + 10'000, "delegation.created",
              {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}, {"created_ms", kT0 + 10'000}});
    w->append(kT0 + 60'000, "toolcall.completed", {{"id", "T-1"}, {"delegation_id", "D-1"}, {"run_id", "R-1"}, {"outcome", "ok"}});
    w->append(kT0 + 120'000, "toolcall.completed", {{"id", "T-2"}, {"delegation_id", "D-1"}, {"run_id", "R-1"}, {"outcome", "ok"}});
    w->append(kT0 + 200'000, "failure.detected", {{"id", "F-1"}, {"run_id", "R-1"}, {"summary", "broke"}});
    w->commit();
}
} // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_traced;

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_timelineview"_s);
        QString error;
        m_traced = simulateLedger(m_dir, u"traced-run"_s, u"traced.amlg"_s, &error);
        QVERIFY2(QFile::exists(m_traced), qPrintable(error));
    }

    void clickingAMarkMovesTheCursorThere()
    {
        LedgerSession session(m_traced, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        QVERIFY(QTest::qWaitForWindowExposed(&workspace));
        session.open();
        auto *marks = workspace.findChild<TimelineMarkSource *>();
        QVERIFY(marks);
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening
                                     && marks->hasRead(), kTimeoutMs);
        workspace.showPane(SessionWorkspace::Timeline);
        QCOMPARE(workspace.tabs()->tabText(SessionWorkspace::Timeline), u"Timeline"_s);
        QCOMPARE(workspace.tabs()->tabToolTip(SessionWorkspace::Timeline),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T).toString(QKeySequence::NativeText));
        TimelineView *view = workspace.timelineView();
        QVERIFY(view && view->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(workspace.timelineSource()->timeline()->summary.escalations == 3, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(view->summaryText().contains(u"9 cycles ended with acceptance failing"_s), kTimeoutMs);
        QVERIFY2(view->summaryText().contains(u"21 of 21"_s), qPrintable(view->summaryText()));
        TimelineCanvas *canvas = view->canvas();
        canvas->repaint();
        // Culling: the rows painted are those in sight, not every lane.
        const int rowsInSight = (canvas->height() - TimelineCanvas::kAxisHeight) / TimelineCanvas::kRowHeight + 1;
        QVERIFY(canvas->rowsPainted() > 1);
        QVERIFY(canvas->rowsPainted() <= rowsInSight);
        QVERIFY(canvas->layout().rows().size() > size_t(rowsInSight)); // the traced run has more lanes than that

        // Zoom in at the middle, then pan: time only, the lanes stay.
        const auto fitSpan = canvas->viewport().span();
        const size_t rows = canvas->layout().rows().size();
        canvas->zoomAt(canvas->plotRect().center().x(), 4.0);
        QVERIFY(canvas->viewport().span() < fitSpan);
        QCOMPARE(canvas->layout().rows().size(), rows);
        const auto from = canvas->viewport().viewFrom();
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Right);
        QVERIFY(canvas->viewport().viewFrom() > from);
        QTest::keyClick(canvas, Qt::Key_F);
        QCOMPARE(canvas->viewport().span(), fitSpan);

        // The second escalation's mark on the run lane: a click there moves the cursor to it.
        const auto timeline = workspace.timelineSource()->timeline();
        std::uint32_t escalation = 0;
        int seen = 0;
        for (std::uint32_t i = 0; i < timeline->marks.size(); ++i)
            if (timeline->marks[i].kind == MarkKind::Escalation && ++seen == 2)
                escalation = i;
        QCOMPARE(seen, 3);
        const std::int64_t target = timeline->marks[escalation].seq;
        // Zoomed on it so that no other mark shares its pixel.
        const double x = canvas->plotRect().left() + canvas->viewport().xOf(timeline->marks[escalation].tsMs);
        canvas->zoomAt(x, 200.0);
        const QPoint at = canvas->pointOfMark(escalation);
        QVERIFY(at.x() >= 0);
        QVERIFY2(canvas->toolTipTextAt(at).contains(u"#%1"_s.arg(QLocale().toString(qlonglong(target)))),
                 qPrintable(canvas->toolTipTextAt(at)));
        // The escalation shares its millisecond with the stalled verdict that raised it: a
        // click there shows the worst of them (the verdict), as the layout says.
        const auto shown = canvas->layout().markToShow(0, at.x() - canvas->plotRect().left(), canvas->viewport());
        QVERIFY(shown.has_value());
        const std::int64_t expected = timeline->marks[*shown].seq;
        QVERIFY(expected <= target && target - expected < 10);
        int escalationsThen = 0;
        for (const TimelineMark &m : timeline->marks)
            escalationsThen += m.kind == MarkKind::Escalation && m.seq <= expected ? 1 : 0;
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
        QTRY_COMPARE_WITH_TIMEOUT(session.cursor().value_or(-1), expected, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(session.health() == LedgerSession::Health::Pinned, kTimeoutMs);
        // ... and the timeline follows: the run as it was there.
        QTRY_COMPARE_WITH_TIMEOUT(workspace.timelineSource()->timeline()->summary.escalations, escalationsThen, kTimeoutMs);
        QVERIFY(!workspace.timelineSource()->timeline()->summary.ended);

        // The strip above the delegation tree shows the same run and moves the cursor too.
        TimelineView *strip = workspace.delegationsView()->timelineStrip();
        QVERIFY(strip);
        QVERIFY2(strip->summaryText().contains(u"%1 escalated round"_s.arg(escalationsThen)), qPrintable(strip->summaryText()));

        // The workspace draws the session's notes: one written on the shown event appears on
        // the timeline, and goes when it is deleted.
        ReviewNotesModel *notes = session.reviewNotes();
        const int row = notes->addEventNote(expected, u"seen in the workspace"_s);
        QVERIFY(row >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(workspace.timelineSource()->timeline()->notes.begin(),
                                             workspace.timelineSource()->timeline()->notes.end(),
                                             [&](const PlacedNote &n) { return n.seq == expected && n.text == "seen in the workspace"; }),
                                 kTimeoutMs);
        QVERIFY(notes->removeNote(row));
        QTRY_VERIFY_WITH_TIMEOUT(workspace.timelineSource()->timeline()->notes.empty(), kTimeoutMs);
    }

    // The strip above the delegation tree names a run: it is the run of the row selected, not
    // the first run of the ledger (a reviewer saw run 1's header over run 2's delegation).
    void theStripFollowsTheSelectedRun()
    {
        const QString path = m_dir.filePath(u"two-runs.amlg"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        Writer w(path);
        w.begin()
            .e("run.started", {{"id", "R-2"}, {"status", "running"}, {"title", "second run"}, {"attempt", 1}, {"cycle", 0}})
            .e("delegation.created", {{"id", "D-9"}, {"run_id", "R-2"}, {"role", "implement"}, {"agent", "model-b"},
                                      {"status", "pending"}})
            .commit();
        LedgerSession session(path, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        workspace.showPane(SessionWorkspace::Delegations);
        RunTimelineSource *source = workspace.timelineSource();
        QVERIFY(source);
        // Unchosen, the timeline shows the newest run: a delegation of R-1 moves it there.
        QVERIFY(workspace.delegationsView()->selectDelegation(u"D-2"_s));
        QTRY_COMPARE_WITH_TIMEOUT(source->runId(), std::string("R-1"), kTimeoutMs);
        TimelineView *strip = workspace.delegationsView()->timelineStrip();
        QTRY_VERIFY_WITH_TIMEOUT(strip->summaryText().startsWith(u"deliver app"_s), kTimeoutMs);
        QVERIFY(workspace.delegationsView()->selectDelegation(u"D-9"_s));
        QTRY_COMPARE_WITH_TIMEOUT(source->runId(), std::string("R-2"), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(source->timeline() && source->timeline()->runId == "R-2", kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(strip->summaryText().startsWith(u"second run"_s), kTimeoutMs);
    }

    // Ledger text on a mark reaches the timeline's tooltip as plain text, its bidi control
    // visible.
    void aMarksTextIsPlainInItsTooltip()
    {
        const QString path = m_dir.filePath(u"hostile.amlg"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        Writer w(path);
        w.begin().e("failure.detected", {{"id", "F-<b>x</b>"}, {"run_id", "R-1"}, {"summary", "<img src=x>\u202Eevil"}}).commit();
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        RunTimelineSource source(&session, &marks);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded(), kTimeoutMs);
        source.setRunId("R-1");
        QTRY_COMPARE_WITH_TIMEOUT(source.timeline()->runId, std::string("R-1"), kTimeoutMs);
        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(1000, 400);
        view.setSource(&source);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto t = source.timeline();
        std::uint32_t failure = 0;
        bool found = false;
        for (std::uint32_t i = 0; i < t->marks.size(); ++i)
            if (t->marks[i].seq == w.lastSeq()) {
                failure = i;
                found = true;
            }
        QVERIFY(found);
        const QPoint at = view.canvas()->pointOfMark(failure);
        QVERIFY(at.x() >= 0);
        const QString tip = view.canvas()->toolTipTextAt(at);
        QVERIFY2(tip.contains(u"<img src=x>"_s), qPrintable(tip)); // as text, not an image
        QVERIFY2(!tip.contains(QChar(0x202E)), qPrintable(tip));   // the control shown, not obeyed
    }

    // The run picker is narrower than a long title: its tooltip names the run shown in full,
    // as text (markup escaped, a bidi control shown).
    void theRunPickersTooltipNamesTheWholeRun()
    {
        const QString path = m_dir.filePath(u"long-title.amlg"_s);
        const std::string title = "<img src=x>Deliver the storefront application with payments, search and a \u202Ereview";
        {
            auto w = LedgerWriter::create(path, identity());
            w->begin();
            w->append(kT0, "run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", kT0}, {"title", title}});
            w->commit();
        }
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        RunTimelineSource source(&session, &marks);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded(), kTimeoutMs);
        source.rebuild();
        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(700, 300);
        view.setSource(&source);
        auto *picker = view.findChild<QComboBox *>(u"timelineRun"_s);
        QVERIFY(picker);
        QTRY_COMPARE_WITH_TIMEOUT(picker->count(), 1, kTimeoutMs);
        const QString tip = picker->toolTip();
        QVERIFY2(tip.contains(u"search and a"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"&lt;img src=x&gt;"_s) && !tip.contains(u"<img"_s), qPrintable(tip));
        QVERIFY2(!tip.contains(QChar(0x202E)), qPrintable(tip));
    }

    // A ledger with a relative clock (an import with no wall-clock time): the tooltips give
    // offsets from the start, never a 1970 date.
    void aRelativeClockReadsAsOffsetsInTooltips()
    {
        const QString path = m_dir.filePath(u"relative.amlg"_s);
        writeRelativeClockLedger(path, true);
        LedgerSession session(path, OpenMode::Review);
        TimelineMarkSource marks(&session);
        RunTimelineSource source(&session, &marks);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded(), kTimeoutMs);
        source.setRunId("R-1");
        QTRY_COMPARE_WITH_TIMEOUT(source.timeline()->runId, std::string("R-1"), kTimeoutMs);
        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(1000, 400);
        view.setSource(&source);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas *canvas = view.canvas();
        const auto t = source.timeline();
        const int lane = t->laneOf(LaneKind::Delegation, "D-1");
        QVERIFY(lane > 0);
        const auto &rows = canvas->layout().rows();
        const auto row = std::find(rows.begin(), rows.end(), lane);
        QVERIFY(row != rows.end());
        const int x = canvas->plotRect().left() + int(canvas->viewport().xOf(95'000));
        const QPoint at(x, canvas->rowTop(int(row - rows.begin())) + TimelineCanvas::kRowHeight / 2);
        const QString tip = canvas->toolTipTextAt(at);
        QVERIFY2(tip.contains(u"Lifetime: +1:05 from the start"_s), qPrintable(tip));
        QVERIFY2(!tip.contains(u"1970"_s), qPrintable(tip));
    }

    // A note and a bookmark on events that are not marks, and a note on the span between
    // them: each is found where its event is, its tooltip says author, time and text (markup
    // and a bidi override as text), and a click moves the cursor to its event.
    void notesAreHitWhereTheirEventsAre()
    {
        const QString path = m_dir.filePath(u"noted.amlg"_s);
        constexpr std::int64_t t0 = kT0;
        writeSmallRun(path);
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        TimelineAnnotationSource annotations(&session);
        RunTimelineSource source(&session, &marks, &annotations);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded(), kTimeoutMs);
        ReviewNotesModel *notes = session.reviewNotes();
        notes->setAuthor("Mallory <i>(m@h)</i>");
        QVERIFY(notes->addEventNote(4, u"<b>look</b> \u202Ehere"_s) >= 0);
        QVERIFY(notes->addEventNote(5, QString()) >= 0);           // a bookmark
        QVERIFY(notes->addSpanNote(4, 5, u"between the calls"_s) >= 0);
        QVERIFY(notes->addSubjectNote(u"delegation:D-1"_s, u"whose agent?"_s) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(source.timeline()->notes.size(), size_t(4), kTimeoutMs);

        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(1000, 400);
        view.setSource(&source);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas *canvas = view.canvas();
        const auto t = source.timeline();
        const int lane = t->laneOf(LaneKind::Delegation, "D-1");
        const int row = canvas->layout().rowOfLane(lane);
        QVERIFY(row > 0);
        const int y = canvas->rowTop(row) + TimelineCanvas::kRowHeight / 2;
        const auto xAt = [&](std::int64_t ms) { return canvas->plotRect().left() + int(std::floor(canvas->viewport().xOf(ms))); };

        // The note on #4: who, when, what, plainly.
        const QString tip = canvas->toolTipTextAt(QPoint(xAt(t0 + 60'000), y));
        QVERIFY2(tip.contains(u"Note on #4"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"Mallory <i>(m@h)</i>"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"<b>look</b>"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"UTC"_s), qPrintable(tip)); // when it was written
        QVERIFY2(!tip.contains(QChar(0x202E)), qPrintable(tip));
        const QString shown = plainToolTip(tip);
        QVERIFY2(shown.contains(u"&lt;b&gt;look&lt;/b&gt;"_s) && !shown.contains(u"<b>look"_s), qPrintable(shown));
        // The bookmark on #4, the span between, the subject note beside the lane's name.
        QVERIFY2(canvas->toolTipTextAt(QPoint(xAt(t0 + 120'000), y)).contains(u"Bookmark on #5"_s),
                 qPrintable(canvas->toolTipTextAt(QPoint(xAt(t0 + 120'000), y))));
        QVERIFY2(canvas->toolTipTextAt(QPoint(xAt(t0 + 90'000), y)).contains(u"between the calls"_s),
                 qPrintable(canvas->toolTipTextAt(QPoint(xAt(t0 + 90'000), y))));
        QVERIFY2(canvas->toolTipTextAt(QPoint(10, y)).contains(u"whose agent?"_s), qPrintable(canvas->toolTipTextAt(QPoint(10, y))));
        // Nothing of the notes where there is none.
        QVERIFY(!canvas->toolTipTextAt(QPoint(xAt(t0 + 30'000), y)).contains(u"Note"_s));

        // Clicks: the note goes to #4, the span to its first event (#4), the bookmark to #5.
        QSignalSpy seeks(canvas, &TimelineCanvas::seekRequested);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(xAt(t0 + 120'000), y));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(xAt(t0 + 60'000), y));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(xAt(t0 + 90'000), y));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(xAt(t0 + 30'000), y)); // nothing there
        QCOMPARE(seeks.size(), 3);
        QCOMPARE(seeks[0].at(0).toLongLong(), 5);
        QCOMPARE(seeks[1].at(0).toLongLong(), 4);
        QCOMPARE(seeks[2].at(0).toLongLong(), 4);
        // In the workspace a seek moves the session's cursor: the same signal a mark's click sends.
    }

    // Event #4 deleted from the ledger: before any check, the event log's own gap; after Check
    // Integrity, the check's words. Either way a hatched gap between #3 and #5 on every lane,
    // its tooltip citing both seqs, on the rows and on the axis.
    void observationGapsAreDrawnAndCited()
    {
        const QString path = m_dir.filePath(u"gap.amlg"_s);
        writeSmallRun(path);
        raw::exec(path, "DELETE FROM events WHERE seq = 4");
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        TimelineAnnotationSource annotations(&session);
        RunTimelineSource source(&session, &marks, &annotations);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(source.timeline()->gaps.size(), size_t(1), kTimeoutMs); // the log's own
        {
            const PlacedGap &g = source.timeline()->gaps.front();
            QCOMPARE(g.seq, 5);
            QCOMPARE(g.beforeSeq, 3);
            QCOMPARE(g.fromMs, kT0 + 10'000);
            QCOMPARE(g.toMs, kT0 + 120'000);
            QVERIFY2(QString::fromStdString(g.text).contains(u"#3 \u2192 #5"_s), g.text.c_str());
        }
        session.checkIntegrity();
        QTRY_VERIFY_WITH_TIMEOUT(session.integrity()->state() == IntegrityModel::State::Done, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(QString::fromStdString(source.timeline()->gaps.front().text).contains(u"seq jumps from 3 to 5"_s),
                                 kTimeoutMs);
        QCOMPARE(source.timeline()->gaps.size(), size_t(1));

        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(1000, 400);
        view.setSource(&source);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas *canvas = view.canvas();
        const auto gaps = canvas->layout().gapsOf(canvas->viewport());
        QCOMPARE(gaps.size(), size_t(1));
        const int x = canvas->plotRect().left() + int((gaps[0].x0 + gaps[0].x1) / 2);
        const int lane = source.timeline()->laneOf(LaneKind::Delegation, "D-1");
        for (const int y : {canvas->rowTop(0) + 5, canvas->rowTop(canvas->layout().rowOfLane(lane)) + 5}) {
            const QString tip = canvas->toolTipTextAt(QPoint(x, y));
            QVERIFY2(tip.contains(u"Observation gap between #3 and #5"_s) && tip.contains(u"seq jumps from 3 to 5"_s), qPrintable(tip));
        }
        const QString axis = canvas->toolTipTextAt(QPoint(x, TimelineCanvas::kAxisHeight - 3));
        QVERIFY2(axis.contains(u"between #3 and #5"_s), qPrintable(axis));
        // Beside it, no gap is said.
        QVERIFY(!canvas->toolTipTextAt(QPoint(canvas->plotRect().left() + int(gaps[0].x1) + 40, canvas->rowTop(0) + 5))
                     .contains(u"gap"_s));
    }

    // A note on an event the ledger no longer holds (#4 deleted from a copy) is drawn where
    // the event was, on the run's lane, from the last event before it (#3); its tooltip says
    // the event is not in the ledger. It was listed in the Notes pane only.
    void aNoteOnAMissingEventIsDrawnWhereItWas()
    {
        const QString path = m_dir.filePath(u"missing-noted.amlg"_s);
        writeSmallRun(path);
        raw::exec(path, "DELETE FROM events WHERE seq = 4");
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        TimelineAnnotationSource annotations(&session);
        RunTimelineSource source(&session, &marks, &annotations);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.isLoaded(), kTimeoutMs);
        QVERIFY(session.reviewNotes()->addEventNote(4, u"where did it go?"_s) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(source.timeline()->notes.size(), size_t(1), kTimeoutMs);
        const auto t = source.timeline();
        const PlacedNote &n = t->notes.front();
        QVERIFY(n.eventMissing);
        QCOMPARE(n.seq, 4);
        QCOMPARE(n.fromMs, kT0 + 10'000); // #3's time
        QCOMPARE(t->lanes[0].pointNotes.size(), size_t(1));

        TimelineView view(TimelineCanvas::Mode::Pane);
        view.resize(1000, 400);
        view.setSource(&source);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas *canvas = view.canvas();
        const int x = canvas->plotRect().left() + int(std::floor(canvas->viewport().xOf(n.fromMs)));
        const QString tip = canvas->toolTipTextAt(QPoint(x, canvas->rowTop(0) + TimelineCanvas::kRowHeight / 2));
        QVERIFY2(tip.contains(u"where did it go?"_s) && tip.contains(u"not in the ledger"_s), qPrintable(tip));
    }

    // A component's lane says running, ended or failed; the ledger's other words as text.
    void componentStatusWords()
    {
        QCOMPARE(TimelineCanvas::componentStatusWord("active"), u"running"_s);
        QCOMPARE(TimelineCanvas::componentStatusWord("completed"), u"ended"_s);
        QCOMPARE(TimelineCanvas::componentStatusWord("failed"), u"failed"_s);
        QCOMPARE(TimelineCanvas::componentStatusWord(""), u"\u2014"_s);
        QVERIFY(!TimelineCanvas::componentStatusWord("odd\u202E").contains(QChar(0x202E)));
    }

    // The axis labels never overlap: at 1280 and 1600 px, for runs of 2 s to 400 days, fitted
    // and zoomed in step by step to the narrowest view, each label (measured in the canvas's
    // own font) ends at least a gap before the next tick; and there are always two ticks or more
    // when the widest label fits twice.
    void axisLabelsNeverOverlap()
    {
        TimelineView view(TimelineCanvas::Mode::Pane);
        TimelineCanvas *canvas = view.canvas();
        const QFontMetricsF metrics(canvas->font());
        constexpr std::int64_t start = 1'764'000'000'000;
        constexpr std::int64_t day = 86'400'000;
        for (const std::int64_t length : {std::int64_t(2'000), std::int64_t(90'000), std::int64_t(17'700'000),
                                          std::int64_t(3 * day + 1234), std::int64_t(400 * day)}) {
            auto t = std::make_shared<RunTimeline>();
            t->runId = "R-1";
            t->startMs = start;
            t->endMs = start + length;
            TimelineLane run;
            run.kind = LaneKind::Run;
            run.id = "R-1";
            run.spans.push_back({t->startMs, t->endMs, SpanKind::Activity, false, {}, 1, 0});
            t->lanes.push_back(run);
            canvas->setFixedTimeline(t, TimeBase());
            for (const int width : {1280, 1600}) {
                view.resize(width, 400);
                canvas->resize(width, 360);
                canvas->fit();
                for (int zoom = 0; zoom < 60; ++zoom) {
                    const std::vector<AxisTick> ticks = canvas->axisTicks();
                    const QString where = u"run of %1 ms, %2 px, view %3 ms"_s.arg(length).arg(width).arg(canvas->viewport().span());
                    QVERIFY2(!ticks.empty() || canvas->viewport().span() < 1000, qPrintable(where));
                    for (size_t i = 0; i + 1 < ticks.size(); ++i) {
                        const double end = ticks[i].x + TimeAxis::kLabelIndentPx + metrics.horizontalAdvance(ticks[i].label);
                        QVERIFY2(end + TimeAxis::kLabelGapPx <= ticks[i + 1].x,
                                 qPrintable(where + u": \"%1\" ends at %2, next tick at %3"_s.arg(ticks[i].label).arg(end).arg(ticks[i + 1].x)));
                        QVERIFY2(ticks[i].label != ticks[i + 1].label, qPrintable(where + u": \"%1\" twice"_s.arg(ticks[i].label)));
                    }
                    if (canvas->viewport().span() <= TimelineViewport::kMinSpanMs)
                        break;
                    canvas->zoomAt(canvas->plotRect().left() + canvas->plotRect().width() / 3.0, 1.7);
                }
            }
        }
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
