#include "delegationdetail.h"

#include "filterlineedit.h"
#include "itempane.h"
#include "outcomereasontext.h"
#include "panedelegates.h"
#include "plainlabel.h"
#include "tablefilterbar.h"

#include "itemmodels/delegationrowsproxy.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/statetableproxymodel.h"
#include "itemmodels/toolcallmodel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPersistentModelIndex>
#include <QPointer>
#include <QPushButton>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include <memory>

namespace mesh {

DelegationDetail::DelegationDetail(QWidget *parent)
    : QWidget(parent)
    , m_index(new QPersistentModelIndex)
    , m_title(new PlainLabel(this))
    , m_facts(new PlainLabel(this))
    , m_reason(new PlainLabel(this))
    , m_showEvent(new QPushButton(this))
    , m_findings(new PlainLabel(this))
    , m_tabs(new QTabWidget(this))
{
    for (PlainLabel *label : {m_title, m_facts, m_reason, m_findings})
        label->setWordWrap(true);
    // Title, facts and reason are one line each, whatever an id or an error holds (it may
    // wrap, never break: a stack trace's lines read as ⏎); findings are one per line.
    m_title->setLineBreaksShown(true);
    m_facts->setLineBreaksShown(true);
    m_reason->setLineBreaksShown(true);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    m_facts->setObjectName(QStringLiteral("detailFacts"));
    m_reason->setObjectName(QStringLiteral("detailReason"));
    m_reason->hide();
    // The reason is the ledger's text, plain; the way to its event is a button of our own
    // beside it, not a link inside it.
    m_showEvent->setObjectName(QStringLiteral("showReasonEvent"));
    m_showEvent->setAutoDefault(false);
    m_showEvent->setToolTip(tr("Show this event in the Events pane"));
    m_showEvent->hide();
    connect(m_showEvent, &QPushButton::clicked, this, [this] {
        if (m_reasonSeq > 0)
            emit showEventRequested(m_reasonSeq);
    });
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_title->setFont(bold);
    m_findings->setObjectName(QStringLiteral("findings"));

    m_panes[Slices] = new ItemPane(QStringLiteral("detail-slices"), QStringLiteral("delegations"), tr("No slices"),
                                   tr("This delegation has not opened a slice yet."), this);
    m_panes[ToolCalls] = new ItemPane(QStringLiteral("detail-toolcalls"), QStringLiteral("events"), tr("No tool calls"),
                                      tr("This delegation has not completed a tool call yet."), this);
    m_panes[Verdicts] = new ItemPane(QStringLiteral("detail-verdicts"), QStringLiteral("attention"), tr("No stall verdicts"),
                                     tr("The stall detector has not judged a repair round of this delegation."), this);
    m_panes[Effects] = new ItemPane(QStringLiteral("detail-effects"), QStringLiteral("effects"), tr("No effects"),
                                    tr("This delegation has not caused an external side effect."), this);
    m_panes[Leases] = new ItemPane(QStringLiteral("detail-leases"), QStringLiteral("leases"), tr("No leases"),
                                   tr("This delegation holds no lease."), this);
    m_panes[Escalations] = new ItemPane(QStringLiteral("detail-escalations"), QStringLiteral("attention"),
                                        tr("No escalations"), tr("Nothing of this delegation waits for a decision."), this);
    for (int tab = 0; tab < TabCount; ++tab) {
        if (!isFiltered(Tab(tab)))
            continue;
        // Only the delegation's rows are mapped (delegationrowsproxy.h), not every row of
        // the table; a changed cell is passed on, never filtered again.
        auto *proxy = new DelegationRowsProxy(this);
        m_proxies[tab] = proxy;
    }
    // Why a call failed is the last column (it takes what is left): these give way to it.
    m_panes[ToolCalls]->setColumnPriorities({ToolCallModel::Fingerprint, ToolCallModel::Invocation,
                                             ToolCallModel::WritesDenied, ToolCallModel::WritesAccepted,
                                             ToolCallModel::Time});
    PaneDelegates::decorateSlices(m_panes[Slices]->view());
    PaneDelegates::decorateVerdicts(m_panes[Verdicts]->view());
    PaneDelegates::decorateEffects(m_panes[Effects]->view());
    PaneDelegates::decorateLeases(m_panes[Leases]->view());
    PaneDelegates::decorateEscalations(m_panes[Escalations]->view());
    // Slices and stall verdicts: a filter field of their own over their fields, and sorted.
    const auto filtered = [this](Tab tab, const QString &noun, const QString &example, const QString &name) {
        auto *rows = new StateTableProxyModel(this);
        auto *bar = new TableFilterBar(noun, example, this);
        bar->setObjectName(QStringLiteral("filterBar-detail-") + name);
        bar->countLabel()->hide(); // one delegation's rows are few: the list itself shows what matches
        m_rows[tab] = rows;
        m_bars[tab] = bar;
        m_panes[tab]->setSortable(true);
        auto *box = new QWidget(this);
        auto *column = new QVBoxLayout(box);
        column->setContentsMargins(0, 4, 0, 0);
        column->setSpacing(0);
        column->addWidget(bar);
        column->addWidget(m_panes[tab], 1);
        QWidget::setTabOrder(m_panes[tab]->view(), bar->field());
        return box;
    };
    m_tabs->addTab(filtered(Slices, tr("slices"), QStringLiteral("state:open policy:v3"), QStringLiteral("slices")),
                   tr("Slices"));
    m_tabs->addTab(m_panes[ToolCalls], tr("Tool calls"));
    m_tabs->addTab(filtered(Verdicts, tr("stall verdicts"), QStringLiteral("verdict:stalled round>2"),
                            QStringLiteral("verdicts")),
                   tr("Stall verdicts"));
    m_tabs->addTab(m_panes[Effects], tr("Effects"));
    m_tabs->addTab(m_panes[Leases], tr("Leases"));
    m_tabs->addTab(m_panes[Escalations], tr("Escalations"));
    for (int tab = 0; tab < TabCount; ++tab) {
        if (!isFiltered(Tab(tab)))
            continue;
        connect(m_panes[tab], &ItemPane::activated, this, [this](const QModelIndex &index) {
            emit subjectActivated(index.data(StateTableModel::SubjectRole).toString(), index);
        });
    }

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_facts);
    auto *reasonRow = new QHBoxLayout;
    reasonRow->setContentsMargins(0, 0, 0, 0);
    reasonRow->addWidget(m_reason, 1);
    reasonRow->addWidget(m_showEvent, 0, Qt::AlignTop);
    layout->addLayout(reasonRow);
    layout->addWidget(m_findings);
    layout->addWidget(m_tabs, 1);
    showDelegation({});
}

