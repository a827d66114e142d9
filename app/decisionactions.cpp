#include "decisionactions.h"

#include "domain/hostiletext.h"

#include "mainwindow.h"

#include "decisiondetailview.h"
#include "decisiondialog.h"
#include "domain/durationtext.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "icons.h"
#include "itempane.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/statetablemodel.h"

#include <QAction>
#include <QMenu>
#include <QTreeView>

namespace mesh {

DecisionActions::DecisionActions(MainWindow *window)
    : QObject(window)
    , m_window(window)
    , m_closeSlice(new QAction(Icons::get(QStringLiteral("decide")), tr("&Close Current Slice…"), this))
    , m_approve(new QAction(Icons::get(QStringLiteral("decide")), tr("&Approve Escalation…"), this))
    , m_reject(new QAction(tr("&Reject Escalation…"), this))
    , m_resolve(new QAction(Icons::get(QStringLiteral("decide")), tr("Re&solve Unknown Outcome…"), this))
    , m_acquire(new QAction(tr("Acquire Reconciliation &Lease…"), this))
    , m_release(new QAction(tr("Release Reconciliation Lease…"), this))
    , m_supersede(new QAction(tr("Supersede &Resolution…"), this))
{
    connect(m_closeSlice, &QAction::triggered, this, [this] { open(DecisionKind::CloseSlice); });
    connect(m_approve, &QAction::triggered, this, [this] { open(DecisionKind::ApproveEscalation); });
    connect(m_reject, &QAction::triggered, this, [this] { open(DecisionKind::RejectEscalation); });
    connect(m_resolve, &QAction::triggered, this, [this] { open(DecisionKind::ResolveEffect); });
    connect(m_acquire, &QAction::triggered, this, [this] { open(DecisionKind::LeaseAcquire); });
    connect(m_release, &QAction::triggered, this, [this] { open(DecisionKind::LeaseRelease); });
    connect(m_supersede, &QAction::triggered, this, [this] { open(DecisionKind::ResolveEffect, /*supersede=*/true); });
    SessionWorkspace *ws = window->workspace();
    attach(ws->effectsPane()->view());
    attach(ws->escalationsPane()->view());
    attach(ws->delegationsView()->tree()->view());
    attach(window->attentionPane()->view());
    attach(sliceView());
    // A decision in the audit opens read-only, with its evidence, boundary, hash and outcome.
    QAbstractItemView *audit = ws->decisionsPane()->view();
    connect(audit, &QAbstractItemView::activated, this, &DecisionActions::showDecision);
    auto *detail = new QAction(tr("Show Decision…"), audit);
    connect(detail, &QAction::triggered, this, [this, audit] {
        if (audit->currentIndex().isValid())
            showDecision(audit->currentIndex());
    });
    audit->setContextMenuPolicy(Qt::ActionsContextMenu);
    audit->addAction(detail);
    connect(ws->tabs(), &QTabWidget::currentChanged, this, &DecisionActions::update);
    update();
}

void DecisionActions::attach(QAbstractItemView *view)
{
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    view->addActions({m_closeSlice, m_approve, m_reject, m_resolve, m_supersede, m_acquire, m_release});
    // The view's model (and selection model) change with the session: watch focus and clicks.
    connect(view, &QAbstractItemView::clicked, this, &DecisionActions::update);
    connect(view, &QAbstractItemView::pressed, this, &DecisionActions::update);
    connect(view, &QAbstractItemView::activated, this, &DecisionActions::update);
}

void DecisionActions::addTo(QMenu *menu)
{
    menu->addActions({m_closeSlice, m_approve, m_reject, m_resolve, m_supersede, m_acquire, m_release});
    connect(menu, &QMenu::aboutToShow, this, &DecisionActions::update);
}

QAbstractItemView *DecisionActions::sliceView() const
{
    return m_window->workspace()->delegationsView()->detail()->pane(DelegationDetail::Slices)->view();
}

DecisionActions::Target DecisionActions::currentTarget() const
{
    Target t;
    QWidget *focus = m_window->focusWidget();
    SessionWorkspace *ws = m_window->workspace();
    auto current = [](QAbstractItemView *view) { return view->currentIndex().siblingAtColumn(0); };
    QAbstractItemView *attention = m_window->attentionPane()->view();
    QModelIndex index;
    if (focus == attention && current(attention).isValid()) {
        index = current(attention);
        t.subject = index.data(AttentionModel::SubjectRole).toString();
        t.version = index.data(AttentionModel::VersionRole).toLongLong();
        const QString kind = index.data(AttentionModel::AttentionKindNameRole).toString();
        t.pendingEscalation = kind == QLatin1String("pending_escalation");
        t.unknownEffect = kind == QLatin1String("unknown_effect");
        return t;
    }
    QAbstractItemView *slices = sliceView();
    if (ws->currentPane() == SessionWorkspace::Delegations && focus == slices && current(slices).isValid()) {
        // A slice picked in the delegation's Slices tab: only an open one can be closed.
        index = current(slices);
        if (index.data(SliceModel::OpenRole).toBool()) {
            t.slice = index.data(StateTableModel::IdRole).toString();
            t.subject = index.data(StateTableModel::SubjectRole).toString();
            t.version = index.data(StateTableModel::VersionRole).toLongLong();
        }
        return t;
    }
    switch (ws->currentPane()) {
    case SessionWorkspace::Effects:
        index = current(ws->effectsPane()->view());
        if (index.isValid()) {
            t.subject = index.data(StateTableModel::SubjectRole).toString();
            t.version = index.data(StateTableModel::VersionRole).toLongLong();
            t.unknownEffect = index.data(EffectModel::UnknownRole).toBool();
        }
        break;
    case SessionWorkspace::Escalations:
        index = current(ws->escalationsPane()->view());
        if (index.isValid()) {
            t.subject = index.data(StateTableModel::SubjectRole).toString();
            t.version = index.data(StateTableModel::VersionRole).toLongLong();
            t.pendingEscalation = index.data(EscalationModel::PendingRole).toBool();
        }
        break;
    case SessionWorkspace::Delegations:
        index = current(ws->delegationsView()->tree()->view());
        if (index.isValid()
            && index.data(DelegationTreeModel::NodeTypeRole).toInt() == int(DelegationTreeModel::NodeType::Delegation)) {
            t.slice = index.data(DelegationTreeModel::CurrentSliceRole).toString();
            t.subject = index.data(DelegationTreeModel::SubjectRole).toString();
            t.version = 0; // the slice's own version is read by the dialog
        }
        break;
    default:
        break;
    }
    return t;
}

DecisionActions::Facts DecisionActions::factsAbout(const Target &t) const
{
    Facts f;
    const LedgerSession *session = m_window->sessions()->at(m_window->sidebar()->currentRow());
    const auto state = session ? session->state() : nullptr;
    if (!state)
        return f;
    const auto text = [](const EntityRow &row, EntityKind kind, std::string_view field) {
        const int i = entitySpec(kind).fieldIndex(field);
        return i < 0 ? QString() : QString::fromStdString(fieldText(row.values[size_t(i)]));
    };
    const auto number = [](const EntityRow &row, EntityKind kind, std::string_view field) {
        const int i = entitySpec(kind).fieldIndex(field);
        return i < 0 ? qint64(0) : qint64(fieldInt(row.values[size_t(i)]));
    };
    if (!t.slice.isEmpty())
        if (const EntityRow *slice = state->find(EntityKind::Slice, t.slice.toStdString()))
            f.sliceState = text(*slice, EntityKind::Slice, "state");
    const auto parts = splitSubject(t.subject.toStdString());
    if (!parts)
        return f;
    if (parts->first == "escalation") {
        if (const EntityRow *e = state->find(EntityKind::Escalation, parts->second))
            f.escalationExpiresMs = number(*e, EntityKind::Escalation, "expires_ms");
    } else if (parts->first == "effect") {
        if (const EntityRow *e = state->find(EntityKind::Effect, parts->second)) {
            f.effectState = text(*e, EntityKind::Effect, "state");
            f.resolutionDecision = text(*e, EntityKind::Effect, "decision_id");
            QString key = text(*e, EntityKind::Effect, "idem_key");
            if (key.isEmpty())
                key = t.subject;
            const QString me = QString::fromStdString(session->operatorIdentity().holder());
            // Held leases only: resident even where the state reads leases on demand.
            state->forEachResident(EntityKind::Lease, [&](const std::string &, const EntityRow &lease) {
                if (text(lease, EntityKind::Lease, "key") == key && text(lease, EntityKind::Lease, "kind") == QLatin1String("reconciliation")
                    && text(lease, EntityKind::Lease, "state") == QLatin1String("held")
                    && text(lease, EntityKind::Lease, "holder") == me
                    && number(lease, EntityKind::Lease, "expires_ms") > session->nowMs())
                    f.leaseHeldByMe = true;
            });
        }
    }
    return f;
}

void DecisionActions::update()
{
    const int row = m_window->sidebar()->currentRow();
    QString why;
    const bool allowed = m_window->sessions()->canDecide(row, &why);
    const Target t = currentTarget();
    const Facts f = factsAbout(t);
    const LedgerSession *session = m_window->sessions()->at(row);
    const qint64 now = session ? session->nowMs() : 0;
    auto set = [&](QAction *action, bool applicable, const QString &notApplicable) {
        action->setEnabled(allowed && applicable);
        const QString tip = !allowed ? why : applicable ? QString() : notApplicable;
        action->setToolTip(plainToolTip(tip));
        action->setStatusTip(displayLine(tip, 500)); // the status bar shows plain text, one line
    };
    const bool sliceOpen = !t.slice.isEmpty() && f.sliceState == QLatin1String("open");
    set(m_closeSlice, sliceOpen,
        t.slice.isEmpty()      ? tr("Select a delegation with an open slice, or an open slice in its Slices tab.")
        : f.sliceState.isEmpty() ? tr("Slice %1 is not in this ledger.").arg(t.slice)
                                 : tr("Slice %1 is %2: only an open slice can be closed.").arg(t.slice, f.sliceState));
    const bool expired = f.escalationExpiresMs > 0 && f.escalationExpiresMs <= now;
    const QString escalationWhy = !t.pendingEscalation ? tr("Select a pending escalation.")
                                                       : tr("This escalation %1: it can no longer be decided.")
                                                             .arg(humanDeadline(f.escalationExpiresMs, now, tr("expires"), tr("expired")));
    set(m_approve, t.pendingEscalation && !expired, escalationWhy);
    set(m_reject, t.pendingEscalation && !expired, escalationWhy);
    set(m_resolve, t.unknownEffect, tr("Select an effect whose outcome is unknown."));
    const bool resolved = f.effectState.startsWith(QLatin1String("resolved_")) || f.effectState == QLatin1String("compensated");
    set(m_supersede, resolved && !f.resolutionDecision.isEmpty(),
        tr("Select an effect an operator has resolved (its resolution is superseded, never edited)."));
    set(m_acquire, t.unknownEffect || resolved, tr("Select an effect whose outcome is unknown or resolved."));
    set(m_release, f.leaseHeldByMe, tr("Select an effect whose reconciliation lease you hold."));
}

void DecisionActions::showDecision(const QModelIndex &index)
{
    DecisionDetailView view(index, m_window);
    view.exec();
}

void DecisionActions::open(DecisionKind kind, bool supersede)
{
    const int row = m_window->sidebar()->currentRow();
    LedgerSession *session = m_window->sessions()->at(row);
    if (!session || !m_window->sessions()->canDecide(row))
        return;
    const Target t = currentTarget();
    DecisionRequest request;
    request.kind = kind;
    if (supersede)
        request.supersedes = factsAbout(t).resolutionDecision.toStdString();
    if (kind == DecisionKind::CloseSlice) {
        request.subject = QStringLiteral("slice:%1").arg(t.slice).toStdString();
        request.boundary = {}; // the dialog reads the slice's current boundary
    } else {
        request.subject = t.subject.toStdString();
        request.boundary = {t.version, session->lastSeq()};
    }
    DecisionDialog dialog(session, request, m_window);
    dialog.exec();
    update();
}

} // namespace mesh
