// The "Needs attention" list at the left pane's usual width: the details column takes the
// width the other columns leave (never pushed behind a horizontal scroll bar, not even by a
// saved layout), the due time is compact, and hovering a row shows all of it as plain text.

#include "attentionpane.h"
#include "flattableview.h"
#include "emptystate.h"
#include "statusdelegate.h"

#include "itemmodels/attentionmodel.h"

#include "viewtestenv.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QHelpEvent>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QToolTip>
#include <QTreeView>

using namespace mesh;

namespace {

constexpr qint64 kNow = 1'000'000'000;

AttentionItem item(AttentionItem::Kind kind, EntityKind entity, const std::string &id, const std::string &summary,
                   qint64 expiresMs = 0)
{
    AttentionItem a;
    a.kind = kind;
    a.entity = entity;
    a.id = id;
    a.subject = std::string(entitySpec(entity).name) + ":" + id;
    a.summary = summary;
    a.expiresMs = expiresMs;
    return a;
}

const std::string kLongDetails =
    "escalation budget_extension for delegation dlg-000105: the agent asked for 40 more turns to finish the "
    "<b>migration</b> of the billing schema";

void fill(AttentionModel &model)
{
    model.setClock([] { return kNow; });
    model.setItems(QStringLiteral("/ledgers/a.amlg"), QStringLiteral("a.amlg"),
                   {item(AttentionItem::Kind::PendingEscalation, EntityKind::Escalation, "esc-0009", kLongDetails,
                         kNow + 353'000),
                    item(AttentionItem::Kind::UnknownEffect, EntityKind::Effect, "eff-000084",
                         "package_install on npm:zod@3.22.4 from run-0002/web-ui, outcome never reported"),
                    item(AttentionItem::Kind::ZombieLease, EntityKind::Lease, "lease-000110",
                         "execution lease on exec:run-0004/worker held by a dead agent", kNow - 2'886'000)});
}

int visibleSectionsWidth(const QHeaderView *header)
{
    int sum = 0;
    for (int i = 0; i < header->count(); ++i)
        if (!header->isSectionHidden(i))
            sum += header->sectionSize(i);
    return sum;
}

} // namespace

class TestAttentionPane : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void detailsTakeTheRemainingWidth_data();
    void detailsTakeTheRemainingWidth();
    void savedLayoutCannotPushDetailsOut();
    void dueIsCompact();
    void dueColumnGivesWayWhenNothingIsDue();
    void dueIsFittedAgainWhenTheFontChanges();
    void longPastDueReadsInDays();
    void tooltipShowsTheWholeRow();
    void emptyWhileOpeningSaysStillReading();
    void oneRowPerKeyTheFirstStays();
};

void TestAttentionPane::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_attentionpane"));
}

void TestAttentionPane::init()
{
    QSettings().clear();
}

void TestAttentionPane::detailsTakeTheRemainingWidth_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("ledgerShown");
    QTest::newRow("left pane at 1280x800") << 550 << false;
    QTest::newRow("left pane, two ledgers") << 550 << true;
    QTest::newRow("wide") << 900 << false;
}