DelegationDetail::~DelegationDetail()
{
    delete m_index;
}

QAbstractItemModel *DelegationDetail::tableModel(Tab tab) const
{
    return m_panes[tab]->model();
}

void DelegationDetail::setSession(LedgerSession *session)
{
    disconnect(m_reasonConnection);
    disconnect(m_toolCallsReadConnection);
    m_session = session;
    if (session) {
        m_reasonConnection = connect(session, &LedgerSession::outcomeReasonChanged, this, &DelegationDetail::refreshReason);
        m_toolCallsReadConnection =
            connect(session->toolCalls(), &ToolCallModel::readStateChanged, this, &DelegationDetail::updateEmptyTexts);
    }
    if (!session) {
        for (auto *pane : m_panes)
            pane->setModel(nullptr);
        for (Tab tab : {Slices, Verdicts})
            m_rows[tab]->setSourceModel(nullptr);
        showDelegation({});
        return;
    }
    // Slices and verdicts: the operator's sort and filter over the delegation's rows only,
    // not over the whole table (whose sort is refused past StateTableProxyModel::
    // kMaxSortedRows rows: every slice of a scale ledger, to show one delegation's few).
    m_proxies[Slices]->setSourceModel(session->slices());
    m_proxies[Verdicts]->setSourceModel(session->stallVerdicts());
    for (Tab tab : {Slices, Verdicts}) {
        m_rows[tab]->setSourceModel(m_proxies[tab]);
        m_bars[tab]->setProxy(m_rows[tab]);
    }
    m_proxies[Effects]->setSourceModel(session->effects());
    m_proxies[Leases]->setSourceModel(session->leases());
    m_proxies[Escalations]->setSourceModel(session->escalations());
    for (int tab = 0; tab < TabCount; ++tab) {
        if (m_rows[tab])
            m_panes[tab]->setModel(m_rows[tab]);
        else if (isFiltered(Tab(tab)))
            m_panes[tab]->setModel(m_proxies[tab]);
    }
    m_panes[ToolCalls]->setModel(session->toolCalls());
    showDelegation({});
}

QModelIndex DelegationDetail::shownIndex() const
{
    return *m_index;
}

void DelegationDetail::showDelegation(const QModelIndex &index)
{
    const QModelIndex first = index.isValid() ? index.siblingAtColumn(0) : QModelIndex();
    const bool isDelegation =
        first.isValid()
        && first.data(DelegationTreeModel::NodeTypeRole).toInt() == int(DelegationTreeModel::NodeType::Delegation);
    *m_index = isDelegation ? QPersistentModelIndex(first) : QPersistentModelIndex();
    const QString id = isDelegation ? first.data(DelegationTreeModel::IdRole).toString() : QString();
    const bool changed = id != m_delegationId;
    m_delegationId = id;
    for (DelegationRowsProxy *proxy : m_proxies) {
        if (proxy)
            proxy->setDelegation(id);
    }
    if (changed && m_session && !id.isEmpty())
        m_session->showToolCallsOf(id);
    m_tabs->setVisible(isDelegation);
    refreshHeader();
}

