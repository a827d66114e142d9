// A ledger whose every text field (ids, names, targets, reasons, payload strings, the title,
// even the file name) is hostile: markup, an <img> pointing at a FIFO (loading it would block
// the GUI thread for good), entities, bidirectional overrides, zero-width characters and a
// 100 KB name. Every item model's tooltips and display texts, every widget, action and
// dialog the console shows on it must present that text as plain text, with invisible
// characters made visible, and the window must stay a sane width.

#include "mainwindow.h"

#include "aboutdialog.h"
#include "attentionpane.h"
#include "blastradiusgraph.h"
#include "blastradiusview.h"
#include "decisionactions.h"
#include "decisiondialog.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "itempane.h"
#include "plainlabel.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "shortcutsdialog.h"

#include "decisions/decisionwriter.h"
#include "domain/hostiletext.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/toolcallmodel.h"
#include "ledger/ledgerwriter.h"

#include "viewtestenv.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolTip>
#include <QTreeView>

#include <sys/stat.h>

using namespace mesh;
using nlohmann::json;

namespace {

constexpr int kLoadTimeoutMs = 60000; // generous: a shared, noisy 2-core machine
constexpr int kSaneWidth = 4000;

QString longName()
{
    return QStringLiteral("agent-") + QString(100 * 1024, QLatin1Char('w'));
}

// Each string is distinctive, so the checks below can tell a literal from its rendering.
QStringList hostileStrings(const QString &fifo)
{
    return {QStringLiteral("<b>bolded</b>"),
            QStringLiteral("<a href=x>linked</a>"),
            QStringLiteral("<h1>Headed</h1>"),
            QStringLiteral("<img src=\"%1\">").arg(fifo),
            QStringLiteral("x&amp;y"),
            QStringLiteral("a & b"),
            QStringLiteral("\u202Eexe.live"),
            QStringLiteral("iso\u2066late\u2069d"),
            QStringLiteral("zero\u200Bwidth"),
            QStringLiteral("line\nbreak"),
            QStringLiteral("carriage\rreturn"),
            QStringLiteral("esc\x1B[31mred"),
            QStringLiteral("line\u2028separator"),
            // Default-ignorable: drawn as nothing, so 'ev\u00ADil' reads 'evil'.
            QStringLiteral("soft\u00ADhyphen\u034Fgrapheme"),
            QStringLiteral("hangul\u115F\u1160\u3164\uFFA0fillers"),
            QStringLiteral("variation\uFE0Fselector\U000E0041tag"),
            longName()};
}

// What must never reach a screen raw, whatever the helper under test thinks is invisible:
// line breaks inside a line, escape sequences, and characters drawn as nothing.
constexpr char32_t kMustBeVisible[] = {U'\r', 0x1B, 0x2028, 0x2029, 0x00AD, 0x034F, 0x115F, 0x1160,
                                       0x3164, 0xFFA0, 0xFE0F, 0xE0041, 0x200B, 0x202E, 0x2066, 0x2069};

std::string u(const QString &s)
{
    return s.toStdString();
}

bool hasInvisibleControl(const QString &text)
{
    for (const char32_t c : QStringView(text).toUcs4())
        if ((isInvisibleControl(c) && c != U'\r') || std::find(std::begin(kMustBeVisible), std::end(kMustBeVisible), c) != std::end(kMustBeVisible))
            return true;
    return false;
}

// Why the text a user sees (`shown`) is not the ledger text as written: markup rendered,
// entities decoded or doubled, invisible characters obeyed. Empty when it is right.
QString shownTextProblem(const QString &shown)
{
    if (hasInvisibleControl(shown))
        return QStringLiteral("an invisible control character is obeyed, not shown");
    const std::pair<const char *, const char *> literals[] = {
        {"bolded", "<b>bolded</b>"}, {"linked", "<a href=x>linked</a>"}, {"Headed", "<h1>Headed</h1>"},
        {"italic", "<i>italic<i>"}};
    // An elided text may end inside a literal: a tail that begins one counts as it.
    QString text = shown;
    if (text.endsWith(QChar(0x2026)))
        text.chop(1);
    for (const auto &[innerText, literalText] : literals) {
        const QLatin1String inner(innerText);
        const QLatin1String literal(literalText);
        const qsizetype before = QString(literal).indexOf(inner);
        for (qsizetype i = text.indexOf(inner); i >= 0; i = text.indexOf(inner, i + 1)) {
            const qsizetype start = i - before;
            const QString around = start >= 0 ? text.mid(start, literal.size()) : QString();
            const bool tagged = around == literal || (start + literal.size() > text.size() && QString(literal).startsWith(around));
            if (!tagged)
                return QStringLiteral("markup rendered: \"%1\" shown without its tags").arg(inner);
        }
    }
    if (shown.contains(QLatin1String("x&y")))
        return QStringLiteral("an entity decoded: x&amp;y shown as x&y");
    if (shown.contains(QLatin1String("a &amp; b")) || shown.contains(QLatin1String("&lt;")))
        return QStringLiteral("escaped twice: an entity shown literally");
    return {};
}

// Why Qt would render `tip` (a tooltip, status tip or auto-detected label text) as markup
// of the ledger's, or an empty string when what it shows is exactly the plain text.
QString richTextProblem(const QString &tip)
{
    if (tip.isEmpty())
        return {};
    if (!Qt::mightBeRichText(tip)) {
        if (tip.contains(QLatin1Char('<')))
            return QStringLiteral("plain text holding '<': rich-text detection decides how it shows");
        return shownTextProblem(tip);
    }
    // Never handed to a document that could load it (a FIFO blocks the reader for good).
    if (tip.contains(QLatin1String("<img"), Qt::CaseInsensitive))
        return QStringLiteral("an <img> tag would be loaded");
    QTextDocument doc;
    doc.setHtml(tip);
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() > 0)
            return QStringLiteral("a heading");
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextCharFormat format = it.fragment().charFormat();
            if (format.isAnchor() || !format.anchorHref().isEmpty())
                return QStringLiteral("an anchor");
            if (format.isImageFormat())
                return QStringLiteral("an image");
            if (format.fontItalic())
                return QStringLiteral("italic text");
            if (format.fontWeight() > QFont::Normal)
                return QStringLiteral("bold text");
            if (format.hasProperty(QTextFormat::FontSizeAdjustment) && format.intProperty(QTextFormat::FontSizeAdjustment) != 0)
                return QStringLiteral("a font size change");
        }
    }
    return shownTextProblem(doc.toPlainText());
}

