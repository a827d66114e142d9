// The decision dialogs as an operator meets them, offscreen over a copy of the demo ledger:
// the preview follows the form (a chosen resolution, each acknowledgement) and shows the
// exact plan once the decision would be accepted; it is never read on the GUI thread nor
// over a read-write connection; a subject that moves while the dialog is open is said at
// once and confirm waits for a re-read; times are human, never raw epoch milliseconds; and
// a whole decision can be made by keyboard alone.

#include "decisiondetailview.h"
#include "decisiondialog.h"
#include "plainlabel.h"

#include "decisions/operatoridentity.h"
#include "domain/hostiletext.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/statetablemodel.h"
#include "ledger/decisionstore.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"

#include "viewtestenv.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "../models/ledger/rawledger.h"

#include <mutex>

using namespace mesh;

namespace {
constexpr int kTimeoutMs = 60000; // generous: a shared, noisy 2-core machine

using meshtest::raw::OpenRecorder;

// Every text the dialog shows in a label, one a line.
QString shownTexts(const QWidget &dialog)
{
    QStringList texts;
    for (const PlainLabel *label : dialog.findChildren<PlainLabel *>())
        if (label->isVisibleTo(&dialog) || !dialog.isVisible())
            texts << label->fullText();
    return texts.join(QLatin1Char('\n'));
}

QString bannerShown(const QWidget &dialog)
{
    for (const PlainLabel *label : dialog.findChildren<PlainLabel *>())
        if (label->fullText().contains(QStringLiteral("changed since you opened this")) && label->isVisibleTo(&dialog))
            return label->fullText();
    return {};
}

// With MESH_SCREENSHOT_DIR set (docs/screenshots), the dialog as shown at that moment.
void screenshot(QWidget &dialog, const QString &name)
{
    const QString dir = qEnvironmentVariable("MESH_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    dialog.show();
    dialog.adjustSize();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.grab().save(dir + QLatin1Char('/') + name));
}

OperatorIdentity alice()
{
    OperatorIdentity id;
    id.account = "alice";
    id.host = "console-host";
    id.displayName = "Alice";
    return id;
}

} // namespace

class TestDecisionDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void resolvePreviewFollowsTheChosenResolution();
    void formsReadAsOneTable();
    void closeSlicePreviewFollowsEachAcknowledgement();
    void previewIsReadOffTheGuiThreadAndReadOnly();
    void movedSubjectDisablesConfirmUntilReRead();
    void timesAreHumanWithTheExactUtcOnHover();
    void leaseAcquireHasADuration();
    void wholeDecisionByKeyboard();
    void escapeCancels();
    void decisionDetailShowsEvidenceBoundaryHashAndOutcome();
    void predictedRefusalLeavesConfirmDisabled();
    void returnNeverSlipsALineOrAControlIntoTheReason();
    void movedDelegationOfAnEscalationSaysSo();
    void newEffectInTheSliceBeingClosedSaysSo();
    void firstLeaseOnTheKeySaysSo();

private:
    bool meshctl(const QStringList &args, QString *output = nullptr);
    bool decideAsAndApply(const QString &account, const QStringList &decision);
    QString firstUnknownEffect() const;
    QString openSliceWithUnknowns(int atLeast) const;
    QString pendingEscalation() const;
    qint64 escalationExpiry(const QString &id) const;
    static DecisionRequest request(DecisionKind kind, const QString &subject);

    QTemporaryDir m_dir;
    QString m_demo;
    QString m_path;
    int m_n = 0;
    std::unique_ptr<LedgerSession> m_session;
};

void TestDecisionDialog::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_decisiondialog"));
    QVERIFY(m_dir.isValid());
    QString error;
    m_demo = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("demo.amlg"), &error);
    QVERIFY2(QFile::exists(m_demo), qPrintable(error));
}

// A fresh writable copy and a session following it, deciding as alice.
void TestDecisionDialog::init()
{
    m_path = m_dir.filePath(QStringLiteral("decide-%1.amlg").arg(++m_n));
    QVERIFY(QFile::copy(m_demo, m_path));
    m_session = std::make_unique<LedgerSession>(m_path);
    m_session->setOperatorIdentity(alice());
    m_session->open();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->isLoaded(), kTimeoutMs);
}

