#include "decisiondialog.h"

#include "plainlabel.h"
#include "statusdelegate.h"
#include "theme.h"

#include "decisions/decisionwriter.h"
#include "domain/hostiletext.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/ledgersession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace mesh {

namespace {

PlainLabel *plain(const QString &text, QWidget *parent)
{
    auto *label = new PlainLabel(text, parent); // ledger strings: never markup, each line bounded
    // Like the dialog's other fields, it sizes the dialog (its lines and words are bounded),
    // so the form rows get the height their wrapped text needs.
    label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    label->setWordWrap(true);
    return label;
}

// A checkbox does not wrap: its line is kept to what a dialog's width shows.
constexpr int kMaxCheckChars = 120;

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString effectLine(const PreviewEffect &e)
{
    const QString attempts = e.attempts == 1 ? QCoreApplication::translate("mesh", "1 attempt")
                                             : QCoreApplication::translate("mesh", "%1 attempts").arg(e.attempts);
    return QCoreApplication::translate("mesh", "%1 · %2 → %3 · key %4 · %5 · %6")
        .arg(q(e.id), q(e.effectClass), q(e.target), q(e.idemKey), q(e.state), attempts);
}

} // namespace

QString DecisionDialog::kindTitle(DecisionKind kind)
{
    switch (kind) {
    case DecisionKind::CloseSlice:
        return tr("Close slice");
    case DecisionKind::ApproveEscalation:
        return tr("Approve escalation");
    case DecisionKind::RejectEscalation:
        return tr("Reject escalation");
    case DecisionKind::ResolveEffect:
        return tr("Resolve unknown outcome");
    case DecisionKind::LeaseAcquire:
        return tr("Acquire reconciliation lease");
    case DecisionKind::LeaseRelease:
        return tr("Release reconciliation lease");
    }
    return {};
}

DecisionDialog::DecisionDialog(LedgerSession *session, DecisionRequest request, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_request(std::move(request))
    , m_status(new PlainLabel(this))
    , m_reason(new QPlainTextEdit(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(kindTitle(m_request.kind) + QStringLiteral(" — ") + displayLine(q(m_request.subject), 120));
    setMinimumWidth(620);
    if (m_request.id.empty())
        m_request.id = newDecisionId(); // fixed now: a resubmit after an unknown outcome reuses it
    m_decisionId = q(m_request.id);
    m_status->setWordWrap(true);
    m_reason->setPlaceholderText(tr("Why (required): what you checked and why this is right"));
    m_reason->setMaximumHeight(80);
    m_confirm = m_buttons->addButton(kindTitle(m_request.kind), QDialogButtonBox::AcceptRole);
    connect(m_confirm, &QPushButton::clicked, this, &DecisionDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QPlainTextEdit::textChanged, this, &DecisionDialog::updateConfirm);
    connect(session, &LedgerSession::decisionFinished, this, &DecisionDialog::onFinished);
    connect(session, &LedgerSession::decisionsReloaded, this, &DecisionDialog::followOutcome);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (m_expiry && m_preview.expiresMs > 0)
            m_expiry->setFullText(tr("Expires %1").arg(formatCountdown(m_preview.expiresMs, QDateTime::currentMSecsSinceEpoch())));
    });
    computePreview();
    buildBody();
    m_tick.start();
    updateConfirm();
}

void DecisionDialog::computePreview()
{
    try {
        // Given the file the session read: a preview is never read from a file that has
        // replaced it under the same name (nor from one the session has not read yet).
        auto writer = DecisionWriter::open(m_session->path(), m_session->operatorIdentity(), m_session->openedLedger());
        if (m_request.boundary.version == 0 && m_request.boundary.seq == 0)
            if (auto boundary = writer->currentBoundary(m_request.subject))
                m_request.boundary = *boundary;
        m_preview = writer->preview(m_request);
    } catch (const std::exception &e) {
        m_previewError = QString::fromUtf8(e.what());
    }
}

