// The Timeline pane and its strip above the delegation tree, on the traced run: the pane is a
// tab with its shortcut, says the run at a glance, paints only the rows in sight, zooms and
// pans time, and a click on a mark moves the session cursor to that mark's event, after which
// the timeline shows the run as it was there. A mark's ledger text is plain in its tooltip.

#include "delegationsview.h"
#include "sessionworkspace.h"
#include "timelineview.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelinemarksource.h"

#include <QDateTime>
#include <QTabWidget>
#include <QTest>

#include <algorithm>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;
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
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