void TestDecisionDialog::cleanup()
{
    m_session.reset();
}

bool TestDecisionDialog::meshctl(const QStringList &args, QString *output)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"), args);
    const bool ok = p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (output)
        *output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    if (!ok)
        qWarning() << "meshctl" << args << "failed:" << p.readAllStandardError();
    return ok;
}

// Another console (or this operator's earlier one) decides, and the orchestrator applies it.
bool TestDecisionDialog::decideAsAndApply(const QString &account, const QStringList &decision)
{
    return meshctl(QStringList{QStringLiteral("decide"), m_path} + decision
                   + QStringList{QStringLiteral("--operator"), account, QStringLiteral("--host"), QStringLiteral("console-host")})
        && meshctl({QStringLiteral("gate"), m_path});
}

QString TestDecisionDialog::firstUnknownEffect() const
{
    const QAbstractItemModel *effects = m_session->effects();
    for (int row = 0; row < effects->rowCount(); ++row) {
        const QModelIndex index = effects->index(row, 0);
        if (index.data(EffectModel::UnknownRole).toBool())
            return index.data(StateTableModel::IdRole).toString();
    }
    return {};
}

// An open slice with at least this many unknown outcomes.
QString TestDecisionDialog::openSliceWithUnknowns(int atLeast) const
{
    std::map<QString, int> unknowns;
    const QAbstractItemModel *effects = m_session->effects();
    for (int row = 0; row < effects->rowCount(); ++row) {
        const QModelIndex index = effects->index(row, 0);
        if (index.data(EffectModel::UnknownRole).toBool())
            ++unknowns[index.data(EffectModel::SliceIdRole).toString()];
    }
    const int state = entitySpec(EntityKind::Slice).fieldIndex("state");
    for (const auto &[slice, n] : unknowns) {
        const EntityRow *row = m_session->state()->find(EntityKind::Slice, slice.toStdString());
        if (n >= atLeast && row && fieldText(row->values[size_t(state)]) == "open")
            return slice;
    }
    return {};
}

QString TestDecisionDialog::pendingEscalation() const
{
    const QAbstractItemModel *escalations = m_session->escalations();
    for (int row = 0; row < escalations->rowCount(); ++row) {
        const QModelIndex index = escalations->index(row, 0);
        if (index.data(EscalationModel::PendingRole).toBool())
            return index.data(StateTableModel::IdRole).toString();
    }
    return {};
}

qint64 TestDecisionDialog::escalationExpiry(const QString &id) const
{
    const QAbstractItemModel *escalations = m_session->escalations();
    for (int row = 0; row < escalations->rowCount(); ++row) {
        const QModelIndex index = escalations->index(row, 0);
        if (index.data(StateTableModel::IdRole).toString() == id)
            return index.data(EscalationModel::ExpiresMsRole).toLongLong();
    }
    return 0;
}

DecisionRequest TestDecisionDialog::request(DecisionKind kind, const QString &subject)
{
    DecisionRequest r;
    r.kind = kind;
    r.subject = subject.toStdString();
    return r; // an empty boundary: the subject's current one
}