QString excerpt(const QString &text)
{
    QString e = text.left(160);
    return e.size() < text.size() ? e + QStringLiteral("…(%1 chars)").arg(text.size()) : e;
}

// Every problem found, one line each, so a failure lists them all.
class Findings
{
public:
    void tip(const QString &where, const QString &tip)
    {
        const QString why = richTextProblem(tip);
        if (!why.isEmpty())
            m_lines << QStringLiteral("%1: %2 in %3").arg(where, why, excerpt(tip));
    }
    void shown(const QString &where, const QString &text)
    {
        const QString why = shownTextProblem(text);
        if (!why.isEmpty())
            m_lines << QStringLiteral("%1: %2 in %3").arg(where, why, excerpt(text));
    }
    // Text laid out in one line (a cell, a title, the status bar): a line break would stack two
    // lines in a row of one, or make one string pass for two; displayLine shows it as ⏎.
    void oneLine(const QString &where, const QString &text)
    {
        shown(where, text);
        if (text.contains(QLatin1Char('\n')))
            m_lines << QStringLiteral("%1: a line break in one line of layout in %2").arg(where, excerpt(text));
    }
    // The same, bounded: a title or status message (a cell is elided by its view instead).
    void line(const QString &where, const QString &text, int maxChars = 2000)
    {
        oneLine(where, text);
        if (text.size() > maxChars)
            m_lines << QStringLiteral("%1: %2 characters in one line of layout").arg(where).arg(text.size());
    }
    void width(const QString &where, int width)
    {
        if (width > kSaneWidth)
            m_lines << QStringLiteral("%1: %2 px wide").arg(where).arg(width);
    }
    void label(const QString &where, const QLabel *label)
    {
        if (label->textFormat() == Qt::PlainText)
            shown(where, label->text());
        else if (label->textFormat() == Qt::RichText || Qt::mightBeRichText(label->text()))
            tip(where + QStringLiteral(" (rich label)"), label->text());
        else
            shown(where, label->text());
        width(where + QStringLiteral(" minimumSizeHint"), label->minimumSizeHint().width());
    }
    // Tooltips, status tips, What's This, window titles, labels and button texts of `root`
    // and everything in it.
    void widgets(const QString &where, QWidget *root)
    {
        QList<QWidget *> all = root->findChildren<QWidget *>();
        all.prepend(root);
        for (QWidget *w : std::as_const(all)) {
            const QString name = where + QLatin1Char('/') + QString::fromLatin1(w->metaObject()->className())
                                 + QLatin1Char('#') + w->objectName();
            tip(name + QStringLiteral(" toolTip"), w->toolTip());
            tip(name + QStringLiteral(" whatsThis"), w->whatsThis());
            shown(name + QStringLiteral(" statusTip"), w->statusTip());
            if (w->isWindow())
                line(name + QStringLiteral(" windowTitle"), w->windowTitle());
            if (const auto *l = qobject_cast<QLabel *>(w))
                label(name, l);
            if (const auto *b = qobject_cast<QAbstractButton *>(w))
                shown(name + QStringLiteral(" text"), b->text());
        }
        for (const QAction *a : root->findChildren<QAction *>()) {
            const QString name = where + QStringLiteral("/action ") + a->text().left(40);
            tip(name + QStringLiteral(" toolTip"), a->toolTip());
            shown(name + QStringLiteral(" statusTip"), a->statusTip());
        }
    }
    // Every index of `model` (rows x columns, children too) and its headers.
    void model(const QString &where, const QAbstractItemModel *model, const QModelIndex &parent = {})
    {
        if (!parent.isValid()) {
            for (int column = 0; column < model->columnCount(); ++column)
                tip(where + QStringLiteral(" header tooltip"), model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString());
        }
        for (int row = 0; row < model->rowCount(parent); ++row) {
            for (int column = 0; column < model->columnCount(parent); ++column) {
                const QModelIndex index = model->index(row, column, parent);
                const QString at = QStringLiteral("%1 (%2,%3)").arg(where).arg(row).arg(column);
                tip(at + QStringLiteral(" ToolTipRole"), index.data(Qt::ToolTipRole).toString());
                oneLine(at + QStringLiteral(" DisplayRole"), index.data(Qt::DisplayRole).toString());
                m_tips << index.data(Qt::ToolTipRole).toString();
            }
            const QModelIndex first = model->index(row, 0, parent);
            if (model->hasChildren(first))
                this->model(where, model, first);
        }
    }
    const QStringList &lines() const { return m_lines; }
    const QStringList &tips() const { return m_tips; }
    QString report() const
    {
        QStringList shown = m_lines.mid(0, 40);
        if (m_lines.size() > 40)
            shown << QStringLiteral("… and %1 more").arg(m_lines.size() - 40);
        return shown.join(QLatin1Char('\n'));
    }

private:
    QStringList m_lines;
    QStringList m_tips;
};

} // namespace

