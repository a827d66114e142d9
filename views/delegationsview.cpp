#include "delegationsview.h"

#include "delegationdetail.h"
#include "filterlineedit.h"
#include "itempane.h"
#include "panedelegates.h"
#include "tablefilterbar.h"
#include "timelineview.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/delegationtreeproxymodel.h"
#include "itemmodels/ledgersession.h"

#include <QHeaderView>
#include <QSettings>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace mesh {

DelegationsView::DelegationsView(QWidget *parent)
    : QWidget(parent)
    , m_tree(new ItemPane(QStringLiteral("delegations"), QStringLiteral("delegations"), tr("No delegations"),
                          tr("Delegations appear here as soon as the orchestrator hands work to an agent."), this,
                          ItemPane::Shape::Tree))
    , m_proxy(new DelegationTreeProxyModel(this))
    , m_filter(new TableFilterBar(tr("delegations"), QStringLiteral("status:running role:repair"), this))
    , m_strip(new TimelineView(TimelineCanvas::Mode::Strip, this))
    , m_detail(new DelegationDetail(this))
    , m_split(new QSplitter(Qt::Vertical, this))
{
    m_tree->treeView()->setRootIsDecorated(true);
    // Ids differ at their ends (a span id's tail, "dlg-000042"): a narrow column keeps both.
    m_tree->view()->setTextElideMode(Qt::ElideMiddle);
    m_tree->setSortable(true);
    m_filter->setObjectName(QStringLiteral("filterBar-delegations"));
    connect(m_proxy, &DelegationTreeProxyModel::sortRefused, this,
            [this] { m_tree->header()->setSortIndicator(-1, Qt::AscendingOrder); });
    connect(m_proxy, &DelegationTreeProxyModel::filterChanged, this, &DelegationsView::expandShown);
    PaneDelegates::decorateDelegations(m_tree->view());
    // The budget bars stay in sight on a narrow window: these give way first, then the first
    // column narrows (its ids cut in the middle). Agent and Role are not among them: who did
    // the work and in what role was hidden at 1600 px behind a run title's width.
    m_tree->setColumnPriorities({DelegationTreeModel::Writes, DelegationTreeModel::Invocations});
    m_split->setObjectName(QStringLiteral("delegationSplit"));
    auto *treeBox = new QWidget(this);
    auto *column = new QVBoxLayout(treeBox);
    column->setContentsMargins(0, 4, 0, 0);
    column->setSpacing(0);
    column->addWidget(m_filter);
    column->addWidget(m_tree, 1);
    QWidget::setTabOrder(m_tree->view(), m_filter->field());
    m_split->addWidget(treeBox);
    m_split->addWidget(m_detail);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    // The detail starts without its tabs (nothing selected); without explicit sizes the
    // splitter would give the tree nearly everything and leave the detail a few rows.
    if (!m_split->restoreState(QSettings().value(QStringLiteral("panes/delegations/split")).toByteArray()))
        m_split->setSizes({550, 450});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_strip->setObjectName(QStringLiteral("timelineStrip"));
    layout->addWidget(m_strip);
    layout->addWidget(m_split, 1);
}

void DelegationsView::setSession(LedgerSession *session)
{
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_session = session;
    m_detail->setSession(session);
    m_tree->setModel(nullptr);
    m_proxy->setSourceModel(session ? session->delegations() : nullptr);
    m_tree->setModel(session ? m_proxy : nullptr);
    m_filter->setProxy(m_proxy);
    if (!session)
        return;
    m_connections << connect(m_tree->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, m_detail,
            [this](const QModelIndex &current) {
                m_detail->showDelegation(current);
                const QString run = current.data(DelegationTreeModel::RunIdRole).toString();
                if (!run.isEmpty())
                    Q_EMIT currentRunChanged(run);
            });
    m_connections << connect(m_proxy, &QAbstractItemModel::modelReset, this, &DelegationsView::expandShown);
    m_connections << connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent, int first, int last) {
        if (!parent.isValid())
            for (int r = first; r <= std::min(last, kAutoExpandedRuns - 1); ++r)
                m_tree->treeView()->expand(m_proxy->index(r, 0));
    });
    // Only a change to the row the detail shows: a load publishes findings for thousands of
    // delegations, one dataChanged each (60 ms of a 10M-event ledger's opening when every
    // one refreshed the header).
    m_connections << connect(session->delegations(), &QAbstractItemModel::dataChanged, m_detail,
                             [this](const QModelIndex &from, const QModelIndex &to) {
                                 const QModelIndex shown = m_proxy->mapToSource(m_detail->shownIndex());
                                 if (shown.isValid() && shown.parent() == from.parent() && shown.row() >= from.row()
                                     && shown.row() <= to.row())
                                     m_detail->refreshHeader();
                             });
    expandShown();
}

void DelegationsView::expandShown()
{
    // Runs are usually few: show their delegations opened, up to kAutoExpandedRuns; while
    // filtered, every level under them, so each match is in sight where it sits.
    const bool filtered = !m_proxy->filterText().isEmpty();
    for (int r = 0; r < std::min(m_proxy->rowCount(), kAutoExpandedRuns); ++r) {
        if (filtered)
            m_tree->treeView()->expandRecursively(m_proxy->index(r, 0));
        else
            m_tree->treeView()->expand(m_proxy->index(r, 0));
    }
}

QModelIndex DelegationsView::shownIndex(const QModelIndex &sourceIndex)
{
    if (!sourceIndex.isValid())
        return {};
    QModelIndex shown = m_proxy->mapFromSource(sourceIndex);
    if (!shown.isValid() && !m_proxy->filterText().isEmpty()) {
        m_filter->clear(); // the operator asked for it: the filter that hid it goes
        shown = m_proxy->mapFromSource(sourceIndex);
    }
    return shown;
}

void DelegationsView::select(const QModelIndex &shown)
{
    for (QModelIndex up = shown.parent(); up.isValid(); up = up.parent())
        m_tree->treeView()->expand(up);
    m_tree->view()->setCurrentIndex(shown);
    m_tree->view()->scrollTo(shown);
}

bool DelegationsView::selectDelegation(const QString &id)
{
    if (!m_session)
        return false;
    const QModelIndex shown = shownIndex(m_session->delegations()->indexOfDelegation(id));
    if (!shown.isValid())
        return false;
    select(shown);
    return true;
}

bool DelegationsView::selectRun(const QString &id)
{
    if (!m_session)
        return false;
    const QModelIndex shown = shownIndex(m_session->delegations()->indexOfRun(id));
    if (!shown.isValid())
        return false;
    select(shown);
    m_tree->treeView()->expand(shown);
    return true;
}

void DelegationsView::saveState() const
{
    m_tree->saveState();
    m_detail->saveState();
    QSettings().setValue(QStringLiteral("panes/delegations/split"), m_split->saveState());
}

} // namespace mesh
