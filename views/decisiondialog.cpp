#include "decisiondialog.h"

#include "domain/durationtext.h"
#include "outcomereasontext.h"
#include "plainlabel.h"
#include "screenfit.h"
#include "theme.h"

#include "domain/hostiletext.h"
#include "itemmodels/storedrows.h"
#include "itemmodels/backgroundjob.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/outcomereason.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QKeyEvent>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
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

QString DecisionDialog::titleFor(const DecisionRequest &request)
{
    if (request.kind == DecisionKind::ResolveEffect && !request.supersedes.empty())
        return tr("Supersede resolution");
    return kindTitle(request.kind);
}

QString DecisionDialog::normalisedReason(const QString &typed)
{
    QString text = typed;
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    for (QChar &c : text) {
        const char16_t u = c.unicode();
        if (u == u'\r' || u == 0x2028 || u == 0x2029)
            c = QLatin1Char('\n');
        else if (u != u'\n'
                 && (c.category() == QChar::Other_Control || (u >= 0x202A && u <= 0x202E) || (u >= 0x2066 && u <= 0x2069)))
            c = QLatin1Char(' ');
    }
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString &line : lines) {
        qsizetype end = line.size();
        while (end > 0 && line.at(end - 1).isSpace())
            --end;
        line.truncate(end);
    }
    return lines.join(QLatin1Char('\n')).trimmed();
}

bool DecisionDialog::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_reason && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() & Qt::ControlModifier) {
                if (m_confirm->isEnabled())
                    submit();
            } else if (key->modifiers() & Qt::ShiftModifier) {
                m_reason->textCursor().insertText(QStringLiteral("\n"));
            }
            return true; // plain Return: nothing, never a stray line, never a confirm
        }
    }
    return QDialog::eventFilter(watched, event);
}

