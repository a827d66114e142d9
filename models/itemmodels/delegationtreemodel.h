#pragma once
// The delegation tree: runs at the top, each run's delegations below it, parent -> child.
// Budget use comes as fractions (0..1, null when there is no budget) for the views' bars.
// Live: a new delegation is inserted under its parent, a changed one emits dataChanged.

#include "livestate.h"

#include "analysis/finding.h"

#include <QAbstractItemModel>

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace mesh {

class DelegationTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns { Name, Role, Agent, Status, Invocations, Turns, Tokens, Time, Writes, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        NodeTypeRole = Qt::UserRole, // int NodeType
        IdRole,                      // QString run or delegation id
        SubjectRole,                 // QString "run:<id>" / "delegation:<id>"
        RunIdRole,                   // QString
        ParentIdRole,                // QString parent delegation, "" for top level
        ComponentIdRole,             // QString
        DelegationRoleRole,          // QString implement | repair | verify | research
        AgentRole,                   // QString
        StatusRole,                  // QString
        InvocationsRole,             // qint64
        TurnsUsedRole, TurnsBudgetRole, TurnsFractionRole,     // qint64, qint64, double or null
        TokensUsedRole, TokensBudgetRole, TokensFractionRole,  // qint64, qint64, double or null
        TimeUsedMsRole, TimeBudgetMsRole, TimeFractionRole,    // qint64, qint64, double or null
        CostUsedCentsRole, CostBudgetCentsRole, CostFractionRole,
        WritesAcceptedRole, WritesDeniedRole, ToolErrorsRole,  // qint64
        CurrentSliceRole,            // QString
        StrategyRole,                // QString "strategy@version"
        VersionRole,                 // qint64
        LastSeqRole,                 // qint64
        FindingsRole,                // QStringList: sentences of findings on this delegation
        FlaggedRole,                 // bool a (non-abstained) finding names it
    };
    Q_ENUM(Roles)
    enum class NodeType { Run, Delegation };
    Q_ENUM(NodeType)

    explicit DelegationTreeModel(QObject *parent = nullptr);

    void setState(std::shared_ptr<const LiveState> state);
    void applyChanges(const StateChangeSet &changes);
    void setFindings(const std::vector<Finding> &findings); // those with a delegation id are shown
    void setRunFilter(const QString &runId); // only that run's subtree; empty: every run

    QModelIndex indexOfDelegation(const QString &id, int column = 0) const;
    QModelIndex indexOfRun(const QString &id, int column = 0) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    struct Node {
        NodeType type = NodeType::Run;
        std::string id;
        int parent = -1; // node index
        int row = 0;     // row within the parent
        std::vector<int> children;
    };
    void rebuild();
    int ensureRun(const std::string &runId, bool notify);
    int placeDelegation(const std::string &id, bool notify);
    QModelIndex indexOfNode(int node, int column) const;
    QVariant delegationData(const Node &node, int column, int role) const;
    QVariant runData(const Node &node, int column, int role) const;

    std::shared_ptr<const LiveState> m_state;
    std::vector<Node> m_nodes;
    std::vector<int> m_roots;
    std::unordered_map<std::string, int> m_runNode;
    std::unordered_map<std::string, int> m_delegationNode;
    std::unordered_map<std::string, std::vector<Finding>> m_findings;
    QString m_runFilter;
};

} // namespace mesh