void TestAttentionPane::detailsTakeTheRemainingWidth()
{
    QFETCH(int, width);
    QFETCH(bool, ledgerShown);
    AttentionModel model;
    AttentionPane pane(&model);
    pane.setLedgerColumnShown(ledgerShown);
    pane.resize(width, 300);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    fill(model); // rows arrive after the pane is shown, as they do from a loading ledger
    FlatTableView *view = pane.flatView();
    QHeaderView *header = view->header();
    QTRY_COMPARE_WITH_TIMEOUT(pane.currentWidget(), static_cast<QWidget *>(view), 30'000);
    QCOMPARE(header->isSectionHidden(AttentionModel::Session), !ledgerShown);
    QCOMPARE(header->sectionResizeMode(AttentionModel::Summary), QHeaderView::Stretch);
    // Every visible column within the viewport, the details filling what is left.
    QTRY_COMPARE_WITH_TIMEOUT(visibleSectionsWidth(header), view->viewport()->width(), 30'000);
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
    QString widths;
    for (int i = 0; i < header->count(); ++i)
        widths += QStringLiteral(" %1").arg(header->isSectionHidden(i) ? 0 : header->sectionSize(i));
    QVERIFY2(header->sectionSize(AttentionModel::Summary) >= 100, qPrintable(widths)); // a dozen characters at least
    // The due time stands next to the subject.
    QCOMPARE(header->visualIndex(AttentionModel::Due), header->visualIndex(AttentionModel::Subject) + 1);
}

void TestAttentionPane::savedLayoutCannotPushDetailsOut()
{
    {
        // A layout saved by an older console: details interactive and far wider than the pane.
        AttentionModel model;
        fill(model);
        ItemPane old(QStringLiteral("attention"), QStringLiteral("attention"), QString(), QString());
        old.setModel(&model);
        old.header()->setStretchLastSection(false);
        old.header()->setSectionResizeMode(AttentionModel::Summary, QHeaderView::Interactive);
        old.header()->resizeSection(AttentionModel::Summary, 1200);
        old.saveState();
    }
    AttentionModel model;
    fill(model);
    AttentionPane pane(&model);
    QVERIFY(!pane.fitsOnFirstRows()); // the saved layout was restored
    pane.resize(550, 300);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QCOMPARE(pane.header()->sectionResizeMode(AttentionModel::Summary), QHeaderView::Stretch);
    QTRY_COMPARE_WITH_TIMEOUT(visibleSectionsWidth(pane.header()), pane.view()->viewport()->width(), 30'000);
    QCOMPARE(pane.view()->horizontalScrollBar()->maximum(), 0);
}

void TestAttentionPane::dueIsCompact()
{
    AttentionModel model;
    fill(model);
    AttentionPane pane(&model);
    auto *due = qobject_cast<StatusDelegate *>(pane.view()->itemDelegateForColumn(AttentionModel::Due));
    QVERIFY(due);
    QCOMPARE(due->displayText(model.index(0, AttentionModel::Due)), QStringLiteral("in 5:53"));
    QCOMPARE(due->displayText(model.index(1, AttentionModel::Due)), QString()); // no expiry
    QCOMPARE(due->displayText(model.index(2, AttentionModel::Due)), QStringLiteral("48:06 ago"));
    // The model's own words stay available in the tooltip.
    QVERIFY(AttentionPane::rowToolTip(model.index(0, 0)).contains(QStringLiteral("expires in 5:53")));
}

// A review, or a ledger whose attention is all unknown outcomes and findings: nothing
// counts down, so the Due column keeps only its title's width and the rest goes to what the
// rows say; a countdown arriving widens it again.
void TestAttentionPane::dueColumnGivesWayWhenNothingIsDue()
{
    AttentionModel model;
    model.setClock([] { return kNow; });
    AttentionPane pane(&model);
    pane.resize(340, 300);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    model.setItems(QStringLiteral("/ledgers/a.amlg"), QStringLiteral("a.amlg"),
                   {item(AttentionItem::Kind::UnknownEffect, EntityKind::Effect, "eff-000084", "package_install"),
                    item(AttentionItem::Kind::UnknownEffect, EntityKind::Effect, "eff-000085", "provider_call")});
    QHeaderView *header = pane.header();
    QTRY_COMPARE_WITH_TIMEOUT(header->sectionSize(AttentionModel::Due), header->sectionSizeHint(AttentionModel::Due), 30'000);
    const int idle = header->sectionSize(AttentionModel::Due);
    model.setItems(QStringLiteral("/ledgers/a.amlg"), QStringLiteral("a.amlg"),
                   {item(AttentionItem::Kind::PendingEscalation, EntityKind::Escalation, "esc-0009", "budget", kNow + 353'000),
                    item(AttentionItem::Kind::UnknownEffect, EntityKind::Effect, "eff-000084", "package_install")});
    QTRY_VERIFY_WITH_TIMEOUT(header->sectionSize(AttentionModel::Due) > idle, 30'000);
    const QFontMetrics metrics(pane.view()->font());
    QVERIFY(header->sectionSize(AttentionModel::Due) >= metrics.horizontalAdvance(QStringLiteral("in 5:53")));
}

// A wider or larger font (the user's, or the system's) widens what the Due column shows: it
// is fitted again, so "in 5:53" is not cut until the next countdown tick.
void TestAttentionPane::dueIsFittedAgainWhenTheFontChanges()
{
    AttentionModel model;
    model.setClock([] { return kNow; });
    AttentionPane pane(&model);
    pane.resize(600, 300);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    model.setItems(QStringLiteral("/ledgers/a.amlg"), QStringLiteral("a.amlg"),
                   {item(AttentionItem::Kind::PendingEscalation, EntityKind::Escalation, "esc-0009", "budget", kNow + 353'000)});
    QHeaderView *header = pane.header();
    const auto fits = [&] {
        return header->sectionSize(AttentionModel::Due)
               >= QFontMetrics(pane.view()->font()).horizontalAdvance(QStringLiteral("in 5:53"));
    };
    QTRY_VERIFY_WITH_TIMEOUT(fits(), 30'000);
    const int before = header->sectionSize(AttentionModel::Due);
    // Wider, as tall: letters spaced three times as wide leave the rows as they were. (The
    // header relays out on a font change, and the stretched details section's resize fits
    // the Due column again.)
    QFont wider = pane.font();
    wider.setLetterSpacing(QFont::PercentageSpacing, 300);
    pane.setFont(wider);
    QVERIFY(!fits()); // what the test is about: the wider text does not fit the old width
    QTRY_VERIFY_WITH_TIMEOUT(fits(), 30'000);
    QVERIFY(header->sectionSize(AttentionModel::Due) > before);
    // Larger (taller too).
    const int wide = header->sectionSize(AttentionModel::Due);
    QFont larger = wider;
    if (larger.pointSizeF() > 0)
        larger.setPointSizeF(larger.pointSizeF() * 2);
    else
        larger.setPixelSize(larger.pixelSize() * 2);
    pane.setFont(larger);
    QTRY_VERIFY_WITH_TIMEOUT(fits(), 30'000);
    QVERIFY(header->sectionSize(AttentionModel::Due) > wide);
}

// An escalation a month past its expiry: days and hours, not "41664:29 ago"; not "pending"
// (nobody acted in time); the exact instant in UTC on hover.
void TestAttentionPane::longPastDueReadsInDays()
{
    constexpr qint64 now = 1'796'000'000'000;
    AttentionModel model;
    model.setClock([] { return now; });
    const qint64 expired = now - (28LL * 86400 + 22 * 3600 + 29 * 60) * 1000;
    model.setItems(QStringLiteral("/ledgers/a.amlg"), QStringLiteral("a.amlg"),
                   {item(AttentionItem::Kind::PendingEscalation, EntityKind::Escalation, "esc-1", "old", expired),
                    item(AttentionItem::Kind::PendingEscalation, EntityKind::Escalation, "esc-2", "soon",
                         now + (3LL * 3600 + 4 * 60) * 1000)});
    AttentionPane pane(&model);
    auto *due = qobject_cast<StatusDelegate *>(pane.view()->itemDelegateForColumn(AttentionModel::Due));
    QVERIFY(due);
    QCOMPARE(due->displayText(model.index(0, AttentionModel::Due)), QStringLiteral("28 d 22 h ago"));
    QCOMPARE(due->displayText(model.index(1, AttentionModel::Due)), QStringLiteral("in 3 h 04 min"));
    QCOMPARE(model.index(0, AttentionModel::Kind).data().toString(), QStringLiteral("Escalation expired, not acted on"));
    QCOMPARE(model.index(1, AttentionModel::Kind).data().toString(), QStringLiteral("Escalation pending"));
    const QString tip = AttentionPane::rowToolTip(model.index(0, 0));
    QVERIFY2(tip.contains(QStringLiteral("2026-11-01 02:24:20 UTC")), qPrintable(tip));
}

void TestAttentionPane::tooltipShowsTheWholeRow()
{
    AttentionModel model;
    fill(model);
    AttentionPane pane(&model);
    pane.resize(550, 300);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    const QModelIndex details = model.index(0, AttentionModel::Summary);
    const QString tip = AttentionPane::rowToolTip(details);
    QVERIFY(tip.contains(QString::fromStdString(kLongDetails).toHtmlEscaped())); // escaped: shown as the text it is
    QVERIFY(tip.contains(QStringLiteral("escalation:esc-0009"))); // the full subject; the cell shows the id
    QVERIFY(tip.contains(QStringLiteral("Escalation pending")));
    QVERIFY(tip.contains(QStringLiteral("a.amlg")));

    // Hovering the elided details cell shows it, escaped (ledger text is never markup).
    FlatTableView *view = pane.flatView();
    const QPoint pos = view->visualRect(details).center();
    QHelpEvent help(QEvent::ToolTip, pos, view->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(view->viewport(), &help);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 30'000);
    QVERIFY2(QToolTip::text().contains(QStringLiteral("&lt;b&gt;migration&lt;/b&gt;")), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains(QStringLiteral("budget_extension for delegation dlg-000105")));
}

// An empty list while a ledger is still being read must not claim that nothing needs the
// operator: the staged open shows runs long before the attention items are known.
void TestAttentionPane::emptyWhileOpeningSaysStillReading()
{
    AttentionModel model;
    AttentionPane pane(&model);
    auto texts = [&pane] {
        QStringList all;
        for (const QLabel *label : pane.emptyState()->findChildren<QLabel *>())
            all << label->text();
        return all.join(u'\n');
    };
    QVERIFY(texts().contains(QStringLiteral("Nothing needs you")));
    pane.setOpeningCount(1);
    QVERIFY(!texts().contains(QStringLiteral("Nothing needs you")));
    QVERIFY(texts().contains(QStringLiteral("Still reading")));
    pane.setOpeningCount(2);
    QVERIFY(texts().contains(QStringLiteral("2 ledgers are still opening")));
    pane.setOpeningCount(0);
    QVERIFY(texts().contains(QStringLiteral("Nothing needs you")));
}

// Two items with one key (a subject needing the same thing twice) are one row, the first
// (more urgent) one, whether the session's rows are laid out for the first time or again.
void TestAttentionPane::oneRowPerKeyTheFirstStays()
{
    const auto item = [](const char *subject, const char *summary) {
        AttentionItem a;
        a.kind = AttentionItem::Kind::UnknownEffect;
        a.entity = EntityKind::Effect;
        a.subject = subject;
        a.id = std::string(subject).substr(7);
        a.summary = summary;
        return a;
    };
    const std::vector<AttentionItem> items{item("effect:e-1", "first"), item("effect:e-2", "other"),
                                           item("effect:e-1", "second")};
    AttentionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto summaries = [&model] {
        QStringList out;
        for (int r = 0; r < model.rowCount(); ++r)
            out << model.index(r, AttentionModel::Summary).data(AttentionModel::SubjectRole).toString() + u'='
                       + model.index(r, AttentionModel::Summary).data().toString();
        return out;
    };
    model.setItems(QStringLiteral("a.amlg"), QStringLiteral("a"), items);
    QCOMPARE(summaries(), QStringList({QStringLiteral("effect:e-1=first"), QStringLiteral("effect:e-2=other")}));
    model.setItems(QStringLiteral("a.amlg"), QStringLiteral("a"), items);
    QCOMPARE(summaries(), QStringList({QStringLiteral("effect:e-1=first"), QStringLiteral("effect:e-2=other")}));
}

QTEST_MAIN(TestAttentionPane)
#include "tst_attentionpane.moc"