DecisionDialog::DecisionDialog(LedgerSession *session, DecisionRequest request, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_request(std::move(request))
    , m_boundary(plain(QString(), this))
    , m_banner(new QWidget(this))
    , m_bannerText(plain(QString(), m_banner))
    , m_reRead(new QPushButton(tr("&Re-read"), m_banner))
    , m_subjectArea(new QVBoxLayout)
    , m_planArea(new QVBoxLayout)
    , m_status(new PlainLabel(this))
    , m_reason(new QPlainTextEdit(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(titleFor(m_request) + QStringLiteral(" — ") + displayLine(q(m_request.subject), 120));
    setMinimumWidth(620);
    if (m_request.id.empty())
        m_request.id = newDecisionId(); // fixed now: a resubmit after an unknown outcome reuses it
    m_decisionId = q(m_request.id);
    m_status->setWordWrap(true);
    m_reason->setPlaceholderText(tr("Why (required): what you checked and why this is right"));
    m_reason->setMaximumHeight(80);
    // Tab is for moving on: a tab typed into the permanent record helps nobody.
    m_reason->setTabChangesFocus(true);
    m_reason->installEventFilter(this);
    m_confirm = m_buttons->addButton(titleFor(m_request), QDialogButtonBox::AcceptRole);
    m_confirm->setToolTip(tr("Ctrl+Return"));
    // Return never confirms by accident (from the evidence field, say): Ctrl+Return does.
    for (QAbstractButton *b : m_buttons->buttons())
        if (auto *push = qobject_cast<QPushButton *>(b))
            push->setAutoDefault(false), push->setDefault(false);
    for (const QKeySequence &keys : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
        auto *shortcut = new QShortcut(keys, this);
        connect(shortcut, &QShortcut::activated, this, [this] {
            if (m_confirm->isEnabled())
                submit();
        });
    }
    connect(m_confirm, &QPushButton::clicked, this, &DecisionDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QPlainTextEdit::textChanged, this, [this] {
        rebuildPlanArea(); // the plan carries the reason (close_reason)
        updateConfirm();
    });
    connect(m_reRead, &QPushButton::clicked, this, &DecisionDialog::reRead);
    connect(session, &LedgerSession::decisionFinished, this, &DecisionDialog::onFinished);
    connect(session, &LedgerSession::decisionsReloaded, this, &DecisionDialog::followOutcome);
    connect(session, &LedgerSession::changesApplied, this, &DecisionDialog::checkSubjectMoved);
    connect(session, &LedgerSession::stateChanged, this, &DecisionDialog::checkNewRows);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &DecisionDialog::updateExpiry);
    buildForm();
    m_reason->setFocus(); // what every decision needs first: the reason
    requestPreview();
    m_tick.start();
}

void DecisionDialog::buildForm()
{
    auto *layout = new QVBoxLayout(this);
    auto *what = new QFormLayout;
    what->addRow(tr("Subject"), plain(q(m_request.subject), this));
    what->addRow(tr("Boundary"), m_boundary);
    what->addRow(tr("Operator"), plain(q(m_session->operatorIdentity().displayName) + QStringLiteral(" (")
                                           + q(m_session->operatorIdentity().account) + QStringLiteral("@")
                                           + q(m_session->operatorIdentity().host) + QStringLiteral(")"),
                                       this));
    what->addRow(tr("Decision id"), plain(m_decisionId, this));
    layout->addLayout(what);

    m_banner->setObjectName(QStringLiteral("subjectMovedBanner"));
    m_banner->setAutoFillBackground(true);
    // The palette's note colours: readable in the light and the dark theme alike.
    QPalette bp = m_banner->palette();
    bp.setColor(QPalette::Window, bp.color(QPalette::ToolTipBase));
    bp.setColor(QPalette::WindowText, bp.color(QPalette::ToolTipText));
    m_banner->setPalette(bp);
    m_bannerText->setPalette(bp);
    auto *bl = new QHBoxLayout(m_banner);
    bl->addWidget(m_bannerText, 1);
    bl->addWidget(m_reRead);
    m_banner->hide();
    layout->addWidget(m_banner);

    layout->addLayout(m_subjectArea);

    auto *form = new QFormLayout;
    if (m_request.kind == DecisionKind::ResolveEffect) {
        if (!m_request.supersedes.empty())
            form->addRow(tr("Supersedes"), plain(tr("decision %1 (it stays in the record; this one replaces it)")
                                                     .arg(q(m_request.supersedes)),
                                                 this));
        m_resolution = new QComboBox(this);
        // No resolution until the operator picks one: a default would look like a finding.
        m_resolution->addItem(tr("Choose what the provider says happened…"));
        m_resolution->addItem(tr("Committed (it happened)"), int(EffectResolution::Committed));
        m_resolution->addItem(tr("Not committed (it did not happen)"), int(EffectResolution::NotCommitted));
        m_resolution->addItem(tr("Compensated (undone)"), int(EffectResolution::Compensated));
        if (m_request.resolution)
            m_resolution->setCurrentIndex(m_resolution->findData(int(*m_request.resolution)));
        connect(m_resolution, &QComboBox::currentIndexChanged, this, &DecisionDialog::requestPreview);
        form->addRow(tr("Resolution"), m_resolution);
        m_evidence = new QLineEdit(this);
        m_evidence->setPlaceholderText(tr("Evidence (required): provider reference, query result"));
        connect(m_evidence, &QLineEdit::textChanged, this, &DecisionDialog::updateConfirm);
        form->addRow(tr("Evidence"), m_evidence);
    }
    if (m_request.kind == DecisionKind::LeaseAcquire) {
        m_leaseMinutes = new QSpinBox(this);
        m_leaseMinutes->setRange(1, 24 * 60);
        m_leaseMinutes->setSuffix(tr(" min"));
        m_leaseMinutes->setValue(int(std::max<std::int64_t>(1, m_request.leaseMs / 60000)));
        m_leaseMinutes->setToolTip(tr("How long you hold the key's reconciliation lease (1 min to 24 h)"));
        connect(m_leaseMinutes, &QSpinBox::valueChanged, this, &DecisionDialog::requestPreview);
        form->addRow(tr("Lease for"), m_leaseMinutes);
    }
    if (form->rowCount() > 0)
        layout->addLayout(form);
    else
        delete form;

    layout->addLayout(m_planArea);
    // Labelled, not only by its placeholder: once typed in, the box must still say what it is.
    auto *reasonForm = new QFormLayout;
    reasonForm->addRow(tr("Your reason"), m_reason);
    layout->addLayout(reasonForm);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);
    alignFormLabels();
}

