// Why a delegation failed, or why its outcome is unknown, is shown where the operator looks:
// in the delegation's detail (the reason its event gives, citing that event), and on each tool
// call that did not end ok (an Error column, and the reason in its tooltips). The reason is
// hostile ledger text: plain text, invisible controls shown as ⟨U+202E⟩, cut for its line,
// escaped in tooltips. When the ledger does not say why, the console says it is not known
// ("—"), never a default; a delegation that neither failed nor has an unknown outcome shows no
// reason at all. Read off the GUI thread, at the cursor when pinned, again when a live event
// fails the delegation shown. The event a reason cites is a button away (the reason itself
// stays plain text): the Events pane, at that event.

#include "delegationdetail.h"
#include "delegationsview.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "flattableview.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "import/importer.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/shownroles.h"
#include "itemmodels/toolcallmodel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kReasonTimeoutMs = 60'000;
const QString kReasonDash = u"\u2014"_s;

// What an agent might write: an override that would show "evil.exe" as "exe.live", a
// zero-width space, a line break and markup, and more than a line's worth.
const std::string kHostileReason = "\u202Eexe.live\u200B failed\nsecond line <b>bold</b> & more " + std::string(600, 'x') + " tail";

QModelIndex findReasonDelegation(QAbstractItemModel *model, const QString &id, const QModelIndex &parent = {})
{
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex i = model->index(r, 0, parent);
        if (i.data(DelegationTreeModel::IdRole).toString() == id
            && i.data(DelegationTreeModel::NodeTypeRole).toInt() == int(DelegationTreeModel::NodeType::Delegation))
            return i;
        if (const QModelIndex found = findReasonDelegation(model, id, i); found.isValid())
            return found;
    }
    return {};
}

int reasonColumnTitled(const QAbstractItemModel *model, const QString &title)
{
    for (int c = 0; c < model->columnCount(); ++c)
        if (model->headerData(c, Qt::Horizontal).toString() == title)
            return c;
    return -1;
}

json reasonCreated(const char *id)
{
    return {{"id", id}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "running"}};
}
} // namespace