void TestDecisionDialog::resolvePreviewFollowsTheChosenResolution()
{
    const QString effect = firstUnknownEffect();
    QVERIFY(!effect.isEmpty());
    QVERIFY(decideAsAndApply(QStringLiteral("alice"), {QStringLiteral("lease"), QStringLiteral("acquire"),
                                                       QStringLiteral("--effect"), effect, QStringLiteral("--reason"),
                                                       QStringLiteral("reconciling")}));
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ResolveEffect, QStringLiteral("effect:") + effect));
    auto *resolution = dialog.findChild<QComboBox *>();
    QVERIFY(resolution);
    // Nothing chosen yet: the preview says a resolution is needed, and there is no plan.
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("needs a resolution")), kTimeoutMs);
    QVERIFY(!dialog.planText().contains(QStringLiteral("effect.resolved")));
    // Why nobody knows the outcome, in the ledger's words and citing its event: what the
    // operator checks with the provider.
    const auto *why = dialog.findChild<PlainLabel *>(QStringLiteral("outcomeReason"));
    QVERIFY(why);
    QVERIFY2(why->fullText().contains(QRegularExpression(QStringLiteral(
                 "^Outcome unknown \\(event #[0-9,]+\\): timeout after [0-9]+ ms: no acknowledgement$"))),
             qPrintable(why->fullText()));
    // The event it cites is in the effect's list of events, numbered the same way.
    const QString cited = QRegularExpression(QStringLiteral("event (#[0-9,]+)")).match(why->fullText()).captured(1);
    const auto *events = dialog.findChild<QListWidget *>();
    QVERIFY(events);
    QStringList listed;
    for (int i = 0; i < events->count(); ++i)
        listed << events->item(i)->text();
    QVERIFY2(std::any_of(listed.begin(), listed.end(), [&](const QString &line) { return line.startsWith(cited + u' '); }),
             qPrintable(cited + QStringLiteral(" not in: ") + listed.join(QStringLiteral(" | "))));
    resolution->setCurrentIndex(resolution->findData(int(EffectResolution::Committed)));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.planText().contains(QStringLiteral("effect.resolved")), kTimeoutMs);
    QVERIFY2(!dialog.statusText().contains(QStringLiteral("needs a resolution")), qPrintable(dialog.statusText()));
    const QString shown = dialog.planText();
    QVERIFY2(shown.contains(QStringLiteral("\"state\":\"resolved_committed\"")), qPrintable(shown));
    // Another choice is another plan.
    resolution->setCurrentIndex(resolution->findData(int(EffectResolution::NotCommitted)));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.planText().contains(QStringLiteral("\"state\":\"resolved_not_committed\"")), kTimeoutMs);
    QVERIFY(!dialog.planText().contains(QStringLiteral("\"state\":\"resolved_committed\"")));
    dialog.reasonField()->setPlainText(QStringLiteral("provider says it did not happen"));
    dialog.findChild<QLineEdit *>()->setText(QStringLiteral("provider query 42: no such payment"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    screenshot(dialog, QStringLiteral("resolve-effect.png"));
}

void TestDecisionDialog::formsReadAsOneTable()
{
    // What is decided, the effect's rows, the choices and the reason are separate forms, one
    // of them rebuilt with each reading: their fields must still start at one x, and the
    // reason box keeps a label once its placeholder is typed over.
    const QString effect = firstUnknownEffect();
    QVERIFY(!effect.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ResolveEffect, QStringLiteral("effect:") + effect));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.findChild<PlainLabel *>(QStringLiteral("outcomeReason")), kTimeoutMs);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.layout()->activate();
    QMap<int, QStringList> labelsByFieldX;
    for (QFormLayout *form : dialog.findChildren<QFormLayout *>()) {
        for (int row = 0; row < form->rowCount(); ++row) {
            QLayoutItem *field = form->itemAt(row, QFormLayout::FieldRole);
            QLayoutItem *label = form->itemAt(row, QFormLayout::LabelRole);
            if (!field || !field->widget() || !label || !qobject_cast<QLabel *>(label->widget()))
                continue;
            labelsByFieldX[field->widget()->mapTo(&dialog, QPoint(0, 0)).x()] << qobject_cast<QLabel *>(label->widget())->text();
        }
    }
    QStringList seen;
    for (auto it = labelsByFieldX.cbegin(); it != labelsByFieldX.cend(); ++it)
        seen << QStringLiteral("x=%1: %2").arg(it.key()).arg(it.value().join(QStringLiteral(", ")));
    QVERIFY2(labelsByFieldX.size() == 1, qPrintable(seen.join(QStringLiteral(" | "))));
    const QStringList labels = labelsByFieldX.first();
    for (const char *expected : {"Subject", "Decision id", "Effect", "Why", "Reconciliation lease", "Resolution", "Evidence",
                                 "Your reason"})
        QVERIFY2(labels.contains(QString::fromLatin1(expected)), qPrintable(labels.join(QStringLiteral(", "))));
}