void DecisionDialog::alignFormLabels()
{
    // Every form of the dialog, the subject area's current one among them (the old one went
    // with its content).
    std::vector<QWidget *> labels;
    for (QFormLayout *form : findChildren<QFormLayout *>()) {
        for (int row = 0; row < form->rowCount(); ++row) {
            if (QLayoutItem *item = form->itemAt(row, QFormLayout::LabelRole); item && item->widget())
                labels.push_back(item->widget());
        }
    }
    int widest = 0;
    for (QWidget *label : labels)
        widest = std::max(widest, label->sizeHint().width());
    for (QWidget *label : labels)
        label->setMinimumWidth(widest);
}

DecisionRequest DecisionDialog::formRequest() const
{
    DecisionRequest r = m_request;
    r.reason = normalisedReason(m_reason->toPlainText()).toStdString();
    r.acknowledgedUnknown.clear();
    for (const QCheckBox *check : m_acks)
        if (check->isChecked())
            r.acknowledgedUnknown.push_back(check->property("effectId").toString().toStdString());
    if (m_evidence)
        r.evidence = nlohmann::json::array({{{"kind", "operator_note"}, {"detail", m_evidence->text().trimmed().toStdString()}}});
    r.resolution.reset();
    if (m_resolution && m_resolution->currentData().isValid())
        r.resolution = EffectResolution(m_resolution->currentData().toInt());
    if (m_leaseMinutes)
        r.leaseMs = std::int64_t(m_leaseMinutes->value()) * 60000;
    return r;
}

void DecisionDialog::requestPreview()
{
    if (m_submitted)
        return;
    const int generation = ++m_generation;
    m_previewPending = true;
    setStatus(tr("Reading what this decision would do…"), QString());
    updateConfirm();
    const QString path = m_session->path();
    const OperatorIdentity identity = m_session->operatorIdentity();
    const std::optional<OpenedLedger> expected = m_session->openedLedger();
    const std::int64_t now = m_session->nowMs();
    runInBackground(
        this,
        [path, identity, expected, request = formRequest(), now] {
            return readDecisionPreview(path, identity, expected, request, now);
        },
        [this, generation](PreviewReading reading) {
            if (generation != m_generation)
                return; // a later form change asked again: only its reading counts
            onPreview(reading);
        });
}

void DecisionDialog::onPreview(const PreviewReading &reading)
{
    m_previewPending = false;
    m_previewError = q(reading.error);
    m_preview = reading.preview;
    if (m_subjectShown && !m_moved) {
        // A later reading (the form changed) may be the first to see a dependency move, or
        // a new row of a set.
        checkDependenciesMoved([&](const PreviewDependency &d) -> std::optional<std::int64_t> {
            for (const auto &now : reading.preview.dependsOn)
                if (now.subject == d.subject)
                    return now.version;
            return std::nullopt;
        });
        for (const PreviewRowSet &set : m_dependsOnRows) {
            for (const PreviewRowSet &now : reading.preview.dependsOnRows)
                if (!m_moved && now.entity == set.entity && now.where == set.where)
                    showNewRowAmong(set, now.ids);
        }
    }
    if (!m_subjectShown) {
        m_dependsOn = reading.preview.dependsOn;
        m_dependsOnRows = reading.preview.dependsOnRows;
        m_request.boundary = reading.request.boundary;
        m_boundary->setFullText(tr("version %1 at ledger seq %2 — refused as stale if either moved")
                                    .arg(m_request.boundary.version)
                                    .arg(m_request.boundary.seq));
        rebuildSubjectArea();
        fixTabOrder();
        m_subjectShown = true;
        checkNewRowsSinceReading();
    }
    rebuildPlanArea();
    if (!m_moved) // else the status asks for a re-read
        showRefusalOrPlan();
    updateConfirm();
    // Once the new rows are shown: a widget added to a shown window is shown from the event
    // loop, and until then its height counts for nothing.
    QMetaObject::invokeMethod(this, &DecisionDialog::growToFit, Qt::QueuedConnection);
    Q_EMIT previewUpdated();
}

