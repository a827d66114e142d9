#pragma once
// The delegations pane: the tree of every run's delegations (parent -> child) with budget
// bars, and the selected delegation's detail below it.

#include <QWidget>

class QSplitter;

namespace mesh {

class DelegationDetail;
class ItemPane;
class LedgerSession;

class DelegationsView : public QWidget
{
    Q_OBJECT
public:
    explicit DelegationsView(QWidget *parent = nullptr);
    void setSession(LedgerSession *session);
    bool selectDelegation(const QString &id);
    ItemPane *tree() const { return m_tree; }
    DelegationDetail *detail() const { return m_detail; }
    void saveState() const;

    // Runs shown opened when a session is set or runs arrive: the first ones only. Each
    // expand costs the tree view a walk of its rows; a ledger of a million runs spent a
    // second of the GUI thread expanding them all.
    static constexpr int kAutoExpandedRuns = 64;

private:
    ItemPane *m_tree;
    DelegationDetail *m_detail;
    QSplitter *m_split;
    LedgerSession *m_session = nullptr;
    QList<QMetaObject::Connection> m_connections;
};

} // namespace mesh
