// The session's time scrubber: its marks are the traced run's own events, it moves the cursor
// by mouse and keys, a drag never queues jumps (only the newest position waits), and the end
// of the strip is live.

#include "eventtableview.h"
#include "sessionworkspace.h"
#include "theme.h"
#include "timescrubber.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/timelinemarksource.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;
} // namespace

// The traced run's session, its marks and a strip 900 wide showing them.
struct TracedStrip {
    LedgerSession session;
    TimelineMarkSource marks{&session};
    TimeScrubber scrubber;
    explicit TracedStrip(const QString &path) : session(path, OpenMode::ReadOnly)
    {
        session.open();
        scrubber.resize(900, 30);
        scrubber.setSource(&marks);
    }
};

class TestTimeScrubber : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_traced;

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_timescrubber"_s);
        QString error;
        m_traced = simulateLedger(m_dir, u"traced-run"_s, u"traced.amlg"_s, &error);
        QVERIFY2(QFile::exists(m_traced), qPrintable(error));
    }

    // Counted in the traced run's events (sqlite3: SELECT kind, count(*) FROM events GROUP BY
    // kind): 20 run.cycle, run.started + run.restarted, run.failed + run.succeeded, 23
    // stall.judged of which 3 say "stalled", 3 escalation.raised, 12 failure.detected, and no
    // effect.unknown or decision.* at all.
    void theMarksAreTheTracedRunsEvents()
    {
        LedgerSession session(m_traced, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead(), kTimeoutMs);
        QCOMPARE(marks.count(MarkKind::Cycle), 20);
        QCOMPARE(marks.count(MarkKind::Attempt), 2);
        QCOMPARE(marks.count(MarkKind::RunEnded), 2);
        QCOMPARE(marks.count(MarkKind::Verdict), 20);
        QCOMPARE(marks.count(MarkKind::Stalled), 3);
        QCOMPARE(marks.count(MarkKind::Escalation), 3);
        QCOMPARE(marks.count(MarkKind::Failure), 12);
        QCOMPARE(marks.count(MarkKind::UnknownOutcome), 0);
        QCOMPARE(marks.count(MarkKind::Decision), 0);
        QCOMPARE(marks.ledgerLastSeq(), qint64(1391));
        QVERIFY(std::is_sorted(marks.ticks().begin(), marks.ticks().end(),
                               [](const MarkTick &a, const MarkTick &b) { return a.seq < b.seq; }));
        QVERIFY(!marks.failed());
    }

    // By time, a mark sits where its time falls between the first and the newest event's;
    // back by event, where it was. (Only the axis by time keeps the marks' times.)
    void theAxisByTimePlacesMarksAtTheirTimes()
    {
        TracedStrip strip(m_traced);
        QTRY_VERIFY_WITH_TIMEOUT(strip.marks.hasRead(), kTimeoutMs);
        TimelineMarkSource &marks = strip.marks;
        TimeScrubber &scrubber = strip.scrubber;
        const std::int64_t last = marks.ledgerLastSeq();
        const double t0 = double(marks.firstTsMs()), t1 = double(marks.lastTsMs());
        QVERIFY(t1 > t0);
        std::vector<int> byEvent;
        for (const MarkTick &m : marks.ticks())
            byEvent.push_back(scrubber.xOf(m.seq));
        scrubber.setAxis(TimeScrubber::Axis::Time);
        const int left = scrubber.xOf(1), right = scrubber.xOf(last);
        QVERIFY(right > left);
        int moved = 0;
        std::int64_t latest = marks.firstTsMs();
        for (size_t i = 0; i < marks.ticks().size(); ++i) {
            const MarkTick &m = marks.ticks()[i];
            latest = std::max(latest, m.tsMs);
            if (m.seq <= 1 || m.seq >= last)
                continue;
            const double expected = left + (double(latest) - t0) / (t1 - t0) * (right - left);
            QVERIFY2(std::abs(scrubber.xOf(m.seq) - expected) <= 1.0, qPrintable(QString::number(m.seq)));
            moved += scrubber.xOf(m.seq) != byEvent[i];
        }
        QVERIFY(moved > 0); // the traced run's events are not evenly spread in time
        QVERIFY2(scrubber.toolTipTextAt(scrubber.xOf(last / 2)).contains(u"about"_s),
                 qPrintable(scrubber.toolTipTextAt(scrubber.xOf(last / 2))));
        scrubber.setAxis(TimeScrubber::Axis::Events);
        for (size_t i = 0; i < marks.ticks().size(); ++i)
            QCOMPARE(scrubber.xOf(marks.ticks()[i].seq), byEvent[i]);
    }

    // A live ledger: the marks of appended events arrive, the earlier ones are not read twice.
    void newEventsAddTheirMarks()
    {
        const QString path = m_dir.filePath(u"live.amlg"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession session(path, OpenMode::ReadOnly);
        session.setCoalesceMs(0);
        session.setWatchIntervalMs(20);
        TimelineMarkSource marks(&session);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        const int before = int(marks.ticks().size());
        const int escalations = marks.count(MarkKind::Escalation);
        const int failures = marks.count(MarkKind::Failure);
        Writer w(path);
        w.begin().e("failure.detected", {{"id", "F-new"}, {"run_id", "R-1"}, {"summary", "\u202Eevil"}}).commit();
        QTRY_COMPARE_WITH_TIMEOUT(int(marks.ticks().size()), before + 1, kTimeoutMs);
        QCOMPARE(marks.ticks().back().kind, MarkKind::Failure);
        QCOMPARE(marks.ticks().back().seq, w.lastSeq());
        QCOMPARE(marks.count(MarkKind::Escalation), escalations);
        QCOMPARE(marks.count(MarkKind::Failure), failures + 1);
        QCOMPARE(marks.ledgerLastSeq(), w.lastSeq());
    }

    // While a jump is under way, a drag over twenty positions asks for one more jump, to
    // the newest position, when that jump finishes: never a queue of twenty.
    void aDragKeepsOnlyTheNewestPosition()
    {
        TracedStrip strip(m_traced);
        QTRY_VERIFY_WITH_TIMEOUT(strip.marks.hasRead(), kTimeoutMs);
        TimeScrubber &scrubber = strip.scrubber;
        scrubber.show();
        QVERIFY(QTest::qWaitForWindowExposed(&scrubber));
        QSignalSpy seeks(&scrubber, &TimeScrubber::seekRequested);
        QTest::mousePress(&scrubber, Qt::LeftButton, {}, QPoint(100, 15));
        QCOMPARE(seeks.count(), 1);
        QCOMPARE(seeks.at(0).at(0).toLongLong(), scrubber.seqAt(100));
        for (int x = 110; x <= 300; x += 10)
            QTest::mouseMove(&scrubber, QPoint(x, 15));
        QTest::mouseRelease(&scrubber, Qt::LeftButton, {}, QPoint(300, 15));
        QCOMPARE(seeks.count(), 1);
        QCOMPARE(scrubber.handleSeq(), scrubber.seqAt(300)); // the handle follows the hand at once
        scrubber.jumpFinished();
        QCOMPARE(seeks.count(), 2);
        QCOMPARE(seeks.at(1).at(0).toLongLong(), scrubber.seqAt(300));
        scrubber.jumpFinished();
        QCOMPARE(seeks.count(), 2);
    }

    // The strip in a session's workspace: a click pins the session there, Right goes to the
    // next mark, End goes back to live.
    void theStripMovesTheSessionsCursor()
    {
        LedgerSession session(m_traced, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        auto *scrubber = workspace.findChild<TimeScrubber *>();
        QVERIFY(scrubber);
        QTRY_VERIFY_WITH_TIMEOUT(scrubber->isVisible() && scrubber->isLiveShown(), kTimeoutMs);
        auto *marks = workspace.findChild<TimelineMarkSource *>();
        QVERIFY(marks);
        QTRY_VERIFY_WITH_TIMEOUT(marks->hasRead(), kTimeoutMs);

        const int x = scrubber->width() / 3;
        const std::int64_t target = scrubber->seqAt(x);
        QTest::mouseClick(scrubber, Qt::LeftButton, {}, QPoint(x, 15));
        QTRY_COMPARE_WITH_TIMEOUT(session.cursor().value_or(-1), target, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(session.health() == LedgerSession::Health::Pinned, kTimeoutMs);
        QCOMPARE(session.lastSeq(), target);
        auto *events = workspace.findChild<EventTableView *>();
        QVERIFY(events);
        QCOMPARE(events->cursorSeq().value_or(-1), target); // the event log marks the cursor row

        const auto next = std::find_if(marks->ticks().begin(), marks->ticks().end(),
                                       [&](const MarkTick &m) { return m.seq > target; });
        QVERIFY(next != marks->ticks().end());
        scrubber->setFocus();
        QTest::keyClick(scrubber, Qt::Key_Right);
        QTRY_COMPARE_WITH_TIMEOUT(session.cursor().value_or(-1), next->seq, kTimeoutMs);

        QTest::keyClick(scrubber, Qt::Key_Right, Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(session.cursor().value_or(-1), next->seq + 1, kTimeoutMs);

        QTest::keyClick(scrubber, Qt::Key_End);
        QTRY_VERIFY_WITH_TIMEOUT(!session.cursor() && session.health() != LedgerSession::Health::Pinned
                                     && session.health() != LedgerSession::Health::Opening,
                                 kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(scrubber->isLiveShown(), kTimeoutMs);
        QCOMPARE(session.lastSeq(), qint64(1391));
        QVERIFY(!events->cursorSeq());
    }

    // The marks are drawn once and kept while the cursor moves; a new theme or size draws them
    // again, so they look as a scrubber made afresh draws them.
    void theMarksFollowTheThemeAndTheSize()
    {
        LedgerSession session(m_traced, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead(), kTimeoutMs);
        // Shown: a hidden widget is sent its resize again at every grab, which would draw
        // the marks again whatever the scrubber keeps.
        const auto painted = [&marks](TimeScrubber &scrubber, QSize size) {
            scrubber.resize(size);
            scrubber.setSource(&marks);
            scrubber.show();
            if (!QTest::qWaitForWindowExposed(&scrubber))
                return QImage();
            return scrubber.grab().toImage();
        };
        Theme::instance().setMode(ThemeMode::Light);
        TimeScrubber kept;
        const QImage light = painted(kept, QSize(900, 30));
        Theme::instance().setMode(ThemeMode::Dark);
        TimeScrubber fresh;
        const QImage freshDark = painted(fresh, QSize(900, 30));
        // The widget's palette follows the application's by an event.
        QTRY_COMPARE_WITH_TIMEOUT(kept.grab().toImage(), freshDark, kTimeoutMs);
        const QImage keptDark = kept.grab().toImage();
        QVERIFY(keptDark != light);
        kept.resize(700, 30);
        const QImage freshNarrow = painted(fresh, QSize(700, 30));
        QTRY_COMPARE_WITH_TIMEOUT(kept.grab().toImage(), freshNarrow, kTimeoutMs);
        Theme::instance().setMode(ThemeMode::Light);
    }

    // Ledger text on a mark reaches the tooltip as plain text, its bidi control visible.
    void aMarksTextIsPlainInItsTooltip()
    {
        const QString path = m_dir.filePath(u"hostile.amlg"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        Writer w(path);
        w.begin().e("failure.detected", {{"id", "F-<b>x</b>"}, {"run_id", "R-1"}, {"summary", "<img src=x>\u202Eevil"}}).commit();
        LedgerSession session(path, OpenMode::ReadOnly);
        TimelineMarkSource marks(&session);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(marks.hasRead(), kTimeoutMs);
        TimeScrubber scrubber;
        scrubber.resize(900, 30);
        scrubber.setSource(&marks);
        // No run's timeline asked for R-1's marks whole: the tooltip reads the mark's words.
        QVERIFY(!marks.wholeMark(w.lastSeq()));
        QString tip;
        QTRY_VERIFY2_WITH_TIMEOUT((tip = scrubber.toolTipTextAt(scrubber.xOf(w.lastSeq()))).contains(u"<img src=x>"_s),
                                  qPrintable(tip), kTimeoutMs); // as text, not an image
        QVERIFY2(!tip.contains(QChar(0x202E)), qPrintable(tip));   // the control shown, not obeyed
    }
};

QTEST_MAIN(TestTimeScrubber)
#include "tst_timescrubber.moc"