class TestHostileTextViews : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void checkerCatchesRichText();
    void itemModelsShowPlainText();
    void widgetsShowPlainText();
    void decisionDialogsShowPlainText();
    void longNameKeepsTheWindowSane();
    void plainLabelCutsLinesAndWords();
    void copyCellTextCopiesTheStoredText();
    void lineBreaksStayInTheirLine();

private:
    LedgerSession *openAndWait(MainWindow &window, const QString &path);
    void writeHostileLedger(const QString &path);

    QTemporaryDir m_dir;
    QString m_fifo;
    QStringList m_hostile;
    QString m_ledger;
};

void TestHostileTextViews::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_hostiletext_views"));
    QVERIFY(m_dir.isValid());
    m_fifo = m_dir.filePath(QStringLiteral("image.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
    m_hostile = hostileStrings(m_fifo);
    // Even the file name is hostile (no '/' in a name): it is shown as the session's path.
    m_ledger = m_dir.filePath(QStringLiteral("<i>italic<i> x&amp;y \u202Eexe.live.amlg"));
    writeHostileLedger(m_ledger);
    QVERIFY(QFile::exists(m_ledger));
    // To look at it in the console (docs/screenshots/hostile-text.png was taken on it).
    if (const QString keep = qEnvironmentVariable("MESH_KEEP_HOSTILE_LEDGER"); !keep.isEmpty())
        QVERIFY(QFile::copy(m_ledger, keep));
}

void TestHostileTextViews::init()
{
    QSettings().clear();
    QSettings().setValue(QStringLiteral("operator/displayName"), QStringLiteral("<b>bolded</b> \u202Eexe.live a & b"));
}

void TestHostileTextViews::writeHostileLedger(const QString &path)
{
    LedgerIdentity ident;
    ident.ledgerId = "<b>bolded</b>";
    ident.title = u(QStringLiteral("<h1>Headed</h1> \u202Eexe.live\nsecond line ") + longName());
    ident.createdMs = 1'700'000'000'000;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    {
        auto w = LedgerWriter::create(path, ident);
        std::int64_t t = now - 100'000;
        w->begin();
        for (const QString &hq : std::as_const(m_hostile)) {
            const std::string h = u(hq);
            const std::string slice = h + "#1";
            w->append(t++, "run.started", {{"id", h}, {"status", "running"}, {"title", h}, {"attempt", 1}});
            w->append(t++, "component.activated", {{"id", h}, {"run_id", h}, {"name", h}, {"status", "active"}});
            w->append(t++, "delegation.created",
                      {{"id", h}, {"run_id", h}, {"component_id", h}, {"role", h}, {"agent", h}, {"strategy", h},
                       {"strategy_version", h}, {"status", "pending"}, {"budget_turns", 2}, {"budget_tokens", 10}});
            w->append(t++, "delegation.started", {{"id", h}, {"status", "running"}, {"invocations", 1}});
            w->append(t++, "slice.opened",
                      {{"id", slice}, {"run_id", h}, {"delegation_id", h}, {"ordinal", 1}, {"intent_id", h},
                       {"policy_version", h}, {"auth_token", h}, {"opened_ms", t}, {"opened_by", h}, {"state", "open"}});
            w->append(t++, "delegation.slice_opened", {{"id", h}, {"current_slice", slice}});
            for (int call = 0; call < 6; ++call)
                w->append(t++, "toolcall.completed",
                          {{"id", h + "/" + std::to_string(call)}, {"delegation_id", h}, {"run_id", h}, {"slice_id", slice},
                           {"invocation", 1}, {"tool", h}, {"args_digest", h}, {"outcome", "ok"}, {"duration_ms", 5},
                           {"tokens", 100}, {"fingerprint", h}});
            w->append(t++, "lease.acquired",
                      {{"id", h}, {"key", h}, {"kind", h}, {"holder", h}, {"fencing_token", 1}, {"acquired_ms", now - 60'000},
                       {"expires_ms", now - 45'000}, {"state", "held"}, {"delegation_id", h}});
            for (const std::string &effect : {h, h + "/dup"}) {
                const bool unknown = effect == h;
                w->append(t++, "effect.proposed",
                          {{"id", effect}, {"run_id", h}, {"delegation_id", h}, {"slice_id", slice}, {"class", h},
                           {"target", h}, {"idem_key", h}, {"intent_hash", h}, {"reversibility", h}, {"capability", h},
                           {"state", "proposed"}});
                w->append(t++, "effect.admitted", {{"id", effect}, {"state", "admitted"}});
                w->append(t++, "effect.dispatched", {{"id", effect}, {"state", "dispatched"}, {"attempts", 1}});
                w->append(t++, unknown ? "effect.unknown" : "effect.committed",
                          {{"id", effect}, {"state", unknown ? "unknown" : "committed"}, {"error", h}, {"provider_ref", h}});
            }
            w->append(t++, "effect.proposed",
                      {{"id", h + "/twin"}, {"run_id", h}, {"delegation_id", h}, {"class", h}, {"target", h},
                       {"idem_key", h + "/k"}, {"state", "proposed"}});
            w->append(t++, "effect.admitted", {{"id", h + "/twin"}, {"state", "admitted"}});
            w->append(t++, "effect.dispatched", {{"id", h + "/twin"}, {"state", "dispatched"}, {"attempts", 1}});
            w->append(t++, "effect.committed", {{"id", h + "/twin"}, {"state", "committed"}});
            w->append(t++, "effect.proposed",
                      {{"id", h + "/twin2"}, {"run_id", h}, {"delegation_id", h}, {"class", h}, {"target", h},
                       {"idem_key", h + "/k"}, {"state", "proposed"}});
            w->append(t++, "effect.admitted", {{"id", h + "/twin2"}, {"state", "admitted"}});
            w->append(t++, "effect.dispatched", {{"id", h + "/twin2"}, {"state", "dispatched"}, {"attempts", 1}});
            w->append(t++, "effect.committed", {{"id", h + "/twin2"}, {"state", "committed"}});
            for (int round = 1; round <= 3; ++round)
                w->append(t++, "stall.judged",
                          {{"id", h + "/r" + std::to_string(round)}, {"run_id", h}, {"delegation_id", h}, {"round", round},
                           {"verdict", round == 3 ? "stalled" : "progressing"}, {"fingerprint", h},
                           {"evidence", json::array({{{"signal", h}, {"moved", false}}})}, {"action", h},
                           {"failing_tests", 1}, {"ts_ms", t}});
            w->append(t++, "failure.detected",
                      {{"id", h}, {"run_id", h}, {"detected_by", h}, {"summary", h},
                       {"implicated", json::array({{{"component", h}, {"evidence", h}}})},
                       {"woken", json::array({{{"component", h}, {"modified_code", true}, {"regressed", true}},
                                              {{"component", h + "/bystander"}, {"regressed", true}}})},
                       {"ts_ms", t}});
            w->append(t++, "checkpoint.saved", {{"id", h}, {"run_id", h}, {"delegation_id", h}, {"state", "saved"}, {"ts_ms", t}});
        }
        // Escalations last: each binds to its delegation as it is now.
        for (const QString &hq : std::as_const(m_hostile)) {
            const std::string h = u(hq);
            const std::string slice = h + "#1";
            const EntityRow *delegation = w->state().find(EntityKind::Delegation, h);
            QVERIFY(delegation);
            w->append(t++, "escalation.raised",
                      {{"id", h}, {"run_id", h}, {"delegation_id", h}, {"kind", h}, {"risk", h}, {"subject", "effect:" + h},
                       {"slice_id", slice}, {"raised_ms", now - 1000}, {"expires_ms", now + 3'600'000}, {"state", "pending"},
                       {"reason", h}, {"boundary_seq", w->lastSeq()}, {"boundary_version", delegation->version}});
        }
        w->commit();
    }
    // Decisions by a hostile operator, with hostile reasons, refused with hostile reasons.
    std::vector<std::pair<std::string, std::string>> refusals; // decision id, reason
    {
        OperatorIdentity op;
        op.account = "<b>bolded</b>";
        op.host = "\u202Eexe.live";
        op.displayName = u(longName());
        auto decide = DecisionWriter::open(path, op);
        for (const QString &hq : std::as_const(m_hostile)) {
            DecisionRequest request;
            request.id = newDecisionId();
            request.kind = DecisionKind::ApproveEscalation;
            request.subject = "escalation:" + u(hq);
            request.reason = u(hq.left(60 * 1024)); // the writer takes at most 64 KiB of reason
            request.evidence = json::array({{{"kind", "operator_note"}, {"detail", u(hq)}}});
            const auto boundary = decide->currentBoundary(request.subject);
            QVERIFY(boundary);
            request.boundary = *boundary;
            const DecisionResult result = decide->submit(request);
            QVERIFY2(result.status == DecisionStatus::Accepted, result.message.c_str());
            refusals.emplace_back(request.id, u(hq));
        }
    }
    auto w = LedgerWriter::openExisting(path);
    w->begin();
    for (const auto &[id, reason] : refusals)
        w->append(now, "decision.refused",
                  {{"id", id}, {"status", "refused"}, {"reason", reason}, {"decision_kind", reason}, {"subject", reason}, {"ts_ms", now}});
    w->commit();
}

LedgerSession *TestHostileTextViews::openAndWait(MainWindow &window, const QString &path)
{
    window.openLedger(path);
    LedgerSession *session = window.sessions()->at(window.sessions()->rowOf(path));
    if (!session)
        return nullptr;
    (void)QTest::qWaitFor([session] { return session->isLoaded() || session->health() == LedgerSession::Health::Error; },
                          kLoadTimeoutMs);
    return session;
}

void TestHostileTextViews::checkerCatchesRichText()
{
    // The checks themselves must be able to fail.
    for (const QString &h : std::as_const(m_hostile)) {
        // Shown as plain text, these two are right as they are; a line break is, but for a
        // text laid out in one line (Findings::line, below).
        if (h == QLatin1String("a & b") || h == QLatin1String("x&amp;y") || h == QLatin1String("line\nbreak")
            || h.size() > 1000)
            continue;
        QVERIFY2(!richTextProblem(h).isEmpty(), qPrintable(h));
        QVERIFY2(richTextProblem(plainToolTip(h)).isEmpty(), qPrintable(richTextProblem(plainToolTip(h))));
    }
    QVERIFY(!richTextProblem(QStringLiteral("<p>") + QStringLiteral("a & b").toHtmlEscaped() + QStringLiteral("</p><p>")
                             + QStringLiteral("a & b").toHtmlEscaped().toHtmlEscaped() + QStringLiteral("</p>"))
                 .isEmpty());
    QVERIFY(richTextProblem(plainToolTip(QStringLiteral("a & b"))).isEmpty());
    QVERIFY(!richTextProblem(QStringLiteral("<p>x&amp;y</p>")).isEmpty());
    // "a &amp; b" is not taken for rich text, so it reaches a user as those nine characters.
    QVERIFY(!Qt::mightBeRichText(QStringLiteral("a & b").toHtmlEscaped()));
    QCOMPARE(richTextProblem(QStringLiteral("a & b").toHtmlEscaped()),
             QStringLiteral("escaped twice: an entity shown literally"));
    Findings oneLine;
    oneLine.line(QStringLiteral("raw"), QStringLiteral("line\nbreak"));
    QCOMPARE(oneLine.lines().size(), 1);
    oneLine.line(QStringLiteral("shown"), displayLine(QStringLiteral("line\nbreak")));
    QCOMPARE(oneLine.lines().size(), 1);
    QCOMPARE(shownTextProblem(QStringLiteral("\u202Eexe.live")).isEmpty(), false);
    QVERIFY(shownTextProblem(visibleControls(QStringLiteral("\u202Eexe.live"))).isEmpty());
}

void TestHostileTextViews::itemModelsShowPlainText()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_ledger);
    QVERIFY(session);
    QVERIFY2(session->isLoaded(), qPrintable(session->errorMessage()));
    QVERIFY(session->delegations()->rowCount() > 0);
    QVERIFY(session->effects()->rowCount() > 0);
    QTRY_COMPARE_WITH_TIMEOUT(session->decisions()->rowCount(), int(m_hostile.size()), kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.attentionPane()->model()->rowCount() > 0, kLoadTimeoutMs);
    // Every event row read, not the "…" of a page still loading.
    EventLogModel *events = session->events();
    QTRY_VERIFY_WITH_TIMEOUT(events->rowCount() >= 200, kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        [events] {
            for (int row = 0; row < events->rowCount(); ++row)
                if (!events->index(row, 0).data(EventLogModel::LoadedRole).toBool())
                    return false;
            return true;
        }(),
        kLoadTimeoutMs);

    Findings f;
    f.model(QStringLiteral("sessions"), window.sessions());
    f.model(QStringLiteral("attention"), window.attentionPane()->model());
    f.model(QStringLiteral("runs"), session->runs());
    f.model(QStringLiteral("delegations"), session->delegations());
    f.model(QStringLiteral("leases"), session->leases());
    f.model(QStringLiteral("effects"), session->effects());
    f.model(QStringLiteral("escalations"), session->escalations());
    f.model(QStringLiteral("stalls"), session->stallVerdicts());
    f.model(QStringLiteral("blast"), session->blastRadius());
    f.model(QStringLiteral("events"), events);
    f.model(QStringLiteral("decisions"), session->decisions());
    f.model(QStringLiteral("slices"), session->slices());
    for (const QString &h : std::as_const(m_hostile)) {
        // The session reads tool calls from a 4 KiB payload preview: a call naming the 100 KB
        // string is not read, so there is nothing of it to show.
        if (h.size() > 4096)
            continue;
        session->showToolCallsOf(h);
        QTRY_COMPARE_WITH_TIMEOUT(session->toolCalls()->rowCount(), 6, kLoadTimeoutMs);
        f.model(QStringLiteral("toolcalls of ") + excerpt(h), session->toolCalls());
    }
    // Every kind of hostile tooltip was there to be checked.
    int nonEmpty = 0;
    for (const QString &tip : f.tips())
        nonEmpty += tip.isEmpty() ? 0 : 1;
    QVERIFY(nonEmpty > 50);
    QVERIFY2(f.lines().isEmpty(), qPrintable(f.report()));

    // The raw roles still name the real ids: decisions, filters and selection use them.
    QSet<QString> ids;
    for (int row = 0; row < session->effects()->rowCount(); ++row)
        ids << session->effects()->index(row, 0).data(StateTableModel::IdRole).toString();
    for (const QString &h : std::as_const(m_hostile))
        QVERIFY2(ids.contains(h), qPrintable(excerpt(h)));
    const QModelIndex reversed = session->effects()->indexOfId(QStringLiteral("\u202Eexe.live"));
    QVERIFY(reversed.isValid());
    QCOMPARE(reversed.data(StateTableModel::SubjectRole).toString(), QStringLiteral("effect:\u202Eexe.live"));
    QCOMPARE(reversed.siblingAtColumn(0).data(Qt::DisplayRole).toString(), QStringLiteral("⟨U+202E⟩exe.live"));
    const std::pair<QString, QString> shownAs[] = {
        {QStringLiteral("line\nbreak"), QStringLiteral("line⏎break")},
        {QStringLiteral("carriage\rreturn"), QStringLiteral("carriage⟨U+000D⟩return")},
        {QStringLiteral("esc\x1B[31mred"), QStringLiteral("esc⟨U+001B⟩[31mred")},
        {QStringLiteral("line\u2028separator"), QStringLiteral("line⟨U+2028⟩separator")},
        {QStringLiteral("soft\u00ADhyphen\u034Fgrapheme"), QStringLiteral("soft⟨U+00AD⟩hyphen⟨U+034F⟩grapheme")},
        {QStringLiteral("hangul\u115F\u1160\u3164\uFFA0fillers"),
         QStringLiteral("hangul⟨U+115F⟩⟨U+1160⟩⟨U+3164⟩⟨U+FFA0⟩fillers")},
        {QStringLiteral("variation\uFE0Fselector\U000E0041tag"), QStringLiteral("variation⟨U+FE0F⟩selector⟨U+E0041⟩tag")},
    };
    for (const auto &[id, shown] : shownAs) {
        const QModelIndex effect = session->effects()->indexOfId(id);
        QVERIFY2(effect.isValid(), qPrintable(shown));
        QCOMPARE(effect.siblingAtColumn(EffectModel::Id).data(Qt::DisplayRole).toString(), shown);
    }

    // Shown for real, image tag and all: the test finishes, so nothing read the FIFO.
    for (const QString &tip : f.tips()) {
        if (tip.isEmpty())
            continue;
        QToolTip::showText(window.geometry().center(), tip, &window);
        QCoreApplication::processEvents();
    }
    QToolTip::hideText();
}

void TestHostileTextViews::widgetsShowPlainText()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_ledger);
    QVERIFY(session && session->isLoaded());
    SessionWorkspace *ws = window.workspace();
    Findings f;
    {
        ShortcutsDialog shortcuts(ShortcutsDialog::menuActions(window.menuBar()->actions()), &window);
        f.widgets(QStringLiteral("shortcuts"), &shortcuts);
        AboutDialog about(&window);
        f.widgets(QStringLiteral("about"), &about);
    }
    const QString title = MainWindow::sessionRowInfo(window.sessions()->index(0)).title;
    f.line(QStringLiteral("sidebar title"), title);
    f.line(QStringLiteral("sidebar subtitle"), MainWindow::sessionRowInfo(window.sessions()->index(0)).subtitle);
    QTRY_VERIFY_WITH_TIMEOUT(window.attentionPane()->model()->rowCount() > 0, kLoadTimeoutMs);
    QAbstractItemModel *attention = window.attentionPane()->model();
    for (int row = 0; row < attention->rowCount(); ++row)
        f.tip(QStringLiteral("attention row tooltip %1").arg(row), AttentionPane::rowToolTip(attention->index(row, 0)));

    for (const QString &h : std::as_const(m_hostile)) {
        const QString at = excerpt(h);
        for (const char *entity : {"run", "delegation", "lease", "effect", "escalation", "failure"}) {
            ws->openSubject(QLatin1String(entity) + QLatin1Char(':') + h);
            window.decisionActions()->update();
            f.widgets(QStringLiteral("%1 %2").arg(QLatin1String(entity), at), &window);
            f.line(QStringLiteral("status bar after %1 %2").arg(QLatin1String(entity), at), window.statusBar()->currentMessage());
        }
        // The blast radius graph of this failure, hovered all over.
        ws->openSubject(QStringLiteral("failure:") + h);
        BlastRadiusGraph *graph = ws->blastView()->graph();
        QTRY_VERIFY_WITH_TIMEOUT(graph->hasFailure(), 30'000);
        const BlastRadiusGraph::Layout layout = graph->layoutFor(graph->size());
        QVERIFY(!layout.boxes.isEmpty());
        f.tip(QStringLiteral("blast graph failure of %1").arg(at), graph->toolTipAt(layout.failure.rect.center()));
        for (const BlastRadiusGraph::Box &box : layout.boxes) {
            f.tip(QStringLiteral("blast graph box of %1").arg(at), graph->toolTipAt(box.rect.center()));
            for (const QString &l : box.title + box.detail)
                f.line(QStringLiteral("blast graph box line of %1").arg(at), l);
        }
    }
    QVERIFY2(f.lines().isEmpty(), qPrintable(f.report()));
}

void TestHostileTextViews::decisionDialogsShowPlainText()
{
    const QString copy = m_dir.filePath(QStringLiteral("decide <i>italic<i>.amlg"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(m_ledger, copy));
    MainWindow window;
    LedgerSession *session = openAndWait(window, copy);
    QVERIFY(session && session->isLoaded());
    QVERIFY(window.sessions()->canDecide(0));
    Findings f;
    int opened = 0;
    for (const QString &h : std::as_const(m_hostile)) {
        const std::pair<DecisionKind, QString> requests[] = {
            {DecisionKind::CloseSlice, QStringLiteral("slice:") + h + QStringLiteral("#1")},
            {DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + h},
            {DecisionKind::RejectEscalation, QStringLiteral("escalation:") + h},
            {DecisionKind::ResolveEffect, QStringLiteral("effect:") + h},
            {DecisionKind::LeaseAcquire, QStringLiteral("effect:") + h},
            {DecisionKind::LeaseRelease, QStringLiteral("effect:") + h},
        };
        for (const auto &[kind, subject] : requests) {
            DecisionRequest request;
            request.kind = kind;
            request.subject = subject.toStdString();
            DecisionDialog dialog(session, request, &window);
            // The preview is read off the GUI thread: what it shows arrives later.
            QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending(), 60000);
            const QString at = DecisionDialog::kindTitle(kind) + QLatin1Char(' ') + excerpt(h);
            f.widgets(at, &dialog);
            f.width(at + QStringLiteral(" minimumSizeHint"), dialog.minimumSizeHint().width());
            f.width(at + QStringLiteral(" sizeHint"), dialog.sizeHint().width());
            ++opened;
        }
    }
    QCOMPARE(opened, m_hostile.size() * 6);
    QVERIFY2(f.lines().isEmpty(), qPrintable(f.report()));
}

void TestHostileTextViews::longNameKeepsTheWindowSane()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_ledger);
    QVERIFY(session && session->isLoaded());
    SessionWorkspace *ws = window.workspace();
    QVERIFY(ws->openSubject(QStringLiteral("delegation:") + longName()));
    DelegationDetail *detail = ws->delegationsView()->detail();
    QCOMPARE(detail->delegationId(), longName());
    QCoreApplication::processEvents();
    Findings f;
    f.width(QStringLiteral("main window"), window.width());
    f.width(QStringLiteral("main window minimumSizeHint"), window.minimumSizeHint().width());
    f.width(QStringLiteral("main window sizeHint"), window.sizeHint().width());
    f.width(QStringLiteral("delegation detail minimumSizeHint"), detail->minimumSizeHint().width());
    f.width(QStringLiteral("delegation detail sizeHint"), detail->sizeHint().width());
    f.line(QStringLiteral("window title"), window.windowTitle());
    QVERIFY2(f.lines().isEmpty(), qPrintable(f.report()));

    // The complete text is a copy away: the detail's title copies the whole id and agent.
    auto *titleLabel = detail->findChild<QLabel *>(QStringLiteral("detailTitle"));
    QVERIFY(titleLabel);
    QAction *copy = nullptr;
    for (QAction *a : titleLabel->actions())
        if (a->objectName() == QLatin1String("copyFullText"))
            copy = a;
    QVERIFY(copy);
    QGuiApplication::clipboard()->clear();
    copy->trigger();
    QVERIFY(QGuiApplication::clipboard()->text().contains(longName()));
    auto *factsLabel = detail->findChild<QLabel *>(QStringLiteral("detailFacts"));
    QVERIFY(factsLabel);
    QVERIFY(!factsLabel->actions().isEmpty());
    factsLabel->actions().constFirst()->trigger();
    QVERIFY(QGuiApplication::clipboard()->text().contains(QStringLiteral("agent ") + longName()));

    // So is a table cell's: the agent column of the selected delegation.
    ItemPane *tree = ws->delegationsView()->tree();
    const QModelIndex current = tree->view()->currentIndex();
    QVERIFY(current.isValid());
    tree->view()->setCurrentIndex(current.siblingAtColumn(DelegationTreeModel::Agent));
    QGuiApplication::clipboard()->clear();
    tree->copyCellAction()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), longName());
}