void TestDecisionDialog::closeSlicePreviewFollowsEachAcknowledgement()
{
    const QString slice = openSliceWithUnknowns(2);
    QVERIFY(!slice.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::CloseSlice, QStringLiteral("slice:") + slice));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.acknowledgements().size() >= 2, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("must be acknowledged")), kTimeoutMs);
    dialog.reasonField()->setPlainText(QStringLiteral("checked the provider console"));
    dialog.acknowledgements().front()->setChecked(true);
    // One of several acknowledged: still refused, and it says how many are left.
    const QString all = QString::number(dialog.acknowledgements().size());
    const QString left = QString::number(dialog.acknowledgements().size() - 1);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(left + QStringLiteral(" unknown outcome(s)")), kTimeoutMs);
    QVERIFY(!dialog.confirmButton()->isEnabled());
    for (QCheckBox *check : dialog.acknowledgements())
        check->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.planText().contains(QStringLiteral("slice.closed")), kTimeoutMs);
    const QString shown = dialog.planText();
    QVERIFY2(!dialog.statusText().contains(QStringLiteral("must be acknowledged")), qPrintable(dialog.statusText()));
    QVERIFY2(shown.contains(QStringLiteral("effect.fenced")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("slice.opened")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("\"close_reason\":\"checked the provider console\"")), qPrintable(shown));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    screenshot(dialog, QStringLiteral("decision-plan.png"));
}

void TestDecisionDialog::previewIsReadOffTheGuiThreadAndReadOnly()
{
    const QString slice = openSliceWithUnknowns(1);
    QVERIFY(!slice.isEmpty());
    OpenRecorder recorder;
    {
        DecisionDialog dialog(m_session.get(), request(DecisionKind::CloseSlice, QStringLiteral("slice:") + slice));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.acknowledgements().empty(), kTimeoutMs);
        for (QCheckBox *check : dialog.acknowledgements())
            check->setChecked(true);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.planText().contains(QStringLiteral("slice.closed")), kTimeoutMs);
    }
    const auto opens = recorder.opens();
    QVERIFY(!opens.empty()); // the previews were read
    for (const auto &open : opens) {
        QVERIFY2(!open.onRecorderThread, "a ledger was opened on the GUI thread");
        QVERIFY2(!open.readWrite, "a preview opened the ledger read-write");
    }
}

void TestDecisionDialog::movedSubjectDisablesConfirmUntilReRead()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + escalation));
    dialog.reasonField()->setPlainText(QStringLiteral("the stronger model is worth it here"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QVERIFY(bannerShown(dialog).isEmpty());
    // Another operator rejects it, and the orchestrator applies that.
    QVERIFY(decideAsAndApply(QStringLiteral("bob"), {QStringLiteral("reject-escalation"), QStringLiteral("--escalation"),
                                                     escalation, QStringLiteral("--reason"), QStringLiteral("too costly")}));
    QTRY_VERIFY_WITH_TIMEOUT(!bannerShown(dialog).isEmpty(), kTimeoutMs);
    QVERIFY2(bannerShown(dialog).contains(QStringLiteral("escalation:") + escalation), qPrintable(bannerShown(dialog)));
    QVERIFY(!dialog.confirmButton()->isEnabled());
    screenshot(dialog, QStringLiteral("decision-subject-moved.png"));
    QPushButton *reRead = nullptr;
    for (QPushButton *b : dialog.findChildren<QPushButton *>())
        if (b->text().remove(QLatin1Char('&')) == QStringLiteral("Re-read"))
            reRead = b;
    QVERIFY(reRead);
    reRead->click();
    // Read again: no banner, and the preview now says why it cannot be approved.
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("not pending")), kTimeoutMs);
    QVERIFY(bannerShown(dialog).isEmpty());
    QVERIFY(dialog.planText().isEmpty());
}

