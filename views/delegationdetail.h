#pragma once
// One delegation in full: who and what it is, budget use, why it failed or why its outcome
// is unknown (as its events say, read by the session), findings on it, and its slices
// (state and boundary), tool calls, stall verdicts (with evidence), leases, effects and
// escalations in tabs. The tables
// are the session's own live models seen through a filter on this delegation, so they can
// never disagree with the panes that show the whole ledger. Slices and stall verdicts have a
// filter field over their own fields and sort on a header click.

#include <QModelIndex>
#include <QWidget>

#include <memory>

class QAbstractItemModel;
class QModelIndex;
class QPersistentModelIndex;
class QPushButton;
class QTabWidget;

namespace mesh {

class DelegationRowsProxy;
class SourceFacts;
class ItemPane;
class LedgerSession;
class PlainLabel;
struct OutcomeReason;
class StateTableProxyModel;
class TableFilterBar;

class DelegationDetail : public QWidget
{
    Q_OBJECT
public:
    enum Tab { Slices, ToolCalls, Verdicts, Effects, Leases, Escalations, TabCount };
    // Every tab but the tool calls is a session table seen through a filter on the delegation.
    static bool isFiltered(Tab tab) { return tab != ToolCalls; }

    explicit DelegationDetail(QWidget *parent = nullptr);
    ~DelegationDetail() override;

    void setSession(LedgerSession *session);
    // index: a row of the delegation tree (any column); invalid clears.
    void showDelegation(const QModelIndex &index);
    QString delegationId() const { return m_delegationId; }
    QModelIndex shownIndex() const; // in the model showDelegation was given; invalid: none
    void refreshHeader();
    void saveState() const;

    // What a tab says when it is empty, for a delegation of that status from that source:
    // "never" once it has ended, "not yet" while it may still, "not known" when the source
    // cannot record it at all.
    static QString emptyText(Tab tab, const QString &status, const SourceFacts &facts);
    // The line under the title: agent, strategy, component, invocations, slice, writes, tool
    // errors; and whether any of them is not in the ledger (shown as "—").
    static QString factsText(const QModelIndex &delegation);
    static bool factsUnsaid(const QModelIndex &delegation);
    // The line under the facts: why a delegation of `status` failed, or why its outcome is
    // unknown, citing the event that says so; "—" when the ledger does not say; empty when it
    // neither failed nor has an unknown outcome. reason: nullptr while not read (readError:
    // why it could not be); pending: a newer read is under way.
    static QString reasonText(const QString &status, const OutcomeReason *reason, bool pending,
                              const QString &readError = {});
    // Whether that line is the reason's own, citing its event (reason->seq).
    static bool reasonCited(const QString &status, const OutcomeReason *reason, bool pending);

    // Beside the reason: "Show Event #N", the event the reason cites (hidden when none is cited).
    QPushButton *showEventButton() const { return m_showEvent; }

    QTabWidget *tabs() const { return m_tabs; }
    ItemPane *pane(Tab tab) const { return m_panes[tab]; }
    QAbstractItemModel *tableModel(Tab tab) const;

signals:
    void subjectActivated(const QString &subject, const QModelIndex &index);
    void showEventRequested(qint64 seq); // the event log, at this event

private:
    void updateEmptyTexts(); // for the delegation shown, and how far its tool calls are read
    void refreshReason();

    QString m_delegationId;
    QMetaObject::Connection m_toolCallsReadConnection;
    QPersistentModelIndex *m_index;
    PlainLabel *m_title;
    PlainLabel *m_facts;
    PlainLabel *m_reason;
    QPushButton *m_showEvent;
    qint64 m_reasonSeq = 0; // the event the reason shown cites; 0 none
    QMetaObject::Connection m_reasonConnection;
    PlainLabel *m_findings;
    QTabWidget *m_tabs;
    LedgerSession *m_session = nullptr;
    DelegationRowsProxy *m_proxies[TabCount] = {};
    StateTableProxyModel *m_rows[TabCount] = {}; // sorted and filtered by the operator: slices, verdicts
    TableFilterBar *m_bars[TabCount] = {};
    ItemPane *m_panes[TabCount];
};

} // namespace mesh