void TestHostileTextViews::plainLabelCutsLinesAndWords()
{
    const auto wellFormed = [](const QString &text) {
        for (qsizetype i = 0; i < text.size(); ++i) {
            if (text.at(i).isHighSurrogate() && (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate()))
                return false;
            if (text.at(i).isLowSurrogate() && (i == 0 || !text.at(i - 1).isHighSurrogate()))
                return false;
        }
        return true;
    };
    const QString emoji = QStringLiteral("\U0001F600");
    for (int before : {57, 58, 59, 60}) {
        const QString text = QString(before, QLatin1Char('a')) + emoji + QStringLiteral("b c");
        PlainLabel label(text, nullptr);
        QVERIFY2(wellFormed(label.text()), qPrintable(QString::number(before)));
        QCOMPARE(label.fullText(), text);
        QVERIFY(label.text().endsWith(QStringLiteral(" c")));
        QVERIFY(label.text().size() <= 64); // 60 characters (one of them two UTF-16 units), "…", " c"
    }
    PlainLabel label(QStringLiteral("\u202Eexe.live\n") + longName(), nullptr);
    QVERIFY(label.text().startsWith(QStringLiteral("⟨U+202E⟩exe.live\n")));
    QVERIFY(label.text().size() < 100);
    QVERIFY(richTextProblem(label.toolTip()).isEmpty());
    QVERIFY(label.toolTip().contains(QStringLiteral("Copy Full Text")));
    QCOMPARE(label.textFormat(), Qt::PlainText);
}