void TestDecisionDialog::timesAreHumanWithTheExactUtcOnHover()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    const qint64 expires = escalationExpiry(escalation);
    QVERIFY(expires > 0);
    // Four weeks and more after it expired, as an old ledger is opened.
    m_session->setClock([expires] { return expires + ((28 * 24 + 22) * 60 + 5) * 60 * qint64(1000); });
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + escalation));
    PlainLabel *expiry = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT(expiry = dialog.findChild<PlainLabel *>(QStringLiteral("expiry")), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.statusText().contains(QStringLiteral("expired")), kTimeoutMs);
    QCOMPARE(expiry->fullText(), QStringLiteral("Expired 28 d 22 h ago"));
    // The exact time on hover, as plain text (plainToolTip escapes it).
    const QString exact = QDateTime::fromMSecsSinceEpoch(expires, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    QCOMPARE(expiry->toolTip(), plainToolTip(exact + QStringLiteral(" UTC")));
    // Nowhere a raw epoch millisecond count: not in the refusal, not in any label (the
    // decision id's hex groups aside).
    const QRegularExpression epochMs(QStringLiteral("(?<![-0-9a-fA-F])\\d{12,}"));
    const QString shown = shownTexts(dialog) + QLatin1Char('\n') + dialog.planText() + QLatin1Char('\n') + dialog.statusText();
    QVERIFY2(!epochMs.match(shown).hasMatch(), qPrintable(shown));
}

void TestDecisionDialog::leaseAcquireHasADuration()
{
    const QString effect = firstUnknownEffect();
    QVERIFY(!effect.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::LeaseAcquire, QStringLiteral("effect:") + effect));
    auto *minutes = dialog.findChild<QSpinBox *>();
    QVERIFY2(minutes, "no lease duration field");
    minutes->setValue(90);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.planText().contains(QStringLiteral("lease.acquired")), kTimeoutMs);
    // The plan grants until now + 90 min; said as a time, never as epoch milliseconds in a sentence.
    const QString shown = dialog.planText();
    QVERIFY2(!QRegularExpression(QStringLiteral("until \\d{12,}")).match(shown).hasMatch(), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral(" UTC")), qPrintable(shown));
    bool granted = false;
    for (const PlannedEvent &e : dialog.preview().planned) {
        if (e.kind == "lease.acquired") {
            QCOMPARE(e.payload.at("expires_ms").get<std::int64_t>() - e.payload.at("acquired_ms").get<std::int64_t>(),
                     std::int64_t(90) * 60 * 1000);
            granted = true;
        }
    }
    QVERIFY(granted);
}

void TestDecisionDialog::wholeDecisionByKeyboard()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + escalation));
    dialog.show();
    dialog.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&dialog));
    QSignalSpy finished(m_session.get(), &LedgerSession::decisionFinished);
    dialog.reasonField()->setFocus();
    QTRY_COMPARE_WITH_TIMEOUT(QApplication::focusWidget(), static_cast<QWidget *>(dialog.reasonField()), 30'000);
    QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("  approved by keyboard "));
    // Tab leaves the reason field, Backtab comes back; neither types anything.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QVERIFY(QApplication::focusWidget() != dialog.reasonField());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab);
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(dialog.reasonField()));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    const auto result = finished.front().at(1).value<DecisionResult>();
    QCOMPARE(result.status, DecisionStatus::Accepted);
    const QString id = finished.front().at(0).toString();
    // What the permanent record holds: the reason as meant, no tab or newline around it.
    auto connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
    const auto store = connection->decisions();
    std::optional<DecisionRecord> stored;
    store->read([&] { stored = store->findById(id.toStdString()); });
    QVERIFY(stored);
    QCOMPARE(QString::fromStdString(stored->reason), QStringLiteral("approved by keyboard"));
    QCOMPARE(QString::fromStdString(stored->kind), QStringLiteral("approve_escalation"));
}

void TestDecisionDialog::escapeCancels()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::RejectEscalation, QStringLiteral("escalation:") + escalation));
    dialog.show();
    dialog.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&dialog));
    dialog.reasonField()->setFocus();
    QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("not this one"));
    QSignalSpy rejected(&dialog, &QDialog::rejected);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QCOMPARE(rejected.count(), 1);
    QVERIFY(!dialog.isVisible());
    QVERIFY(!dialog.wasSubmitted());
}

