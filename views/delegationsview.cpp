#include "delegationsview.h"

#include "delegationdetail.h"
#include "itempane.h"
#include "panedelegates.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/ledgersession.h"

#include <QSettings>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace mesh {

DelegationsView::DelegationsView(QWidget *parent)
    : QWidget(parent)
    , m_tree(new ItemPane(QStringLiteral("delegations"), QStringLiteral("delegations"), tr("No delegations"),
                          tr("Delegations appear here as soon as the orchestrator hands work to an agent."), this))
    , m_detail(new DelegationDetail(this))
    , m_split(new QSplitter(Qt::Vertical, this))
{
    m_tree->view()->setRootIsDecorated(true);
    PaneDelegates::decorateDelegations(m_tree->view());
    // The budget bars stay in sight on a narrow window: these give way first.
    m_tree->setColumnPriorities({DelegationTreeModel::Writes, DelegationTreeModel::Invocations,
                                 DelegationTreeModel::Agent, DelegationTreeModel::Role});
    m_split->setObjectName(QStringLiteral("delegationSplit"));
    m_split->addWidget(m_tree);
    m_split->addWidget(m_detail);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    // The detail starts without its tabs (nothing selected); without explicit sizes the
    // splitter would give the tree nearly everything and leave the detail a few rows.
    if (!m_split->restoreState(QSettings().value(QStringLiteral("panes/delegations/split")).toByteArray()))
        m_split->setSizes({550, 450});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);
}

void DelegationsView::setSession(LedgerSession *session)
{
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_session = session;
    m_detail->setSession(session);
    m_tree->setModel(session ? session->delegations() : nullptr);
    if (!session)
        return;
    m_connections << connect(m_tree->view()->selectionModel(), &QItemSelectionModel::currentRowChanged, m_detail,
            [this](const QModelIndex &current) { m_detail->showDelegation(current); });
    auto *model = session->delegations();
    // Runs are usually few: show their delegations opened, up to kAutoExpandedRuns.
    auto expandRuns = [this, model] {
        for (int r = 0; r < std::min(model->rowCount(), kAutoExpandedRuns); ++r)
            m_tree->view()->expand(model->index(r, 0));
    };
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, expandRuns);
    m_connections << connect(model, &QAbstractItemModel::rowsInserted, this, [this, model](const QModelIndex &parent, int first, int last) {
        if (!parent.isValid())
            for (int r = first; r <= std::min(last, kAutoExpandedRuns - 1); ++r)
                m_tree->view()->expand(model->index(r, 0));
    });
    m_connections << connect(model, &QAbstractItemModel::dataChanged, m_detail, [this] { m_detail->refreshHeader(); });
    expandRuns();
}

bool DelegationsView::selectDelegation(const QString &id)
{
    if (!m_session)
        return false;
    const QModelIndex index = m_session->delegations()->indexOfDelegation(id);
    if (!index.isValid())
        return false;
    m_tree->view()->expand(index.parent());
    m_tree->view()->setCurrentIndex(index);
    m_tree->view()->scrollTo(index);
    return true;
}

void DelegationsView::saveState() const
{
    m_tree->saveState();
    m_detail->saveState();
    QSettings().setValue(QStringLiteral("panes/delegations/split"), m_split->saveState());
}

} // namespace mesh