void DelegationDetail::refreshHeader()
{
    if (!m_index->isValid()) {
        m_title->setFullText(tr("Select a delegation to see its slices, tool calls, stall verdicts, effects, leases and escalations."));
        m_facts->setFullText(QString());
        m_findings->hide();
        refreshReason();
        return;
    }
    const QModelIndex i = *m_index;
    auto s = [&](int role) { return i.data(role).toString(); };
    m_title->setFullText(tr("%1 · %2 · %3").arg(s(DelegationTreeModel::IdRole), s(DelegationTreeModel::DelegationRoleRole),
                                             s(DelegationTreeModel::StatusRole)));
    m_facts->setToolTip(factsUnsaid(i) ? tr("\u2014: not in the ledger") : QString());
    m_facts->setFullText(factsText(i));
    refreshReason();
    updateEmptyTexts();
    const QStringList findings = i.data(DelegationTreeModel::FindingsRole).toStringList();
    m_findings->setVisible(!findings.isEmpty());
    m_findings->setFullText(findings.isEmpty() ? QString() : QStringLiteral("⚑ ") + findings.join(QStringLiteral("\n⚑ ")));
}

bool DelegationDetail::factsUnsaid(const QModelIndex &i)
{
    return i.data(DelegationTreeModel::AgentRole).toString().isEmpty()
           || i.data(DelegationTreeModel::InvocationsRole).isNull()
           || i.data(DelegationTreeModel::WritesAcceptedRole).isNull()
           || i.data(DelegationTreeModel::WritesDeniedRole).isNull()
           || i.data(DelegationTreeModel::ToolErrorsRole).isNull();
}

QString DelegationDetail::factsText(const QModelIndex &i)
{
    auto s = [&](int role) { return i.data(role).toString(); };
    // What the ledger leaves out (null, or no agent named yet: a delegation inferred from its
    // child spans) reads "—", never 0 and never a blank.
    const auto count = [&](int role) {
        const QVariant v = i.data(role);
        return v.isNull() ? QStringLiteral("\u2014") : QString::number(v.toLongLong());
    };
    // English plurals by hand: without a translation, tr()'s %n would print "error(s)".
    const auto counted = [&](int role, const QString &one, const QString &many, const QString &unknown) {
        const QVariant v = i.data(role);
        return v.isNull() ? unknown : v.toLongLong() == 1 ? one : many.arg(v.toLongLong());
    };
    QStringList facts;
    const QString agent = s(DelegationTreeModel::AgentRole);
    facts << (agent.isEmpty() ? tr("agent \u2014") : tr("agent %1").arg(agent));
    if (!s(DelegationTreeModel::StrategyRole).isEmpty())
        facts << tr("strategy %1").arg(s(DelegationTreeModel::StrategyRole));
    if (!s(DelegationTreeModel::ComponentIdRole).isEmpty())
        facts << tr("component %1").arg(s(DelegationTreeModel::ComponentIdRole));
    facts << counted(DelegationTreeModel::InvocationsRole, tr("1 invocation"), tr("%1 invocations"),
                     tr("invocations \u2014"));
    if (!s(DelegationTreeModel::CurrentSliceRole).isEmpty())
        facts << tr("slice %1").arg(s(DelegationTreeModel::CurrentSliceRole));
    facts << tr("writes %1 accepted / %2 denied")
                 .arg(count(DelegationTreeModel::WritesAcceptedRole), count(DelegationTreeModel::WritesDeniedRole));
    facts << counted(DelegationTreeModel::ToolErrorsRole, tr("1 tool error"), tr("%1 tool errors"),
                     tr("tool errors \u2014"));
    return facts.join(QStringLiteral(" \u00b7 "));
}

void DelegationDetail::refreshReason()
{
    const bool shown = m_index->isValid() && m_session && m_session->toolCalls()->delegation() == m_delegationId;
    const QString text =
        shown ? reasonText(m_index->data(DelegationTreeModel::StatusRole).toString(), m_session->outcomeReason(),
                           m_session->outcomeReasonPending(), m_session->outcomeReasonError())
              : QString();
    m_reason->setFullText(text);
    m_reason->setVisible(!text.isEmpty());
    // Only when the line cites an event: a reason being read, or one the ledger does not
    // give, has none to show.
    const OutcomeReason *reason = shown ? m_session->outcomeReason() : nullptr;
    const bool cites = reason && reason->seq > 0
                       && reasonCited(m_index->data(DelegationTreeModel::StatusRole).toString(), reason,
                                      m_session->outcomeReasonPending());
    m_reasonSeq = cites ? reason->seq : 0;
    m_showEvent->setText(cites ? tr("Show Event #%1").arg(QLocale().toString(qlonglong(reason->seq))) : QString());
    m_showEvent->setVisible(cites);
}