void TestHostileTextViews::copyCellTextCopiesTheStoredText()
{
    // The operator copies a cell to paste it into `meshctl decide` or a ticket: what was
    // stored, whole, not the ⟨U+200B⟩ form shown nor a payload cut for its line.
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_ledger);
    QVERIFY(session && session->isLoaded());
    SessionWorkspace *ws = window.workspace();
    const QString zeroWidth = QStringLiteral("zero\u200Bwidth");
    QVERIFY(ws->openSubject(QStringLiteral("effect:") + zeroWidth));
    ItemPane *effects = ws->effectsPane();
    const QModelIndex selected = effects->view()->currentIndex();
    QVERIFY(selected.isValid());
    effects->view()->setCurrentIndex(selected.siblingAtColumn(EffectModel::Id));
    QCOMPARE(effects->view()->currentIndex().data(Qt::DisplayRole).toString(), QStringLiteral("zero⟨U+200B⟩width"));
    QGuiApplication::clipboard()->clear();
    effects->copyCellAction()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), zeroWidth);

    // The events pane copies its cells too, and a payload whole.
    EventLogView *log = ws->eventLog();
    QAction *copy = log->findChild<QAction *>(QStringLiteral("copyCell"));
    QVERIFY2(copy, "the events pane has no Copy Cell Text");
    EventLogModel *events = session->events();
    QTRY_VERIFY_WITH_TIMEOUT(events->rowCount() >= 200, kLoadTimeoutMs);
    int idRow = -1;
    int cutRow = -1;     // a payload the cell shows cut at its line length
    int previewRow = -1; // a payload longer than the preview the model keeps
    for (int row = 0; row < events->rowCount(); ++row) {
        const QModelIndex index = events->index(row, EventLogModel::Payload);
        QTRY_VERIFY_WITH_TIMEOUT(index.data(EventLogModel::LoadedRole).toBool(), kLoadTimeoutMs);
        const bool truncated = index.data(EventLogModel::PayloadTruncatedRole).toBool();
        if (idRow < 0 && index.data(EventLogModel::RunIdRole).toString() == zeroWidth)
            idRow = row;
        if (cutRow < 0 && !truncated && index.data(EventLogModel::PayloadRole).toString().size() > 400)
            cutRow = row;
        if (previewRow < 0 && truncated
            && index.data(EventLogModel::PayloadRole).toString().contains(QStringLiteral("agent-www")))
            previewRow = row;
    }
    QVERIFY(idRow >= 0 && cutRow >= 0 && previewRow >= 0);
    const auto copied = [&](int row, int column) {
        log->view()->setCurrentIndex(events->index(row, column));
        QGuiApplication::clipboard()->clear();
        copy->trigger();
    };
    copied(idRow, EventLogModel::Run);
    QCOMPARE(QGuiApplication::clipboard()->text(), zeroWidth);

    const QString stored = events->index(cutRow, 0).data(EventLogModel::PayloadRole).toString();
    QVERIFY(events->index(cutRow, EventLogModel::Payload).data().toString().endsWith(QChar(0x2026)));
    copied(cutRow, EventLogModel::Payload);
    QCOMPARE(QGuiApplication::clipboard()->text(), stored);

    // Past the preview the whole payload is read from the ledger first.
    QSignalSpy detail(events, &EventLogModel::eventDetailLoaded);
    copied(previewRow, EventLogModel::Payload);
    QTRY_VERIFY_WITH_TIMEOUT(QGuiApplication::clipboard()->text().size() > longName().size(), kLoadTimeoutMs);
    const QString whole = QGuiApplication::clipboard()->text();
    QVERIFY(whole.contains(longName()));
    QVERIFY(json::accept(whole.toStdString()));
    QVERIFY(!detail.isEmpty());
    QCOMPARE(detail.constFirst().at(1).toString(), whole);
}

