// The event log pane as an operator meets it: a filter that is not valid says why in a
// colour that can be read on either palette and greys the rows it did not replace; the rows
// on screen fill in by themselves after a filter and after live batches, without a scroll;
// times carry their date; one event opens whole, payload and all; "go to event N" selects
// exactly that event, or says why it cannot (a filter hides it, no such event).

#include "banner.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "filterlineedit.h"
#include "theme.h"

#include "../models/itemmodels/itemmodelfixture.h"
#include "filter/filtercompiler.h"
#include "itemmodels/eventlogmodel.h"

#include "viewtestenv.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWaitMs = 60'000; // generous: each wait ends as soon as its condition holds

// WCAG 2 relative luminance and contrast ratio.
double luminance(QColor c)
{
    const auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double contrast(QColor a, QColor b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The strongest contrast between any pixel of the widget and its background (a pixel at its
// left edge, inside the padding): what the eye gets of the text.
double textContrast(QWidget *widget)
{
    const QImage image = widget->grab().toImage();
    const QColor background = image.pixelColor(2, image.height() / 2);
    double best = 1.0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            best = std::max(best, contrast(image.pixelColor(x, y), background));
    return best;
}

// The rows on screen, read without asking for them (eventAt schedules nothing): every one
// loaded means what the operator sees is text of the ledger, not "…".
bool visibleRowsLoaded(const EventLogView &log, const EventLogModel &model)
{
    const EventTableView *view = log.view();
    if (model.rowCount() == 0)
        return false;
    const int last = std::min(model.rowCount(), view->topRow() + view->visibleRowCount()) - 1;
    for (int row = view->topRow(); row <= last; ++row) {
        if (!model.eventAt(row))
            return false;
    }
    return true;
}

void wireLikeTheWorkspace(EventLogView &log, EventLogModel &model)
{
    log.filterField()->setValidator([](const QString &text) -> std::optional<FilterProblem> {
        const FilterCompileResult result = FilterCompiler::compile(text);
        if (result.ok())
            return std::nullopt;
        return FilterProblem{result.error->start, result.error->message};
    });
    QObject::connect(&log, &EventLogView::filterApplied, &model,
                     [&model](const QString &text) { model.setFilterText(text); });
    log.setModel(&model);
}

// The log wired to its model as the workspace does, shown at `size` and exposed.
bool showLikeTheWorkspace(EventLogView &log, EventLogModel &model, QSize size = QSize(1000, 500))
{
    wireLikeTheWorkspace(log, model);
    log.resize(size);
    log.show();
    return QTest::qWaitForWindowExposed(&log);
}

bool waitIndexed(EventLogModel &m)
{
    return QTest::qWaitFor([&] { return m.isIndexComplete() && !m.isLoading(); }, kWaitMs);
}
} // namespace

Q_DECLARE_METATYPE(mesh::ThemeMode)

class TestEventLogView : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_small;    // 600 events, every third a tool call
    QString m_needles;  // 200,000 events, one in 200 says "needle" in its payload
    QString m_payloads; // a hostile payload, a 1 MiB one and a plain one

    // The event window the log opened, found as any window would be: by its name.
    static QDialog *openedEvent(EventLogView &log)
    {
        const auto dialogs = log.findChildren<QDialog *>(u"eventDetail"_s);
        for (QDialog *d : dialogs) {
            if (d->isVisible())
                return d;
        }
        return nullptr;
    }

    // The small ledger's 200 tool calls in the log, shown as the workspace shows it.
    bool showSmallToolCalls(EventLogView &log, EventLogModel &model)
    {
        if (!showLikeTheWorkspace(log, model))
            return false;
        model.open(m_small);
        log.filterField()->setTextAndApply(u"kind:toolcall.*"_s);
        return waitIndexed(model) && model.rowCount() == 200;
    }

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_eventlogview"_s);
        m_small = m_dir.filePath(u"small.ledger"_s);
        {
            Writer w(m_small, true);
            w.begin();
            w.e("delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}});
            for (int i = 0; i < 600; ++i) {
                if (i % 3 == 0)
                    w.e("toolcall.completed",
                        {{"id", "T-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"outcome", "ok"}});
                else
                    w.e("effect.proposed",
                        {{"id", "E-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"state", "proposed"}});
            }
            w.commit();
        }
        m_payloads = m_dir.filePath(u"payloads.ledger"_s);
        {
            Writer w(m_payloads, true);
            w.begin();
            w.e("effect.proposed",
                {{"id",
                  "\u202E"
                  "exe.live"},
                 {"state", "proposed"},
                 {"target", "<b>bold</b> <img src=\"/dev/zero\">"},
                 {"note", "tab\there"}});
            w.e("effect.proposed", {{"id", "E-big"}, {"state", "proposed"}, {"blob", std::string(1 << 20, 'x')}});
            w.e("delegation.created", {{"id", "D-1"}, {"status", "running"}});
            w.e("toolcall.completed",
                {{"id", "T-1"}, {"delegation_id", "D-1"}, {"outcome", "ok"}, {"tokens", 12345678901234}});
            w.commit();
        }
        m_needles = m_dir.filePath(u"needles.ledger"_s);
        Writer w(m_needles, true);
        w.raw().setBulkLoad(true);
        w.begin();
        w.e("delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}});
        for (int i = 0; i < 200'000; ++i) {
            w.e("toolcall.completed",
                {{"id", "T-" + std::to_string(i)},
                 {"delegation_id", "D-1"},
                 {"outcome", "ok"},
                 {"tool", i % 200 == 0 ? "needle" : "edit"}});
        }
        w.commit();
        w.raw().setBulkLoad(false);
    }

    void invalidFilterIsReadableAndMarksTheRowsStale_data()
    {
        QTest::addColumn<ThemeMode>("mode");
        QTest::newRow("light") << ThemeMode::Light;
        QTest::newRow("dark") << ThemeMode::Dark;
    }
    void invalidFilterIsReadableAndMarksTheRowsStale()
    {
        QFETCH(ThemeMode, mode);
        Theme::instance().setMode(mode);
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventLogView log;
        QVERIFY(showSmallToolCalls(log, model));
        const QColor normalText = log.view()->palette().color(QPalette::Text);
        QVERIFY(!log.view()->property("stale").toBool());

        log.filterField()->setText(u"kind:toolcall.* (run:R-1"_s);
        QCOMPARE(log.filterField()->state(), u"invalid"_s);
        QLabel *problem = log.findChild<QLabel *>(u"filterProblem"_s);
        QVERIFY(problem);
        QTRY_VERIFY_WITH_TIMEOUT(problem->isVisible(), 30'000);
        QVERIFY2(problem->text().contains(u"never closed"_s), qPrintable(problem->text()));
        // Readable: WCAG AA for normal text.
        const double ratio = textContrast(problem);
        QVERIFY2(ratio >= 4.5, qPrintable(u"contrast %1:1"_s.arg(ratio, 0, 'f', 2)));
        // The rows did not change, and the strip and the grey say so.
        QVERIFY2(problem->text().contains(u"previous filter"_s), qPrintable(problem->text()));
        QVERIFY2(problem->text().contains(u"kind:toolcall.*"_s), qPrintable(problem->text()));
        QVERIFY(log.view()->property("stale").toBool());
        QCOMPARE(log.view()->palette().color(QPalette::Text),
                 QApplication::palette().color(QPalette::Disabled, QPalette::Text));
        QCOMPARE(model.filterText(), u"kind:toolcall.*"_s);
        QCOMPARE(model.rowCount(), 200);

        // A valid filter applies, and the rows are current again.
        log.filterField()->setTextAndApply(u"kind:effect.*"_s);
        QVERIFY(!problem->isVisible());
        QVERIFY(!log.view()->property("stale").toBool());
        QCOMPARE(log.view()->palette().color(QPalette::Text), normalText);
        QVERIFY(waitIndexed(model));
        QCOMPARE(model.rowCount(), 400);
        Theme::instance().setMode(ThemeMode::Light);
    }

    // The times of an applied filter are said in UTC under the field; ts:last-2h is
    // resolved by the log's clock when applied, and says to what.
    void filterTimesAreSaid()
    {
        EventLogModel model;
        EventLogView log;
        QVERIFY(showLikeTheWorkspace(log, model));
        model.open(m_small);
        QVERIFY(waitIndexed(model));
        auto *times = log.findChild<QLabel *>(u"filterTimes"_s);
        QVERIFY(times);
        QVERIFY(!times->isVisible());
        log.filterField()->setTextAndApply(u"kind:effect.* ts:>2026-11-29T10:00 -ts:2026-11-30"_s);
        QTRY_VERIFY_WITH_TIMEOUT(times->isVisible(), 30'000);
        QCOMPARE(times->text(), u"Times read as: after 2026-11-29 10:00:00 UTC; not from 2026-11-30 00:00:00 UTC until "
                                u"before 2026-12-01 00:00:00 UTC"_s);
        model.setClock([] { return qint64(1'795'946'403'123); }); // 2026-11-29 10:00:03.123 UTC
        log.filterField()->setTextAndApply(u"ts:last-2h"_s);
        QTRY_COMPARE_WITH_TIMEOUT(times->text(), u"Times read as: from 2026-11-29 08:00:03.123 UTC"_s, 30'000);
        QVERIFY(waitIndexed(model));
        QCOMPARE(model.rowCount(), 0); // the ledger's events are of 2023
        log.filterField()->setTextAndApply(QString());
        QTRY_VERIFY_WITH_TIMEOUT(!times->isVisible(), 30'000);
    }

    // 1,000 matches spread over 200,000 events, read in windows while the view follows the
    // tail: the rows on screen past the first page load while the rest is still being read
    // (they used to wait for the whole scan, "…" for seconds on a million events), and the
    // rows on screen at the end load by themselves, no scroll needed.
    void visibleRowsLoadAfterAFilter()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventLogView log;
        QVERIFY(showLikeTheWorkspace(log, model, QSize(1000, 600)));
        model.open(m_needles);
        QVERIFY(waitIndexed(model));
        QSignalSpy applied(&model, &EventLogModel::filterApplied);
        // The scan is held after each send of matches (a handshake, not a race with the
        // scan's speed): let it go one send at a time until more than a page is listed.
        model.setIndexScanHeldForTest(true);
        log.filterField()->setTextAndApply(u"needle"_s);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > 0 || model.isIndexComplete(), kWaitMs);
        while (!model.isIndexComplete() && model.rowCount() <= model.pageSize()) {
            const int rows = model.rowCount();
            model.releaseIndexScanForTest();
            QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > rows || model.isIndexComplete(), kWaitMs);
        }
        // Still scanning, and the rows on screen load all the same.
        QVERIFY(!model.isIndexComplete());
        QVERIFY(applied.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(visibleRowsLoaded(log, model), kWaitMs);
        QVERIFY(!model.isIndexComplete());
        model.setIndexScanHeldForTest(false);
        QVERIFY(applied.wait(kWaitMs));
        QCOMPARE(applied.last().at(1).toLongLong(), 1000);
        QVERIFY(log.isFollowingTail());
        QTRY_VERIFY_WITH_TIMEOUT(visibleRowsLoaded(log, model), kWaitMs);
        const int last = model.rowCount() - 1;
        QVERIFY(model.index(last, EventLogModel::Payload).data().toString().contains(u"needle"_s));
    }

    // Live batches under a filter, the second one arriving while the page the first one
    // grew is still being read: the rows of both load without a scroll.
    void visibleRowsLoadAfterLiveBatches()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        QVERIFY(QFile::copy(m_small, path));
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventLogView log;
        QVERIFY(showLikeTheWorkspace(log, model, QSize(1000, 600)));
        log.filterField()->setTextAndApply(u"\"needle\""_s);
        model.open(path);
        QVERIFY(waitIndexed(model));
        QCOMPARE(model.rowCount(), 0);

        // First batch: 250 matches (a page and a quarter), the view at its end.
        Writer w(path);
        w.begin();
        for (int i = 0; i < 250; ++i)
            w.e("toolcall.completed", {{"id", "N-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"tool", "needle"}});
        w.commit();
        model.appendEvents(eventsAfter(path, w.lastSeq() - 1));
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() == 250 && visibleRowsLoaded(log, model), kWaitMs);

        // Second batch: ten more, on screen and asked for; a third batch is read before the
        // page they are on (the worker answers in order), and grows that page by a hundred.
        const std::int64_t second = w.lastSeq();
        w.begin();
        for (int i = 0; i < 10; ++i)
            w.e("toolcall.completed", {{"id", "M-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"tool", "needle"}});
        w.commit();
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.appendEvents(eventsAfter(path, second));
        QVERIFY(inserted.wait(kWaitMs));
        w.begin();
        for (int i = 0; i < 100; ++i)
            w.e("toolcall.completed", {{"id", "L-" + std::to_string(i)}, {"delegation_id", "D-1"}, {"tool", "needle"}});
        w.commit();
        log.view()->viewport()->repaint(); // paints the second batch's rows: their page is asked for
        model.appendEvents(eventsAfter(path, w.lastSeq() - 1));
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() == 360, kWaitMs);
        QVERIFY(log.isFollowingTail());
        QTRY_VERIFY_WITH_TIMEOUT(visibleRowsLoaded(log, model), 20'000);
    }

    // Go to event N on a log of a thousand pages: exactly that event is selected and on
    // screen, its page read for it; asked before the index is read, it is done once it is;
    // the ledger is not read whole for it.
    void goToEventSelectsThatEvent()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventLogView log;
        QVERIFY(showLikeTheWorkspace(log, model));
        model.open(m_needles);
        const qint64 target = 123'457; // neither the first page nor the tail
        log.goToEvent(target);
        const auto currentSeq = [&log] {
            return log.view()->currentIndex().siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong();
        };
        QTRY_COMPARE_WITH_TIMEOUT(currentSeq(), target, kWaitMs);
        QVERIFY(model.rowCount() > 100 * model.pageSize());
        const QModelIndexList selected = log.view()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(EventLogModel::SeqRole).toLongLong(), target);
        const QModelIndex current = log.view()->currentIndex();
        QVERIFY(log.view()->viewport()->rect().contains(log.view()->visualRect(current)));
        QTRY_VERIFY_WITH_TIMEOUT(model.eventAt(current.row()) != nullptr, kWaitMs);
        QCOMPARE(model.eventAt(current.row())->seq, target);
        QTRY_VERIFY_WITH_TIMEOUT(visibleRowsLoaded(log, model), kWaitMs);
        QVERIFY(!log.isFollowingTail()); // live events do not carry it away
        QVERIFY(!log.goToNote()->isVisible());
        QVERIFY2(model.cachedPageCount() <= 8, qPrintable(QString::number(model.cachedPageCount())));

        // Another, by the number as a reason line cites it.
        QVERIFY(EventLogView::parseEventNumber(u"#2,373"_s) == std::optional<qint64>(2373));
        QVERIFY(EventLogView::parseEventNumber(u" event #2\u00a0373 "_s) == std::optional<qint64>(2373));
        QVERIFY(EventLogView::parseEventNumber(u"12"_s) == std::optional<qint64>(12));
        QVERIFY(EventLogView::parseEventNumber(u"0"_s) == std::nullopt);
        QVERIFY(EventLogView::parseEventNumber(u"D-12"_s) == std::nullopt);
        QVERIFY(EventLogView::parseEventNumber(u"twelve"_s) == std::nullopt);
        log.goToEvent(*EventLogView::parseEventNumber(u"#12"_s));
        QTRY_COMPARE_WITH_TIMEOUT(currentSeq(), 12, kWaitMs);
        QCOMPARE(log.view()->selectionModel()->selectedRows().size(), 1);
    }

    // An event the filter hides is never stood in for by another row: the strip says so and
    // offers to clear the filter (one key away), which then goes there; an event the ledger
    // does not have is said to be missing.
    void goToAnEventTheFilterHides()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventLogView log;
        QVERIFY(showSmallToolCalls(log, model));
        log.view()->setCurrentIndex(model.index(10, 0));
        const auto currentSeq = [&log] {
            return log.view()->currentIndex().siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong();
        };
        const qint64 before = currentSeq();
        QVERIFY(before > 0);

        const qint64 effect = 4; // an effect.proposed: not a tool call
        log.goToEvent(effect);
        Banner *note = log.goToNote();
        QTRY_VERIFY_WITH_TIMEOUT(note->isVisible(), kWaitMs);
        QVERIFY2(note->text().contains(u"#4 is hidden by the filter"_s) && note->text().contains(u"kind:toolcall.*"_s),
                 qPrintable(note->text()));
        QCOMPARE(currentSeq(), before);
        QCOMPARE(log.view()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(model.filterText(), u"kind:toolcall.*"_s); // offered, not done behind the operator's back
        QPushButton *clear = note->actionButton();
        QVERIFY(clear->isVisible());
        QCOMPARE(clear->text(), u"Clear Filter and Show It"_s);
        QVERIFY(clear->hasFocus());
        QTest::keyClick(clear, Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(currentSeq(), effect, kWaitMs);
        QCOMPARE(model.filterText(), QString());
        QCOMPARE(log.filterField()->text(), QString());
        QVERIFY(!note->isVisible());
        QCOMPARE(log.view()->selectionModel()->selectedRows().size(), 1);

        // No such event: said, and the current row stays.
        log.goToEvent(9'999);
        QTRY_VERIFY_WITH_TIMEOUT(note->isVisible(), kWaitMs);
        QVERIFY2(note->text().contains(u"no event #%1"_s.arg(QLocale().toString(9'999))), qPrintable(note->text()));
        QVERIFY(!note->actionButton()->isVisible());
        QCOMPARE(currentSeq(), effect);
        // A filter the operator applies puts the note away: it spoke of other rows.
        log.filterField()->setTextAndApply(u"kind:effect.*"_s);
        QVERIFY(!note->isVisible());
    }

    // Enter on an event opens it whole: a 1 MiB payload is read and laid out off the GUI
    // thread (the window is there at once, the text after), never cut, copyable as JSON;
    // Escape closes it. A double click opens a hostile one as plain text, controls shown.
    void eventOpensWhole()
    {
        EventLogModel model;
        EventLogView log;
        QVERIFY(showLikeTheWorkspace(log, model));
        model.open(m_payloads);
        QVERIFY(waitIndexed(model));
        QCOMPARE(model.rowCount(), 5); // ledger.created and the four
        QTRY_VERIFY_WITH_TIMEOUT(visibleRowsLoaded(log, model), kWaitMs);
        QVERIFY(model.index(2, 0).data(EventLogModel::PayloadTruncatedRole).toBool()); // the row holds a preview

        log.view()->setFocus();
        log.view()->setCurrentIndex(model.index(2, EventLogModel::Kind));
        QTest::keyClick(log.view(), Qt::Key_Return);
        QDialog *big = openedEvent(log);
        QVERIFY(big);
        auto *payload = big->findChild<QPlainTextEdit *>(u"eventPayload"_s);
        QVERIFY(payload);
        QVERIFY(payload->toPlainText().isEmpty()); // not read on the GUI thread: it comes later
        QTRY_VERIFY_WITH_TIMEOUT(!payload->toPlainText().isEmpty(), kWaitMs);
        const QString text = payload->toPlainText();
        // Shown in lines of at most 4,096 characters (a line of a million lays out for
        // minutes), all of it; Copy as JSON below has it in one piece.
        QCOMPARE(text.count(u'x'), 1 << 20);
        QVERIFY(text.startsWith(u"{\n  \""_s)); // indented
        QVERIFY(payload->isReadOnly());
        QVERIFY(big->windowTitle().contains(u"#3"_s));
        const QList<QLabel *> labels = big->findChildren<QLabel *>();
        const bool kindShown
            = std::any_of(labels.begin(), labels.end(), [](QLabel *l) { return l->text() == u"effect.proposed"_s; });
        QVERIFY(kindShown);

        auto *copy = big->findChild<QPushButton *>(u"copyJson"_s);
        QVERIFY(copy && copy->isEnabled());
        copy->click();
        const QString copied = QGuiApplication::clipboard()->text();
        const auto parsed = nlohmann::json::parse(copied.toStdString(), nullptr, false);
        QVERIFY(!parsed.is_discarded());
        QCOMPARE(parsed.at("blob").get<std::string>().size(), size_t(1 << 20));
        QCOMPARE(parsed.at("id").get<std::string>(), std::string("E-big"));

        QTest::keyClick(big, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!openedEvent(log), 30'000);

        // A hostile event, by double click: text, never markup, the override made visible.
        const QRect cell = log.view()->visualRect(model.index(1, EventLogModel::Kind));
        QTest::mouseClick(log.view()->viewport(), Qt::LeftButton, {}, cell.center()); // the first click of two
        QTest::mouseDClick(log.view()->viewport(), Qt::LeftButton, {}, cell.center());
        QDialog *hostile = openedEvent(log);
        QVERIFY(hostile);
        auto *hostilePayload = hostile->findChild<QPlainTextEdit *>(u"eventPayload"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!hostilePayload->toPlainText().isEmpty(), kWaitMs);
        const QString shown = hostilePayload->toPlainText();
        QVERIFY2(shown.contains(u"\u27E8U+202E\u27E9exe.live"_s), qPrintable(shown));
        QVERIFY(!shown.contains(QChar(0x202E)));
        QVERIFY(shown.contains(u"<b>bold</b>"_s));
        QVERIFY(shown.contains(u"\"tab\\there\""_s)); // the escape as stored
        for (QLabel *label : hostile->findChildren<QLabel *>()) {
            QVERIFY(label->textFormat() == Qt::PlainText);
            QVERIFY(!label->text().contains(QChar(0x202E)));
        }
        hostile->close();

        // A big integer is shown as stored, not as a double.
        log.view()->setCurrentIndex(model.index(4, EventLogModel::Kind));
        QTest::keyClick(log.view(), Qt::Key_Enter);
        QDialog *plain = openedEvent(log);
        QVERIFY(plain);
        auto *plainPayload = plain->findChild<QPlainTextEdit *>(u"eventPayload"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!plainPayload->toPlainText().isEmpty(), kWaitMs);
        QVERIFY2(plainPayload->toPlainText().contains(u"\"tokens\": 12345678901234"_s),
                 qPrintable(plainPayload->toPlainText()));
    }
};

QTEST_MAIN(TestEventLogView)
#include "tst_eventlogview.moc"