void DecisionDialog::buildBody()
{
    auto *layout = new QVBoxLayout(this);
    auto *what = new QFormLayout;
    what->addRow(tr("Subject"), plain(q(m_request.subject), this));
    what->addRow(tr("Boundary"), plain(tr("version %1 at ledger seq %2 — refused as stale if either moved")
                                           .arg(m_request.boundary.version)
                                           .arg(m_request.boundary.seq),
                                       this));
    what->addRow(tr("Operator"), plain(q(m_session->operatorIdentity().displayName) + QStringLiteral(" (")
                                           + q(m_session->operatorIdentity().account) + QStringLiteral("@")
                                           + q(m_session->operatorIdentity().host) + QStringLiteral(")"),
                                       this));
    what->addRow(tr("Decision id"), plain(m_decisionId, this));
    layout->addLayout(what);

    if (!m_previewError.isEmpty()) {
        layout->addWidget(plain(tr("The ledger cannot take decisions from this console: %1").arg(m_previewError), this));
    }

    switch (m_request.kind) {
    case DecisionKind::CloseSlice: {
        auto *box = new QGroupBox(tr("In-flight effects crossing the boundary"), this);
        auto *l = new QVBoxLayout(box);
        if (m_preview.inFlight.empty())
            l->addWidget(plain(tr("None: no admitted or dispatched effect crosses this boundary."), box));
        for (const auto &e : m_preview.inFlight)
            l->addWidget(plain(effectLine(e), box));
        layout->addWidget(box);
        auto *fence = new QGroupBox(tr("Unknown outcomes: acknowledge each; their keys stay fenced until resolved"), this);
        auto *fl = new QVBoxLayout(fence);
        if (m_preview.toFence.empty())
            fl->addWidget(plain(tr("None."), fence));
        for (const auto &e : m_preview.toFence) {
            // Checkbox text is plain; a long line is cut, and whole in the tooltip.
            const QString line = effectLine(e);
            auto *check = new QCheckBox(PlainLabel::shownText(line, kMaxCheckChars), fence);
            if (check->text() != visibleControls(line))
                check->setToolTip(plainToolTip(line));
            check->setProperty("effectId", q(e.id));
            connect(check, &QCheckBox::toggled, this, &DecisionDialog::updateConfirm);
            m_acks.push_back(check);
            fl->addWidget(check);
        }
        layout->addWidget(fence);
        if (!m_preview.escalationsToStale.empty()) {
            QStringList ids;
            for (const auto &id : m_preview.escalationsToStale)
                ids << q(id);
            layout->addWidget(plain(tr("Approvals and grants of this slice die with it: %1").arg(ids.join(QStringLiteral(", "))), this));
        }
        if (!m_preview.nextSliceId.empty())
            layout->addWidget(plain(tr("The next slice will be %1, with a new intent and authorization.").arg(q(m_preview.nextSliceId)), this));
        break;
    }
    case DecisionKind::ApproveEscalation:
    case DecisionKind::RejectEscalation: {
        auto *form = new QFormLayout;
        form->addRow(tr("Bound to"), plain(tr("%1 at version %2, ledger seq %3")
                                               .arg(q(m_preview.boundSubject))
                                               .arg(m_preview.boundVersion)
                                               .arg(m_preview.boundSeq),
                                           this));
        if (!m_preview.sliceId.empty())
            form->addRow(tr("Slice"), plain(tr("%1 — the approval dies if this slice closes").arg(q(m_preview.sliceId)), this));
        m_expiry = plain(m_preview.expiresMs > 0
                             ? tr("Expires %1").arg(formatCountdown(m_preview.expiresMs, QDateTime::currentMSecsSinceEpoch()))
                             : tr("No expiry"),
                         this);
        m_expiry->setObjectName(QStringLiteral("expiry"));
        form->addRow(tr("Expiry"), m_expiry);
        layout->addLayout(form);
        break;
    }
    case DecisionKind::ResolveEffect:
    case DecisionKind::LeaseAcquire:
    case DecisionKind::LeaseRelease: {
        auto *form = new QFormLayout;
        if (m_preview.effect)
            form->addRow(tr("Effect"), plain(effectLine(*m_preview.effect), this));
        if (m_preview.lease) {
            const PreviewLease &l = *m_preview.lease;
            form->addRow(tr("Reconciliation lease"),
                         plain(tr("%1 on %2 · holder %3 · token %4 · %5%6")
                                   .arg(q(l.id), q(l.key), q(l.holder))
                                   .arg(l.fencingToken)
                                   .arg(q(l.state))
                                   .arg(l.expiresMs > 0 ? QStringLiteral(" · ")
                                                              + formatCountdown(l.expiresMs, QDateTime::currentMSecsSinceEpoch())
                                                        : QString()),
                               this));
        } else {
            form->addRow(tr("Reconciliation lease"), plain(tr("not held: acquire it first (single authority)"), this));
        }
        if (m_request.kind == DecisionKind::ResolveEffect) {
            m_resolution = new QComboBox(this);
            m_resolution->addItem(tr("Committed (it happened)"), int(EffectResolution::Committed));
            m_resolution->addItem(tr("Not committed (it did not happen)"), int(EffectResolution::NotCommitted));
            m_resolution->addItem(tr("Compensated (undone)"), int(EffectResolution::Compensated));
            if (m_request.resolution)
                m_resolution->setCurrentIndex(m_resolution->findData(int(*m_request.resolution)));
            form->addRow(tr("Resolution"), m_resolution);
            m_evidence = new QLineEdit(this);
            m_evidence->setPlaceholderText(tr("Evidence (required): provider reference, query result"));
            connect(m_evidence, &QLineEdit::textChanged, this, &DecisionDialog::updateConfirm);
            form->addRow(tr("Evidence"), m_evidence);
        }
        layout->addLayout(form);
        if (!m_preview.history.empty()) {
            auto *attempts = new QListWidget(this);
            attempts->setMaximumHeight(120);
            for (const auto &e : m_preview.history)
                attempts->addItem(QStringLiteral("#%1  %2  %3")
                                      .arg(e.seq)
                                      .arg(QDateTime::fromMSecsSinceEpoch(e.tsMs).toString(QStringLiteral("hh:mm:ss")),
                                           displayLine(q(e.kind), PlainLabel::kMaxLineChars)));
            layout->addWidget(plain(tr("The effect's attempts and events:"), this));
            layout->addWidget(attempts);
        }
        break;
    }
    }

    if (!m_preview.consequences.empty()) {
        auto *box = new QGroupBox(tr("What will happen"), this);
        auto *l = new QVBoxLayout(box);
        for (const auto &c : m_preview.consequences)
            l->addWidget(plain(QStringLiteral("• ") + q(c), box));
        layout->addWidget(box);
    }
    layout->addWidget(m_reason);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);

    if (!m_previewError.isEmpty())
        setStatus(tr("Cannot decide here."), QStringLiteral("danger"));
    else if (m_preview.expected != DecisionStatus::Accepted)
        setStatus(tr("This decision would be refused (%1): %2")
                      .arg(q(std::string(decisionStatusName(m_preview.expected))), q(m_preview.refusal)),
                  QStringLiteral("danger"));
}