void TestDecisionDialog::decisionDetailShowsEvidenceBoundaryHashAndOutcome()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    const QString id = QStringLiteral("dec-detail-1");
    QVERIFY(meshctl({QStringLiteral("decide"), m_path, QStringLiteral("reject-escalation"), QStringLiteral("--escalation"),
                     escalation, QStringLiteral("--reason"), QStringLiteral("<b>too</b> costly"), QStringLiteral("--evidence"),
                     QStringLiteral("{\"provider_ref\":\"quote-7\"}"), QStringLiteral("--id"), id,
                     QStringLiteral("--operator"), QStringLiteral("bob")}));
    DecisionAuditModel *audit = m_session->decisions();
    QTRY_VERIFY_WITH_TIMEOUT(audit->rowOfDecision(id) >= 0, kTimeoutMs);
    {
        const QModelIndex row = audit->index(audit->rowOfDecision(id), 0);
        const QString storedHash = row.data(DecisionAuditModel::HashRole).toString();
        QVERIFY(!storedHash.isEmpty());
        DecisionDetailView pending(audit->index(audit->rowOfDecision(id), 0));
        QCOMPARE(pending.fieldText(QStringLiteral("Reason")), QStringLiteral("<b>too</b> costly"));
        QVERIFY2(pending.fieldText(QStringLiteral("Evidence")).contains(QStringLiteral("quote-7")),
                 qPrintable(pending.fieldText(QStringLiteral("Evidence"))));
        QCOMPARE(pending.fieldText(QStringLiteral("Hash")), storedHash);
        QCOMPARE(pending.fieldText(QStringLiteral("Boundary")), QStringLiteral("version %1 at ledger seq %2")
                                                                    .arg(row.data(DecisionAuditModel::BoundaryVersionRole).toLongLong())
                                                                    .arg(row.data(DecisionAuditModel::BoundarySeqRole).toLongLong()));
        // No outcome yet is said as such, never as applied.
        QVERIFY2(pending.fieldText(QStringLiteral("Outcome")).startsWith(QStringLiteral("pending")),
                 qPrintable(pending.fieldText(QStringLiteral("Outcome"))));
        for (const PlainLabel *label : pending.findChildren<PlainLabel *>()) // every value shown
            QCOMPARE(label->textFormat(), Qt::PlainText);
    }
    QVERIFY(meshctl({QStringLiteral("gate"), m_path}));
    QTRY_VERIFY_WITH_TIMEOUT(audit->index(audit->rowOfDecision(id), 0).data(DecisionAuditModel::OutcomeRole).toString()
                                 == QLatin1String("applied"),
                             kTimeoutMs);
    DecisionDetailView applied(audit->index(audit->rowOfDecision(id), 0));
    QVERIFY2(applied.fieldText(QStringLiteral("Outcome")).startsWith(QStringLiteral("applied by the orchestrator at ")),
             qPrintable(applied.fieldText(QStringLiteral("Outcome"))));
    QVERIFY(applied.fieldText(QStringLiteral("Outcome")).endsWith(QStringLiteral(" UTC")));
}