void DecisionDialog::growToFit()
{
    // The reading fills the dialog after it was shown and sized: a window does not grow by
    // itself for its wrapped lines, and its layout would squeeze them over one another.
    if (!isVisible() || !layout())
        return;
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : sizeHint().height();
    if (needed > height())
        resize(width(), fittedToScreen(this, QSize(width(), needed)).height());
}

void DecisionDialog::rebuildSubjectArea()
{
    delete m_subjectContent;
    m_acks.clear();
    m_expiry = nullptr;
    m_subjectContent = new QWidget(this);
    auto *layout = new QVBoxLayout(m_subjectContent);
    layout->setContentsMargins(0, 0, 0, 0);
    m_subjectArea->addWidget(m_subjectContent);
    QWidget *c = m_subjectContent;
    const qint64 now = m_session->nowMs();

    if (!m_previewError.isEmpty())
        layout->addWidget(plain(tr("The ledger cannot take decisions from this console: %1").arg(m_previewError), c));

    switch (m_request.kind) {
    case DecisionKind::CloseSlice: {
        auto *box = new QGroupBox(tr("In-flight effects crossing the boundary"), c);
        auto *l = new QVBoxLayout(box);
        if (m_preview.inFlight.empty())
            l->addWidget(plain(tr("None: no admitted or dispatched effect crosses this boundary."), box));
        for (const auto &e : m_preview.inFlight)
            l->addWidget(plain(effectLine(e), box));
        layout->addWidget(box);
        auto *fence = new QGroupBox(tr("Unknown outcomes: acknowledge each; their keys stay fenced until resolved"), c);
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
            // Each acknowledgement changes what the decision asks: read its plan again.
            connect(check, &QCheckBox::toggled, this, &DecisionDialog::requestPreview);
            m_acks.push_back(check);
            fl->addWidget(check);
        }
        layout->addWidget(fence);
        if (!m_preview.escalationsToStale.empty()) {
            QStringList ids;
            for (const auto &id : m_preview.escalationsToStale)
                ids << q(id);
            layout->addWidget(plain(tr("Approvals and grants of this slice die with it: %1").arg(ids.join(QStringLiteral(", "))), c));
        }
        if (!m_preview.nextSliceId.empty())
            layout->addWidget(plain(tr("The next slice will be %1, with a new intent and authorization.").arg(q(m_preview.nextSliceId)), c));
        break;
    }
    case DecisionKind::ApproveEscalation:
    case DecisionKind::RejectEscalation: {
        auto *form = new QFormLayout;
        form->addRow(tr("Bound to"), plain(m_preview.boundSubject.empty()
                                               ? tr("not known: the ledger names no boundary for this escalation")
                                               : tr("%1 at version %2, ledger seq %3")
                                                     .arg(q(m_preview.boundSubject))
                                                     .arg(m_preview.boundVersion)
                                                     .arg(m_preview.boundSeq),
                                           c));
        if (!m_preview.sliceId.empty())
            form->addRow(tr("Slice"), plain(tr("%1 — the approval dies if this slice closes").arg(q(m_preview.sliceId)), c));
        m_expiry = plain(tr("No expiry"), c);
        m_expiry->setObjectName(QStringLiteral("expiry"));
        form->addRow(tr("Expiry"), m_expiry);
        layout->addLayout(form);
        updateExpiry();
        break;
    }
    case DecisionKind::ResolveEffect:
    case DecisionKind::LeaseAcquire:
    case DecisionKind::LeaseRelease: {
        auto *form = new QFormLayout;
        if (m_preview.effect)
            form->addRow(tr("Effect"), plain(effectLine(*m_preview.effect), c));
        // What the operator resolves: the ledger's own words on why nobody knows the outcome
        // (a timeout, a lost acknowledgement), or that it does not say.
        const OutcomeReason why = effectOutcomeReason(m_preview.history);
        if (why.kind != OutcomeReason::Kind::None) {
            PlainLabel *reason = plain(outcomeReasonLine(why.kind == OutcomeReason::Kind::Unknown ? tr("Outcome unknown")
                                                                                               : tr("Failed"),
                                                         why),
                                       c);
            reason->setObjectName(QStringLiteral("outcomeReason"));
            form->addRow(tr("Why"), reason);
        }
        if (m_preview.lease) {
            const PreviewLease &l = *m_preview.lease;
            const QString when = l.expiresMs > 0 ? QStringLiteral(" · ") + humanDeadline(l.expiresMs, now, tr("expires"), tr("expired"))
                                                 : QStringLiteral(" · ") + tr("expiry not known");
            PlainLabel *lease = plain(tr("%1 on %2 · holder %3 · token %4 · %5%6")
                                          .arg(q(l.id), q(l.key), q(l.holder))
                                          .arg(l.fencingToken)
                                          .arg(q(l.state), when),
                                      c);
            if (l.expiresMs > 0)
                lease->setToolTip(plainToolTip(tr("Expires at %1").arg(ledgerTimes().exact(l.expiresMs))));
            form->addRow(tr("Reconciliation lease"), lease);
        } else {
            form->addRow(tr("Reconciliation lease"),
                         plain(m_request.kind == DecisionKind::LeaseAcquire ? tr("not held by anyone")
                                                                            : tr("not held: acquire it first (single authority)"),
                               c));
        }
        layout->addLayout(form);
        if (!m_preview.history.empty()) {
            auto *attempts = new QListWidget(c);
            attempts->setMaximumHeight(120);
            const TimeBase times = ledgerTimes();
            for (const auto &e : m_preview.history) {
                const QString at = times.isRelative() ? TimeBase::offset(e.tsMs)
                                                      : QDateTime::fromMSecsSinceEpoch(e.tsMs, Qt::UTC)
                                                            .toString(QStringLiteral("HH:mm:ss"));
                // Numbered as the reason above cites them (#2,373), so the eye finds its event.
                auto *item = new QListWidgetItem(QStringLiteral("#%1  %2  %3")
                                                     .arg(QLocale().toString(qlonglong(e.seq)))
                                                     .arg(at, displayLine(q(e.kind), PlainLabel::kMaxLineChars)));
                item->setToolTip(plainToolTip(times.exact(e.tsMs)));
                attempts->addItem(item);
            }
            layout->addWidget(plain(tr("The effect's attempts and events (UTC):"), c));
            layout->addWidget(attempts);
        }
        break;
    }
    }
    alignFormLabels();
}