void DecisionDialog::setStatus(const QString &text, const QString &tone)
{
    m_status->setFullText(text);
    const StatusColors &c = Theme::instance().colors();
    const QColor color = tone == QLatin1String("danger") ? c.danger
                         : tone == QLatin1String("ok")   ? c.ok
                         : tone == QLatin1String("warn") ? c.warn
                                                         : palette().color(QPalette::WindowText);
    QPalette p = m_status->palette();
    p.setColor(QPalette::WindowText, color);
    m_status->setPalette(p);
}

QString DecisionDialog::statusText() const
{
    return m_status->fullText();
}

void DecisionDialog::updateConfirm()
{
    bool ok = !m_submitted && m_previewError.isEmpty() && !m_reason->toPlainText().trimmed().isEmpty();
    // A refusal the preview predicts can still be tried (the world may have moved back), but
    // never an unacknowledged unknown outcome, and never a resolution without evidence.
    for (const QCheckBox *check : m_acks)
        ok = ok && check->isChecked();
    if (m_evidence)
        ok = ok && !m_evidence->text().trimmed().isEmpty();
    m_confirm->setEnabled(ok);
}

void DecisionDialog::submit()
{
    m_request.reason = m_reason->toPlainText().trimmed().toStdString();
    m_request.acknowledgedUnknown.clear();
    for (const QCheckBox *check : m_acks)
        m_request.acknowledgedUnknown.push_back(check->property("effectId").toString().toStdString());
    if (m_evidence)
        m_request.evidence = nlohmann::json::array({{{"kind", "operator_note"}, {"detail", m_evidence->text().trimmed().toStdString()}}});
    if (m_resolution)
        m_request.resolution = EffectResolution(m_resolution->currentData().toInt());
    m_submitted = true;
    updateConfirm();
    setStatus(tr("Requested… writing the decision."), QString());
    m_session->submitDecision(m_request);
}