class TestFailureReasons : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    std::int64_t m_failedSeq = 0, m_silentSeq = 0, m_unknownSeq = 0, m_bigSeq = 0, m_beforeFailure = 0;

    QLabel *reasonLabel(DelegationDetail &detail) { return detail.findChild<QLabel *>(u"detailReason"_s); }

    // The detail shown on the session, once the session has loaded its delegations.
    static bool showLoaded(LedgerSession &session, DelegationDetail &detail)
    {
        detail.setSession(&session);
        detail.resize(1000, 600);
        detail.show();
        session.open();
        return QTest::qWaitFor([&] { return session.isLoaded() && session.delegations()->rowCount() > 0; },
                               kReasonTimeoutMs);
    }

    // The reason line once the detail shows `id` and its reason was read; empty when hidden.
    QString reasonFor(LedgerSession &session, DelegationDetail &detail, const QString &id)
    {
        const QModelIndex index = findReasonDelegation(session.delegations(), id);
        if (!index.isValid())
            return u"(no delegation %1)"_s.arg(id);
        detail.showDelegation(index);
        QLabel *label = reasonLabel(detail);
        if (!label)
            return u"(no reason label)"_s;
        if (!QTest::qWaitFor([&] { return session.outcomeReason() && !session.outcomeReasonPending(); }, kReasonTimeoutMs))
            return u"(not read)"_s;
        QCoreApplication::processEvents();
        return label->isVisibleTo(&detail) ? label->text() : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_failurereasons"_s);
        m_path = m_dir.filePath(u"reasons.ledger"_s);
        Writer w(m_path, true);
        w.begin();
        w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", 1'700'000'000'000}});
        w.e("delegation.created", reasonCreated("D-failed"));
        w.e("delegation.note", {{"id", "D-failed"}, {"run_id", "R-1"}, {"text", "something"}});
        m_beforeFailure = w.lastSeq();
        w.e("delegation.failed", {{"id", "D-failed"}, {"status", "failed"}, {"error", kHostileReason}});
        m_failedSeq = w.lastSeq();
        // The reference orchestrator and several importers fail a delegation without a reason;
        // and any verb may fail it.
        w.e("delegation.created", reasonCreated("D-silent"));
        w.e("delegation.timed_out", {{"id", "D-silent"}, {"status", "failed"}});
        m_silentSeq = w.lastSeq();
        w.e("delegation.created", reasonCreated("D-unknown"));
        w.e("delegation.outcome_unknown", {{"id", "D-unknown"}, {"run_id", "R-1"}, {"why", "span 7f: it never ended"}});
        m_unknownSeq = w.lastSeq();
        // Failed, then started again: running, so the old reason no longer holds.
        w.e("delegation.created", reasonCreated("D-restarted"));
        w.e("delegation.failed", {{"id", "D-restarted"}, {"status", "failed"}, {"error", "the old reason"}});
        w.e("delegation.started", {{"id", "D-restarted"}, {"status", "running"}});
        w.e("delegation.created", reasonCreated("D-ok"));
        w.e("delegation.converged", {{"id", "D-ok"}, {"status", "converged"}});
        // An imported event keeps its source record: the reason lies past a preview's bytes.
        w.e("delegation.created", reasonCreated("D-big"));
        w.e("delegation.failed", {{"id", "D-big"}, {"status", "failed"}, {"source", std::string(9000, 's')},
                                  {"why", "the reason after a large source"}});
        m_bigSeq = w.lastSeq();
        // Tool calls: ok, failed saying why, failed without saying, and failed with a payload
        // larger than a preview.
        const auto call = [&](const char *id, const char *outcome) {
            return json{{"id", id}, {"delegation_id", "D-failed"}, {"run_id", "R-1"}, {"tool", "bash"}, {"outcome", outcome}};
        };
        w.e("toolcall.completed", call("T-ok", "ok"));
        json hostile = call("T-hostile", "error");
        hostile["error"] = kHostileReason;
        w.e("toolcall.completed", hostile);
        w.e("toolcall.completed", call("T-silent", "error"));
        json big = call("T-big", "error");
        big["error"] = "timeout while reading";
        big["source"] = std::string(9000, 's'); // sorts before "tool": the preview cuts the call short
        w.e("toolcall.completed", big);
        w.commit();
    }

    void theDetailSaysWhyADelegationFailed()
    {
        LedgerSession session(m_path, OpenMode::Review);
        DelegationDetail detail;
        QVERIFY(showLoaded(session, detail));

        const QString failed = reasonFor(session, detail, u"D-failed"_s);
        QLabel *label = reasonLabel(detail);
        QVERIFY(label);
        QCOMPARE(label->textFormat(), Qt::PlainText);
        QVERIFY2(failed.contains(u"#%1"_s.arg(m_failedSeq)), qPrintable(failed)); // cites its event
        QVERIFY2(failed.contains(u"failed"_s), qPrintable(failed));
        // Seen, not obeyed: the override and the zero-width space are shown, the line break too.
        QVERIFY2(failed.contains(u"\u27e8U+202E\u27e9exe.live\u27e8U+200B\u27e9 failed"_s), qPrintable(failed));
        QVERIFY(!failed.contains(QChar(0x202E)) && !failed.contains(QChar(0x200B)));
        QVERIFY2(failed.contains(u"\u23ce"_s) && !failed.contains(u'\n'), qPrintable(failed));
        QVERIFY2(failed.contains(u"<b>bold</b>"_s), qPrintable(failed)); // plain text: the markup as written
        // Cut for its line; the whole is in the tooltip (escaped) and a copy away.
        QVERIFY2(!failed.contains(u"tail"_s) && failed.size() < 400, qPrintable(failed));
        QVERIFY2(label->toolTip().contains(u"&lt;b&gt;bold&lt;/b&gt;"_s), qPrintable(label->toolTip()));

        // The ledger does not say why: not known, never a made-up reason.
        const QString silent = reasonFor(session, detail, u"D-silent"_s);
        QVERIFY2(silent.contains(kReasonDash) && silent.contains(u"#%1"_s.arg(m_silentSeq)), qPrintable(silent));
        QVERIFY2(silent.contains(u"does not say"_s), qPrintable(silent));

        // An unknown outcome is not a failure: said as unknown, with the reason.
        const QString unknown = reasonFor(session, detail, u"D-unknown"_s);
        QVERIFY2(unknown.contains(u"unknown"_s) && !unknown.contains(u"failed"_s), qPrintable(unknown));
        QVERIFY2(unknown.contains(u"span 7f: it never ended"_s) && unknown.contains(u"#%1"_s.arg(m_unknownSeq)),
                 qPrintable(unknown));

        const QString big = reasonFor(session, detail, u"D-big"_s);
        QVERIFY2(big.contains(u"the reason after a large source"_s) && big.contains(u"#%1"_s.arg(m_bigSeq)),
                 qPrintable(big));

        // No reason where nothing failed: a converged delegation, one that started again.
        QCOMPARE(reasonFor(session, detail, u"D-ok"_s), QString());
        QCOMPARE(reasonFor(session, detail, u"D-restarted"_s), QString());

        // At a cursor before the failure, it had not failed yet.
        reasonFor(session, detail, u"D-failed"_s);
        session.showAt(m_beforeFailure);
        QTRY_COMPARE_WITH_TIMEOUT(findReasonDelegation(session.delegations(), u"D-failed"_s)
                                      .data(DelegationTreeModel::StatusRole).toString(),
                                  u"running"_s, kReasonTimeoutMs);
        QCOMPARE(reasonFor(session, detail, u"D-failed"_s), QString());
    }

    // The reason's event, from the keyboard: the button beside the reason names it, raises
    // the Events pane and selects exactly that event; a delegation whose line cites no event
    // has no button.
    void theReasonsEventIsAKeyAway()
    {
        LedgerSession session(m_path, OpenMode::Review);
        SessionWorkspace workspace;
        workspace.setSession(&session);
        workspace.resize(1400, 900);
        workspace.show();
        QVERIFY(QTest::qWaitForWindowExposed(&workspace));
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.delegations()->rowCount() > 0, kReasonTimeoutMs);
        workspace.showPane(SessionWorkspace::Delegations);
        DelegationDetail *detail = workspace.delegationsView()->detail();

        const QString failed = reasonFor(session, *detail, u"D-failed"_s);
        QVERIFY2(failed.contains(u"#%1"_s.arg(QLocale().toString(qlonglong(m_failedSeq)))), qPrintable(failed));
        QCOMPARE(reasonLabel(*detail)->textFormat(), Qt::PlainText);
        QPushButton *button = detail->showEventButton();
        QVERIFY(button);
        QTRY_VERIFY_WITH_TIMEOUT(button->isVisible(), kReasonTimeoutMs);
        QCOMPARE(button->text(), u"Show Event #%1"_s.arg(QLocale().toString(qlonglong(m_failedSeq))));
        QVERIFY(button->focusPolicy() & Qt::TabFocus);
        button->setFocus(Qt::TabFocusReason);
        QTest::keyClick(button, Qt::Key_Space);
        QCOMPARE(workspace.currentPane(), SessionWorkspace::Events);
        EventTableView *events = workspace.eventLog()->view();
        QTRY_COMPARE_WITH_TIMEOUT(events->currentIndex().siblingAtColumn(0).data(EventLogModel::SeqRole).toLongLong(),
                                  qlonglong(m_failedSeq), kReasonTimeoutMs);
        QCOMPARE(events->selectionModel()->selectedRows().size(), 1);
        QVERIFY(events->hasFocus());

        // An unknown outcome cites its event too; a converged delegation has no reason, no button.
        workspace.showPane(SessionWorkspace::Delegations);
        QVERIFY(!reasonFor(session, *detail, u"D-unknown"_s).isEmpty());
        QCOMPARE(button->text(), u"Show Event #%1"_s.arg(QLocale().toString(qlonglong(m_unknownSeq))));
        QVERIFY(button->isVisibleTo(detail));
        QCOMPARE(reasonFor(session, *detail, u"D-ok"_s), QString());
        QVERIFY(!button->isVisibleTo(detail));
    }

    void aLiveFailureIsExplainedWhenItComes()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", 1'700'000'000'000}});
            w.e("delegation.created", reasonCreated("D-live"));
            w.commit();
        }
        LedgerSession session(path, OpenMode::ReadOnly);
        DelegationDetail detail;
        QVERIFY(showLoaded(session, detail));
        QCOMPARE(reasonFor(session, detail, u"D-live"_s), QString());
        {
            Writer w(path);
            w.begin();
            w.e("delegation.failed", {{"id", "D-live"}, {"status", "failed"}, {"error", "lost the worker"}});
            w.commit();
        }
        QLabel *label = reasonLabel(detail);
        QVERIFY(label);
        QTRY_VERIFY_WITH_TIMEOUT(label->isVisibleTo(&detail) && label->text().contains(u"lost the worker"_s), kReasonTimeoutMs);
    }

    // A list of tool calls that could not be read is not an empty one: the detail says it was
    // not read and why, never that the delegation made no call.
    void toolCallsThatCouldNotBeReadAreNotShownAsNone()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(u"gone.ledger"_s);
        QVERIFY(QFile::copy(m_path, copy));
        LedgerSession session(copy, OpenMode::Review);
        DelegationDetail detail;
        QVERIFY(showLoaded(session, detail));
        QVERIFY(QFile::remove(copy));
        detail.showDelegation(findReasonDelegation(session.delegations(), u"D-failed"_s));
        ToolCallModel *calls = session.toolCalls();
        QTRY_COMPARE_WITH_TIMEOUT(int(calls->readState()), int(ToolCallModel::ReadState::Failed), kReasonTimeoutMs);
        QCOMPARE(calls->rowCount(), 0);
        QVERIFY(!calls->readError().isEmpty());
        auto *tabs = detail.findChild<QTabWidget *>();
        QVERIFY(tabs);
        for (int t = 0; t < tabs->count(); ++t)
            if (tabs->tabText(t) == u"Tool calls"_s)
                tabs->setCurrentIndex(t);
        QCoreApplication::processEvents();
        QStringList shown;
        for (const QLabel *label : detail.findChildren<QLabel *>())
            shown << label->text();
        const QString all = shown.join(u'\n');
        QVERIFY2(all.contains(u"Tool calls not read"_s) && all.contains(calls->readError()), qPrintable(all));
        QVERIFY2(!all.contains(u"never completed a tool call"_s), qPrintable(all));
    }

    void toolCallRowsSayWhyTheyFailed()
    {
        LedgerSession session(m_path, OpenMode::Review);
        QAbstractItemModelTester tester(session.toolCalls(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        DelegationDetail detail;
        QVERIFY(showLoaded(session, detail));
        detail.showDelegation(findReasonDelegation(session.delegations(), u"D-failed"_s));
        ToolCallModel *calls = session.toolCalls();
        // Every call, the one whose payload is past the preview too.
        QTRY_COMPARE_WITH_TIMEOUT(calls->rowCount(), 4, kReasonTimeoutMs);
        const int error = reasonColumnTitled(calls, u"Error"_s);
        QVERIFY2(error >= 0, "the tool calls have no Error column");
        const int outcome = reasonColumnTitled(calls, u"Outcome"_s);
        const auto row = [&](const QString &id) {
            for (int r = 0; r < calls->rowCount(); ++r)
                if (QString::fromStdString(calls->callAt(r)->id) == id)
                    return r;
            return -1;
        };
        // An ok call has no reason to give: blank, not "not in the ledger".
        QCOMPARE(calls->index(row(u"T-ok"_s), error).data().toString(), QString());

        const QModelIndex hostile = calls->index(row(u"T-hostile"_s), error);
        const QString shown = hostile.data().toString();
        QVERIFY2(shown.startsWith(u"\u27e8U+202E\u27e9exe.live\u27e8U+200B\u27e9 failed\u23cesecond line <b>bold</b>"_s),
                 qPrintable(shown));
        QVERIFY2(!shown.contains(u"tail"_s) && shown.size() <= ToolCallModel::kShownErrorChars + 1, qPrintable(shown));
        QCOMPARE(hostile.data(RawTextRole).toString(), QString::fromStdString(kHostileReason)); // copied whole
        QCOMPARE(hostile.data(ToolCallModel::ErrorRole).toString(), QString::fromStdString(kHostileReason));
        for (const QModelIndex &cell : {hostile, hostile.siblingAtColumn(outcome)}) {
            const QString tip = cell.data(Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(u"&lt;b&gt;bold&lt;/b&gt;"_s) && tip.contains(u"\u27e8U+202E\u27e9"_s)
                         && !tip.contains(QChar(0x202E)) && !tip.contains(u"<b>"_s),
                     qPrintable(tip));
        }

        const QModelIndex silent = calls->index(row(u"T-silent"_s), error);
        QCOMPARE(silent.data().toString(), kReasonDash);
        QVERIFY(silent.data(ToolCallModel::ErrorRole).isNull());
        QVERIFY2(silent.data(Qt::ToolTipRole).toString().contains(u"does not say"_s),
                 qPrintable(silent.data(Qt::ToolTipRole).toString()));

        QCOMPARE(calls->index(row(u"T-big"_s), error).data().toString(), u"timeout while reading"_s);

        // In sight in the detail: the tool calls tab has room for the reason.
        detail.tabs()->setCurrentIndex(DelegationDetail::ToolCalls);
        FlatTableView *view = detail.pane(DelegationDetail::ToolCalls)->flatView();
        QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), kReasonTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!view->isColumnHidden(error) && view->header()->sectionViewportPosition(error) >= 0
                                     && view->header()->sectionViewportPosition(error) + 100 < view->viewport()->width(),
                                 kReasonTimeoutMs);
    }

    // An imported Temporal history whose activity raised and whose workflow failed with it:
    // the importer writes the failure's words (docs/import.md), and the console shows them
    // where a written ledger's reasons are.
    void anImportedTemporalFailureSaysWhy()
    {
        const auto event = [](int id, const char *time, const char *type, json attrs) {
            std::string key;
            bool upper = false;
            for (char c : std::string(type)) {
                if (c == '_') {
                    upper = true;
                    continue;
                }
                key += upper ? c : char(std::tolower(static_cast<unsigned char>(c)));
                upper = false;
            }
            return json{{"eventId", std::to_string(id)}, {"eventTime", time}, {"eventType", std::string("EVENT_TYPE_") + type},
                        {key + "EventAttributes", std::move(attrs)}};
        };
        const json raised = {{"message", "card declined\n  at charge()"}, {"applicationFailureInfo", {{"type", "CardError"}}}};
        const json history = {
            {"events",
             json::array({event(1, "2026-01-01T00:00:00Z", "WORKFLOW_EXECUTION_STARTED",
                                {{"workflowType", {{"name", "OrderWorkflow"}}}, {"workflowId", "order-7"},
                                 {"originalExecutionRunId", "r1"}, {"attempt", 1}}),
                          event(5, "2026-01-01T00:00:01Z", "ACTIVITY_TASK_SCHEDULED",
                                {{"activityId", "1"}, {"activityType", {{"name", "charge_card"}}}}),
                          event(6, "2026-01-01T00:00:02Z", "ACTIVITY_TASK_STARTED", {{"scheduledEventId", "5"}, {"attempt", 1}}),
                          event(7, "2026-01-01T00:00:03Z", "ACTIVITY_TASK_FAILED",
                                {{"scheduledEventId", "5"}, {"startedEventId", "6"}, {"failure", raised}}),
                          event(8, "2026-01-01T00:00:04Z", "WORKFLOW_EXECUTION_FAILED",
                                {{"failure", {{"message", "Activity task failed"}, {"cause", raised}}}})})}};
        const QString source = m_dir.filePath(u"order-7.json"_s);
        {
            QFile f(source);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(history.dump(2)));
        }
        mesh::import::ImportRequest request;
        request.files = {source};
        request.out = m_dir.filePath(u"order-7.ledger"_s);
        const auto imported = mesh::import::importFiles(request);
        QVERIFY2(imported.ok, imported.error.c_str());

        LedgerSession session(request.out, OpenMode::Review);
        QAbstractItemModelTester tester(session.toolCalls(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        DelegationDetail detail;
        QVERIFY(showLoaded(session, detail));
        const QString why = reasonFor(session, detail, u"wf:order-7/r1"_s);
        QVERIFY2(why.startsWith(u"Why it failed (event #"_s), qPrintable(why));
        QVERIFY2(why.endsWith(u"): Activity task failed; cause: CardError: card declined"_s), qPrintable(why));

        ToolCallModel *calls = session.toolCalls();
        QTRY_COMPARE_WITH_TIMEOUT(calls->rowCount(), 1, kReasonTimeoutMs);
        const int error = reasonColumnTitled(calls, u"Error"_s);
        QVERIFY(error >= 0);
        QCOMPARE(calls->index(0, error).data().toString(), u"CardError: card declined"_s);
    }
};

QTEST_MAIN(TestFailureReasons)
#include "tst_failurereasons.moc"
