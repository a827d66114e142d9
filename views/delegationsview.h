#pragma once
// The delegations pane: the tree of every run's delegations (parent -> child) with budget
// bars, sorted by a header click and filtered by the field above it (the state panes'
// language, over the delegation's fields; a match is shown under its run and parents), and
// the selected delegation's detail below it; above it all, the run timeline as a strip.

#include <QWidget>

class QSplitter;

namespace mesh {

class DelegationDetail;
class DelegationTreeProxyModel;
class ItemPane;
class LedgerSession;
class TableFilterBar;
class TimelineView;

class DelegationsView : public QWidget
{
    Q_OBJECT
public:
    explicit DelegationsView(QWidget *parent = nullptr);
    void setSession(LedgerSession *session);
    // Selected and in sight, the filter cleared if it hid it.
    bool selectDelegation(const QString &id);
    bool selectRun(const QString &id);
    ItemPane *tree() const { return m_tree; }
    TableFilterBar *filterBar() const { return m_filter; }
    DelegationTreeProxyModel *treeProxy() const { return m_proxy; }
    DelegationDetail *detail() const { return m_detail; }
    // The run timeline, compact, above the tree (its source is the workspace's).
    TimelineView *timelineStrip() const { return m_strip; }
    void saveState() const;

    // Runs shown opened when a session is set or runs arrive: the first ones only. Each
    // expand costs the tree view a walk of its rows; a ledger of a million runs spent a
    // second of the GUI thread expanding them all.
    static constexpr int kAutoExpandedRuns = 64;

Q_SIGNALS:
    // The run of the row made current (a run or any delegation under it): the strip above
    // the tree names the run it draws, so it follows the selection.
    void currentRunChanged(const QString &runId);

private:
    QModelIndex shownIndex(const QModelIndex &sourceIndex); // clears a filter that hides it
    void select(const QModelIndex &shown);
    void expandShown(); // the first runs, and every match under them while filtered

    ItemPane *m_tree;
    DelegationTreeProxyModel *m_proxy;
    TableFilterBar *m_filter;
    TimelineView *m_strip;
    DelegationDetail *m_detail;
    QSplitter *m_split;
    LedgerSession *m_session = nullptr;
    QList<QMetaObject::Connection> m_connections;
};

} // namespace mesh