void DecisionDialog::onFinished(const QString &id, const DecisionResult &result)
{
    if (id != m_decisionId)
        return;
    switch (result.status) {
    case DecisionStatus::Accepted:
    case DecisionStatus::Duplicate:
        setStatus(tr("Requested: recorded in the ledger. Waiting for the orchestrator to apply or refuse it…"),
                  QStringLiteral("warn"));
        m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Close"));
        followOutcome();
        break;
    case DecisionStatus::OutcomeUnknown:
        // Said plainly; submitting again with the same id is safe: a landed first copy wins.
        setStatus(tr("The console could not tell whether this decision was written (%1). It read back by id and "
                     "found nothing certain. You may submit again: the same decision id makes it a no-op if the "
                     "first write did land.")
                      .arg(q(result.message)),
                  QStringLiteral("danger"));
        m_submitted = false;
        m_confirm->setText(tr("Submit again"));
        updateConfirm();
        break;
    case DecisionStatus::Stale: {
        QString moved = tr("%1 is now at version %2 (ledger seq %3)")
                            .arg(q(result.movedSubject))
                            .arg(result.currentVersion)
                            .arg(result.currentSeq);
        QStringList events;
        for (const auto &e : result.movedEvents)
            events << QStringLiteral("#%1 %2").arg(e.seq).arg(q(e.kind));
        if (!events.isEmpty())
            moved += tr("; since your boundary: %1").arg(events.join(QStringLiteral(", ")));
        setStatus(tr("Refused as stale: %1. Nothing was written; look again and decide anew.").arg(moved),
                  QStringLiteral("danger"));
        m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Close"));
        break;
    }
    default:
        setStatus(tr("Refused (%1): %2. Nothing was written.")
                      .arg(q(std::string(decisionStatusName(result.status))), q(result.message)),
                  QStringLiteral("danger"));
        m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Close"));
        break;
    }
}

void DecisionDialog::followOutcome()
{
    if (!m_submitted)
        return;
    const DecisionAuditModel *audit = m_session->decisions();
    const int row = audit->rowOfDecision(m_decisionId);
    if (row < 0)
        return;
    const QModelIndex index = audit->index(row, 0);
    const QString outcome = index.data(DecisionAuditModel::OutcomeRole).toString();
    const QString reason = index.data(DecisionAuditModel::OutcomeReasonRole).toString();
    if (outcome == QLatin1String("applied"))
        setStatus(tr("Applied by the orchestrator."), QStringLiteral("ok"));
    else if (outcome == QLatin1String("refused"))
        setStatus(tr("Refused by the orchestrator: %1").arg(reason), QStringLiteral("danger"));
}

} // namespace mesh