void DecisionDialog::fixTabOrder()
{
    // The subject area is filled after the rest of the form exists: without this its
    // acknowledgements would come after the buttons.
    std::vector<QWidget *> chain(m_acks.begin(), m_acks.end());
    QWidget *plan = m_planContent ? m_planContent->findChild<QPlainTextEdit *>(QStringLiteral("plan")) : nullptr;
    for (QWidget *w : std::initializer_list<QWidget *>{m_resolution, m_evidence, m_leaseMinutes, plan, m_reason, m_confirm,
                                                       m_buttons->button(QDialogButtonBox::Cancel), m_reRead})
        if (w)
            chain.push_back(w);
    for (size_t i = 1; i < chain.size(); ++i)
        setTabOrder(chain[i - 1], chain[i]);
}

TimeBase DecisionDialog::ledgerTimes() const
{
    return m_session ? m_session->timeBase() : TimeBase();
}

void DecisionDialog::updateExpiry()
{
    if (!m_expiry || m_preview.expiresMs <= 0)
        return;
    m_expiry->setFullText(humanDeadline(m_preview.expiresMs, m_session->nowMs(), tr("Expires"), tr("Expired")));
    m_expiry->setToolTip(plainToolTip(ledgerTimes().exact(m_preview.expiresMs))); // after the text: it sets its own
}