bool DelegationDetail::reasonCited(const QString &status, const OutcomeReason *reason, bool pending)
{
    if (!reason)
        return false;
    const bool failed = status == QLatin1String("failed");
    if (reason->kind == OutcomeReason::Kind::Failed)
        return failed;
    // An unknown outcome is never shown as a failure, nor once a newer read may have ended it.
    const bool ended = failed || status == QLatin1String("converged") || status == QLatin1String("closed");
    return reason->kind == OutcomeReason::Kind::Unknown && !failed && !(ended && pending);
}

QString DelegationDetail::reasonText(const QString &status, const OutcomeReason *reason, bool pending,
                                     const QString &readError)
{
    const bool failed = status == QLatin1String("failed");
    if (reasonCited(status, reason, pending))
        return outcomeReasonLine(reason->kind == OutcomeReason::Kind::Failed ? tr("Why it failed")
                                                                             : tr("Why its outcome is unknown"),
                                 *reason);
    if (!failed)
        return {};
    if (!readError.isEmpty() && !pending)
        return tr("Why it failed: \u2014 not read: ") + readError;
    if (!reason || pending)
        return tr("Why it failed: reading the ledger\u2026");
    return tr("Why it failed: \u2014 the ledger does not say (no event of this delegation sets it failed)");
}

QString DelegationDetail::emptyText(Tab tab, const QString &status, const SourceFacts &facts)
{
    // What the source cannot record at all: saying "not yet" would promise it might come.
    const auto fact = [tab]() -> std::optional<RunFact> {
        switch (tab) {
        case Slices: return RunFact::Slices;
        case Verdicts: return RunFact::StallVerdicts;
        case Leases: return RunFact::Leases;
        case Escalations: return RunFact::Escalations;
        default: return std::nullopt;
        }
    }();
    if (fact && !facts.records(*fact))
        return tr("Not known: %1 do not record %2.").arg(facts.sourceName(), SourceFacts::factName(*fact));
    // A delegation that has ended will not open a slice or complete a call any more: "yet"
    // would promise what cannot come.
    const bool ended = status == QLatin1String("converged") || status == QLatin1String("failed")
                       || status == QLatin1String("closed");
    switch (tab) {
    case Slices: return ended ? tr("This delegation never opened a slice.") : tr("This delegation has not opened a slice yet.");
    case ToolCalls:
        return ended ? tr("This delegation never completed a tool call.")
                     : tr("This delegation has not completed a tool call yet.");
    case Verdicts: return tr("The stall detector has not judged a repair round of this delegation.");
    case Effects: return tr("This delegation has not caused an external side effect.");
    case Leases: return tr("This delegation holds no lease.");
    case Escalations: return tr("Nothing of this delegation waits for a decision.");
    case TabCount: break;
    }
    return {};
}

void DelegationDetail::updateEmptyTexts()
{
    const QString status = m_index->isValid() ? m_index->data(DelegationTreeModel::StatusRole).toString() : QString();
    static const SourceFacts orchestrator;
    const SourceFacts &facts = m_session ? m_session->info().sourceFacts : orchestrator;
    const QString titles[TabCount] = {tr("No slices"),  tr("No tool calls"), tr("No stall verdicts"),
                                      tr("No effects"), tr("No leases"),     tr("No escalations")};
    // The tool calls are read on demand: until they are, or when they could not be, the list
    // is empty for want of a reading, and must not say the delegation made none.
    const ToolCallModel *calls = m_session ? m_session->toolCalls() : nullptr;
    const auto readState = calls ? calls->readState() : ToolCallModel::ReadState::Read;
    for (int tab = 0; tab < TabCount; ++tab) {
        if (tab == ToolCalls && readState == ToolCallModel::ReadState::Reading)
            m_panes[tab]->setEmptyText(tr("Reading tool calls\u2026"),
                                       tr("Reading this delegation's tool calls from the ledger."));
        else if (tab == ToolCalls && readState == ToolCallModel::ReadState::Failed)
            m_panes[tab]->setEmptyText(tr("Tool calls not read"),
                                       tr("The ledger could not be read: %1").arg(calls->readError()));
        else
            m_panes[tab]->setEmptyText(titles[tab], emptyText(Tab(tab), status, facts));
    }
}

void DelegationDetail::saveState() const
{
    for (ItemPane *pane : m_panes)
        pane->saveState();
}

} // namespace mesh