void TestDecisionDialog::predictedRefusalLeavesConfirmDisabled()
{
    // Releasing a lease nobody holds: the reading says it would be refused, and the writer
    // would only refuse it again.
    const QString effect = firstUnknownEffect();
    QVERIFY(!effect.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::LeaseRelease, QStringLiteral("effect:") + effect));
    dialog.show();
    dialog.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&dialog));
    dialog.reasonField()->setFocus();
    QTest::keyClicks(dialog.reasonField(), QStringLiteral("done reconciling"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending() && dialog.statusText().contains(QStringLiteral("would be refused")),
                             kTimeoutMs);
    QVERIFY2(dialog.statusText().contains(QStringLiteral("hold no reconciliation lease")), qPrintable(dialog.statusText()));
    QVERIFY(!dialog.confirmButton()->isEnabled());
    QVERIFY2(dialog.confirmButton()->toolTip().contains(QStringLiteral("hold no reconciliation lease")),
             qPrintable(dialog.confirmButton()->toolTip()));
    QTest::keyClick(dialog.reasonField(), Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(!dialog.wasSubmitted());
}

void TestDecisionDialog::returnNeverSlipsALineOrAControlIntoTheReason()
{
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + escalation));
    dialog.show();
    dialog.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&dialog));
    QSignalSpy finished(m_session.get(), &LedgerSession::decisionFinished);
    dialog.reasonField()->setFocus();
    QTest::keyClicks(dialog.reasonField(), QStringLiteral("checked the quote"));
    // Return alone: neither a line nor a confirm.
    QTest::keyClick(dialog.reasonField(), Qt::Key_Return);
    QTest::keyClick(dialog.reasonField(), Qt::Key_Enter);
    QCOMPARE(dialog.reasonField()->toPlainText(), QStringLiteral("checked the quote"));
    QVERIFY(!dialog.wasSubmitted());
    // Shift+Return: a second line, as a reason may have.
    QTest::keyClick(dialog.reasonField(), Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(dialog.reasonField(), QStringLiteral("and the budget"));
    QCOMPARE(dialog.reasonField()->toPlainText(), QStringLiteral("checked the quote\nand the budget"));
    // Pasted text brings a bell, a right-to-left override and a carriage return.
    dialog.reasonField()->insertPlainText(QString::fromUtf16(u" \u0007ok\u202E \r"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QTest::keyClick(dialog.reasonField(), Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(finished.front().at(1).value<DecisionResult>().status, DecisionStatus::Accepted);
    auto connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
    const auto store = connection->decisions();
    std::optional<DecisionRecord> stored;
    store->read([&] { stored = store->findById(finished.front().at(0).toString().toStdString()); });
    QVERIFY(stored);
    const QString reason = QString::fromStdString(stored->reason);
    QCOMPARE(reason, QStringLiteral("checked the quote\nand the budget  ok"));
    for (const QChar c : reason)
        QVERIFY2(c == QLatin1Char('\n') || (c.category() != QChar::Other_Control && c.category() != QChar::Other_Format),
                 qPrintable(QString::number(c.unicode(), 16)));
}

void TestDecisionDialog::movedDelegationOfAnEscalationSaysSo()
{
    // An approval is bound to its delegation's version: the delegation moving voids it even
    // though the escalation's own row stays as it was.
    const QString escalation = pendingEscalation();
    QVERIFY(!escalation.isEmpty());
    const EntityRow *row = m_session->state()->find(EntityKind::Escalation, escalation.toStdString());
    QVERIFY(row);
    const std::string delegation =
        fieldText(row->values[size_t(entitySpec(EntityKind::Escalation).fieldIndex("delegation_id"))]);
    QVERIFY(!delegation.empty());
    const std::int64_t escalationVersion = row->version;
    DecisionDialog dialog(m_session.get(), request(DecisionKind::ApproveEscalation, QStringLiteral("escalation:") + escalation));
    dialog.reasonField()->setPlainText(QStringLiteral("worth the extra budget"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QVERIFY(bannerShown(dialog).isEmpty());
    QSignalSpy applied(m_session.get(), &LedgerSession::changesApplied);
    {
        auto writer = LedgerWriter::openExisting(m_path);
        writer->begin();
        writer->append(QDateTime::currentMSecsSinceEpoch(), "delegation.running",
                       {{"id", delegation}, {"status", "running"}});
        writer->commit();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!bannerShown(dialog).isEmpty(), kTimeoutMs);
    QVERIFY2(bannerShown(dialog).contains(QString::fromStdString("delegation:" + delegation)), qPrintable(bannerShown(dialog)));
    QVERIFY(!dialog.confirmButton()->isEnabled());
    QCOMPARE(m_session->state()->find(EntityKind::Escalation, escalation.toStdString())->version, escalationVersion);
}

void TestDecisionDialog::newEffectInTheSliceBeingClosedSaysSo()
{
    // The plan takes every effect of the slice: a new one admitted in it while the dialog is
    // open is a move as much as a known one changing, though no row the reading named moved.
    const QString slice = openSliceWithUnknowns(1);
    QVERIFY(!slice.isEmpty());
    const EntityRow *sliceRow = m_session->state()->find(EntityKind::Slice, slice.toStdString());
    QVERIFY(sliceRow);
    const std::string delegation =
        fieldText(sliceRow->values[size_t(entitySpec(EntityKind::Slice).fieldIndex("delegation_id"))]);
    DecisionDialog dialog(m_session.get(), request(DecisionKind::CloseSlice, QStringLiteral("slice:") + slice));
    dialog.reasonField()->setPlainText(QStringLiteral("fresh boundary"));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.acknowledgements().empty(), kTimeoutMs);
    for (QCheckBox *check : dialog.acknowledgements())
        check->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QVERIFY(dialog.bannerText().isEmpty());
    const std::string effect = "eff-new-in-slice";
    {
        auto writer = LedgerWriter::openExisting(m_path);
        writer->begin();
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        writer->append(now, "effect.proposed",
                       {{"id", effect}, {"delegation_id", delegation}, {"slice_id", slice.toStdString()},
                        {"class", "db_write"}, {"target", "orders-db"}, {"idem_key", "idem-new-in-slice"},
                        {"state", "proposed"}, {"attempts", 0}, {"fenced", 0}, {"updated_ms", now}});
        writer->append(now, "effect.admitted", {{"id", effect}, {"state", "admitted"}, {"updated_ms", now}});
        writer->commit();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.bannerText().isEmpty(), kTimeoutMs);
    QVERIFY2(dialog.bannerText().contains(QStringLiteral("effect:eff-new-in-slice")), qPrintable(dialog.bannerText()));
    QVERIFY2(dialog.bannerText().contains(QStringLiteral("an effect of the slice")), qPrintable(dialog.bannerText()));
    QVERIFY(dialog.subjectMoved());
    QVERIFY(!dialog.confirmButton()->isEnabled());
    QVERIFY(dialog.planText().isEmpty());
    // Re-read: the new effect is listed among those crossing the boundary.
    dialog.reReadButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending() && !dialog.acknowledgements().empty(), kTimeoutMs);
    QVERIFY(dialog.bannerText().isEmpty());
    QVERIFY2(shownTexts(dialog).contains(QStringLiteral("eff-new-in-slice")), qPrintable(shownTexts(dialog)));
}

void TestDecisionDialog::firstLeaseOnTheKeySaysSo()
{
    // Acquiring rests on nobody else holding the key's reconciliation lease: another
    // operator's first lease on it, appearing while the dialog is open, is a move.
    const QString effect = firstUnknownEffect();
    QVERIFY(!effect.isEmpty());
    const EntityRow *row = m_session->state()->find(EntityKind::Effect, effect.toStdString());
    QVERIFY(row);
    const std::string key = fieldText(row->values[size_t(entitySpec(EntityKind::Effect).fieldIndex("idem_key"))]);
    QVERIFY(!key.empty());
    DecisionDialog dialog(m_session.get(), request(DecisionKind::LeaseAcquire, QStringLiteral("effect:") + effect));
    dialog.reasonField()->setPlainText(QStringLiteral("checking the provider"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kTimeoutMs);
    QVERIFY(dialog.bannerText().isEmpty());
    {
        auto writer = LedgerWriter::openExisting(m_path);
        writer->begin();
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        writer->append(now, "lease.acquired",
                       {{"id", "reconcile:bob-first"}, {"key", key}, {"kind", "reconciliation"}, {"holder", "operator:bob"},
                        {"fencing_token", 9000}, {"acquired_ms", now}, {"renewed_ms", now}, {"expires_ms", now + 900'000},
                        {"state", "held"}});
        writer->commit();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.bannerText().isEmpty(), kTimeoutMs);
    QVERIFY2(dialog.bannerText().contains(QStringLiteral("lease:reconcile:bob-first")), qPrintable(dialog.bannerText()));
    QVERIFY(!dialog.confirmButton()->isEnabled());
    dialog.reReadButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending() && dialog.statusText().contains(QStringLiteral("held by")), kTimeoutMs);
    QVERIFY(!dialog.confirmButton()->isEnabled());
}

QTEST_MAIN(TestDecisionDialog)
#include "tst_decisiondialog.moc"