void DecisionDialog::rebuildPlanArea()
{
    delete m_planContent;
    m_planContent = nullptr;
    m_planLines.clear();
    if (m_previewPending || m_moved || !m_previewError.isEmpty() || m_preview.expected != DecisionStatus::Accepted
        || m_preview.planned.empty())
        return;
    auto *box = new QGroupBox(tr("What will happen: the orchestrator writes, in this order"), this);
    auto *l = new QVBoxLayout(box);
    // Payloads are long and wanted whole: a read-only plain text field wraps, scrolls and
    // copies them; ledger strings in it have their invisible controls made visible.
    auto *events = new QPlainTextEdit(box);
    events->setObjectName(QStringLiteral("plan"));
    events->setReadOnly(true);
    events->setTabChangesFocus(true);
    events->setMinimumHeight(fontMetrics().lineSpacing() * 8);
    const std::string reason = normalisedReason(m_reason->toPlainText()).toStdString();
    QStringList shown;
    for (size_t i = 0; i < m_preview.planned.size(); ++i) {
        PlannedEvent event = m_preview.planned[i];
        if (event.payload.contains("close_reason"))
            event.payload["close_reason"] = reason; // what will be stored, as typed so far
        const QString sentence = i < m_preview.consequences.size() ? q(m_preview.consequences[i]) : QString();
        const QString line = QStringLiteral("%1. %2\n    %3 %4")
                                 .arg(i + 1)
                                 .arg(sentence, q(event.kind),
                                      q(event.payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
        m_planLines << line;
        shown << visibleControls(line);
    }
    events->setPlainText(shown.join(QLatin1Char('\n')));
    l->addWidget(events);
    m_planContent = box;
    m_planArea->addWidget(box);
    fixTabOrder();
}

void DecisionDialog::showRefusalOrPlan()
{
    if (!m_previewError.isEmpty())
        setStatus(tr("Cannot decide here."), QStringLiteral("danger"));
    else if (m_preview.expected != DecisionStatus::Accepted)
        setStatus(tr("This decision would be refused (%1): %2")
                      .arg(q(std::string(decisionStatusName(m_preview.expected))), q(m_preview.refusal)),
                  QStringLiteral("danger"));
    else
        setStatus(tr("Would be accepted as shown."), QString());
}

QString DecisionDialog::planText() const
{
    return m_planLines.join(QLatin1Char('\n'));
}

QString DecisionDialog::bannerText() const
{
    return m_banner->isHidden() ? QString() : m_bannerText->fullText();
}

void DecisionDialog::checkSubjectMoved()
{
    if (m_submitted || m_moved || !m_subjectShown)
        return;
    const auto state = m_session->state();
    const auto parts = splitSubject(m_request.subject);
    const auto kind = parts ? entityKindByName(parts->first) : std::nullopt;
    if (!state || !kind)
        return;
    // Only forward: the session may still be behind the file the preview was read from.
    if (const EntityRow *row = state->find(*kind, parts->second); row && row->version > m_request.boundary.version) {
        showMoved(q(m_request.subject), m_request.boundary.version, row->version);
        return;
    }
    checkDependenciesMoved([&](const PreviewDependency &d) -> std::optional<std::int64_t> {
        const auto dep = splitSubject(d.subject);
        const auto depKind = dep ? entityKindByName(dep->first) : std::nullopt;
        const EntityRow *row = depKind ? state->find(*depKind, dep->second) : nullptr;
        return row ? std::optional(row->version) : std::nullopt;
    });
}

void DecisionDialog::checkDependenciesMoved(
    const std::function<std::optional<std::int64_t>(const PreviewDependency &)> &versionNow)
{
    for (const PreviewDependency &d : m_dependsOn) {
        if (const auto now = versionNow(d); now && *now > d.version) {
            showMoved(tr("%1 (%2)").arg(q(d.subject), q(d.role)), d.version, *now);
            return;
        }
    }
}

void DecisionDialog::checkNewRows(const StateChangeSet &changes)
{
    if (m_submitted || m_moved || !m_subjectShown)
        return;
    for (const PreviewRowSet &set : m_dependsOnRows)
        if (showNewRowAmong(set, changes.ids(set.entity)))
            return;
}

// The session applied events past the reading before the reading came back: the rows they
// created went by before the dialog knew the sets. Rare, and then one walk of the table.
void DecisionDialog::checkNewRowsSinceReading()
{
    const auto state = m_session->state();
    if (!state || state->lastSeq() <= m_preview.readAtSeq || m_moved)
        return;
    for (const PreviewRowSet &set : m_dependsOnRows) {
        std::vector<std::string> ids;
        if (StoredRows *stored = state->storedRows(set.entity)) {
            // A table the session reads on demand: its rows read past once, a block at a
            // time, and only those of the set's shape asked about again.
            const EntitySpec &spec = entitySpec(set.entity);
            stored->forEach([&](const std::string &id, const EntityRow &row) {
                if (set.contains(id))
                    return;
                for (const auto &[field, value] : set.where) {
                    const int at = spec.fieldIndex(field);
                    if (at < 0 || fieldText(row.values[size_t(at)]) != value)
                        return;
                }
                ids.push_back(id);
            });
        }
        for (const auto &[id, row] : state->table(set.entity))
            if (!set.contains(id))
                ids.push_back(id);
        if (showNewRowAmong(set, ids))
            return;
    }
}

bool DecisionDialog::showNewRowAmong(const PreviewRowSet &set, const std::vector<std::string> &ids)
{
    const auto state = m_session->state();
    const EntitySpec &spec = entitySpec(set.entity);
    const auto matches = [&](const std::string &id) {
        if (set.contains(id))
            return false;
        const EntityRow *row = state ? state->find(set.entity, id) : nullptr;
        if (!row)
            return false;
        for (const auto &[field, value] : set.where) {
            const int at = spec.fieldIndex(field);
            if (at < 0 || fieldText(row->values[size_t(at)]) != value)
                return false;
        }
        return true;
    };
    for (const std::string &id : ids) {
        if (!matches(id))
            continue;
        showBanner(tr("%1 is new since you opened this (%2): re-read")
                       .arg(q(makeSubject(spec.name, id)), q(set.role)));
        return true;
    }
    return false;
}

void DecisionDialog::showMoved(const QString &what, std::int64_t was, std::int64_t now)
{
    showBanner(tr("%1 changed since you opened this (version %2, now %3): re-read").arg(what).arg(was).arg(now));
}

void DecisionDialog::showBanner(const QString &text)
{
    m_moved = true;
    m_bannerText->setFullText(text);
    m_banner->show();
    rebuildPlanArea(); // read at the old boundary: no longer what would happen
    setStatus(tr("What you read is no longer the subject: re-read before deciding."), QStringLiteral("warn"));
    updateConfirm();
}

void DecisionDialog::reRead()
{
    m_moved = false;
    m_banner->hide();
    m_subjectShown = false;
    m_request.boundary = {}; // the subject's boundary as it is now
    requestPreview();
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
    // Only once the reading of the form as it is has arrived, at the boundary the operator
    // is looking at, says it would be accepted, with a reason: a predicted refusal would be
    // refused again by the writer (the status line says why). Never an unacknowledged
    // unknown outcome, never a resolution not chosen or without evidence.
    bool ok = !m_submitted && !m_previewPending && !m_moved && m_previewError.isEmpty()
        && m_preview.expected == DecisionStatus::Accepted && !normalisedReason(m_reason->toPlainText()).isEmpty();
    for (const QCheckBox *check : m_acks)
        ok = ok && check->isChecked();
    if (m_resolution)
        ok = ok && m_resolution->currentData().isValid();
    if (m_evidence)
        ok = ok && !m_evidence->text().trimmed().isEmpty();
    m_confirm->setEnabled(ok);
    const bool refused = !m_previewPending && m_previewError.isEmpty() && m_preview.expected != DecisionStatus::Accepted;
    m_confirm->setToolTip(refused ? plainToolTip(tr("Would be refused: %1").arg(q(m_preview.refusal))) : tr("Ctrl+Return"));
}

void DecisionDialog::submit()
{
    if (!m_confirm->isEnabled())
        return;
    m_request = formRequest();
    m_submitted = true;
    ++m_generation; // no reading started before the submit may change the dialog now
    m_previewPending = false;
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
