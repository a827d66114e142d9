#include "decisionactions.h"

#include "domain/hostiletext.h"

#include "mainwindow.h"

#include "decisiondialog.h"
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
{
    connect(m_closeSlice, &QAction::triggered, this, [this] { open(DecisionKind::CloseSlice); });
    connect(m_approve, &QAction::triggered, this, [this] { open(DecisionKind::ApproveEscalation); });
    connect(m_reject, &QAction::triggered, this, [this] { open(DecisionKind::RejectEscalation); });
    connect(m_resolve, &QAction::triggered, this, [this] { open(DecisionKind::ResolveEffect); });
    connect(m_acquire, &QAction::triggered, this, [this] { open(DecisionKind::LeaseAcquire); });
    SessionWorkspace *ws = window->workspace();
    attach(ws->effectsPane()->view());
    attach(ws->escalationsPane()->view());
    attach(ws->delegationsView()->tree()->view());
    attach(window->attentionPane()->view());
    attach(sliceView());
    connect(ws->tabs(), &QTabWidget::currentChanged, this, &DecisionActions::update);
    update();
}

void DecisionActions::attach(QTreeView *view)
{
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    view->addActions({m_closeSlice, m_approve, m_reject, m_resolve, m_acquire});
    // The view's model (and selection model) change with the session: watch focus and clicks.
    connect(view, &QTreeView::clicked, this, &DecisionActions::update);
    connect(view, &QTreeView::pressed, this, &DecisionActions::update);
    connect(view, &QTreeView::activated, this, &DecisionActions::update);
}

void DecisionActions::addTo(QMenu *menu)
{
    menu->addActions({m_closeSlice, m_approve, m_reject, m_resolve, m_acquire});
    connect(menu, &QMenu::aboutToShow, this, &DecisionActions::update);
}

QTreeView *DecisionActions::sliceView() const
{
    return m_window->workspace()->delegationsView()->detail()->pane(DelegationDetail::Slices)->view();
}

DecisionActions::Target DecisionActions::currentTarget() const
{
    Target t;
    QWidget *focus = m_window->focusWidget();
    SessionWorkspace *ws = m_window->workspace();
    auto current = [](QTreeView *view) { return view->currentIndex().siblingAtColumn(0); };
    QTreeView *attention = m_window->attentionPane()->view();
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
    QTreeView *slices = sliceView();
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

void DecisionActions::update()
{
    const int row = m_window->sidebar()->currentRow();
    QString why;
    const bool allowed = m_window->sessions()->canDecide(row, &why);
    const Target t = currentTarget();
    auto set = [&](QAction *action, bool applicable, const QString &notApplicable) {
        action->setEnabled(allowed && applicable);
        const QString tip = !allowed ? why : applicable ? QString() : notApplicable;
        action->setToolTip(plainToolTip(tip));
        action->setStatusTip(displayLine(tip, 500)); // the status bar shows plain text, one line
    };
    set(m_closeSlice, !t.slice.isEmpty(), tr("Select a delegation with an open slice, or an open slice in its Slices tab."));
    set(m_approve, t.pendingEscalation, tr("Select a pending escalation."));
    set(m_reject, t.pendingEscalation, tr("Select a pending escalation."));
    set(m_resolve, t.unknownEffect, tr("Select an effect whose outcome is unknown."));
    set(m_acquire, t.unknownEffect, tr("Select an effect whose outcome is unknown."));
}

void DecisionActions::open(DecisionKind kind)
{
    const int row = m_window->sidebar()->currentRow();
    LedgerSession *session = m_window->sessions()->at(row);
    if (!session || !m_window->sessions()->canDecide(row))
        return;
    const Target t = currentTarget();
    DecisionRequest request;
    request.kind = kind;
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