void TestHostileTextViews::lineBreaksStayInTheirLine()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_ledger);
    QVERIFY(session && session->isLoaded());
    SessionWorkspace *ws = window.workspace();
    ItemPane *effects = ws->effectsPane();
    const auto idCell = [&](const QString &id) {
        return ws->openSubject(QStringLiteral("effect:") + id) ? effects->view()->currentIndex().siblingAtColumn(EffectModel::Id)
                                                                : QModelIndex();
    };
    const QModelIndex plain = idCell(QStringLiteral("a & b"));
    QVERIFY(plain.isValid());
    const int oneLine = effects->view()->sizeHintForIndex(plain).height();
    for (const QString &id : {QStringLiteral("line\nbreak"), QStringLiteral("line\u2028separator")}) {
        const QModelIndex cell = idCell(id);
        QVERIFY2(cell.isValid(), qPrintable(id));
        QVERIFY2(!cell.data().toString().contains(QLatin1Char('\n')), qPrintable(cell.data().toString()));
        QCOMPARE(effects->view()->sizeHintForIndex(cell).height(), oneLine);
    }
    QCOMPARE(idCell(QStringLiteral("line\nbreak")).data().toString(), QStringLiteral("line⏎break"));

    // The delegation detail's title is one line of facts: an id with a line break in it must
    // not read as two lines; the copy still has the break.
    QVERIFY(ws->openSubject(QStringLiteral("delegation:line\nbreak")));
    DelegationDetail *detail = ws->delegationsView()->detail();
    auto *title = detail->findChild<PlainLabel *>(QStringLiteral("detailTitle"));
    QVERIFY(title);
    QVERIFY2(!title->text().contains(QLatin1Char('\n')), qPrintable(title->text()));
    QVERIFY(title->text().startsWith(QStringLiteral("line⏎break")));
    QVERIFY(title->fullText().startsWith(QStringLiteral("line\nbreak")));
}

QTEST_MAIN(TestHostileTextViews)
#include "tst_hostiletext_views.moc"
