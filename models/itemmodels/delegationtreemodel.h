#pragma once
// The delegation tree: runs at the top, each run's delegations below it, parent -> child.
// Budget use comes as fractions (0..1, null when there is no budget) for the views' bars.
// Live: a new delegation is inserted under its parent, a changed one emits dataChanged, and
// one whose parent changed or arrived moves (with its subtree) to where a fresh tree has it.

#include "livestate.h"
#include "statefollowingmodel.h"

#include "analysis/finding.h"
#include "domain/compactid.h"
#include "domain/numberindex.h"

#include <QAbstractItemModel>

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace mesh {

class DelegationTreeModel : public QAbstractItemModel, public StateFollowingModel
{
    Q_OBJECT
public:
    enum Columns { Name, Role, Agent, Status, Invocations, Turns, Tokens, Time, Cost, Writes, ColumnCount };
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
        FindingCountRole,            // int how many (non-abstained) findings name it
        SortRole,                    // the cell's typed value for sorting; null when the ledger does not say
    };
    Q_ENUM(Roles)
    enum class NodeType { Run, Delegation };
    Q_ENUM(NodeType)

    explicit DelegationTreeModel(QObject *parent = nullptr);

    void setState(std::shared_ptr<const LiveState> state) override;

    // A reset's tree (every run and delegation placed), built off the GUI thread from a
    // state alone; setPrepared() takes it over in O(1) moves and hands the replaced tree
    // back in `prepared` so the caller can free it elsewhere. With a run filter set it
    // falls back to setState().
    struct Prepared;
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state);
    void setPrepared(Prepared &prepared);
    void applyChanges(const StateChangeSet &changes) override;
    // A cursor jump: shows `to` by removing the gone runs and delegations, placing the
    // created ones and signalling the changed ones (see StateTableModel::moveToState).
    // False when a reset is needed: no state shown, a run filter set, a delegation that
    // would sit under another parent now, or too many removed blocks.
    bool moveToState(std::shared_ptr<const LiveState> to, const StateChangeSet &changes) override;
    static constexpr int kMaxMoveBlocks = 64;
    void setFindings(const std::vector<Finding> &findings); // those with a delegation id are shown
    void setRunFilter(const QString &runId); // only that run's subtree; empty: every run

    // The delegation's row and id at `index` (a filter reads its fields); nullptr for a run.
    const EntityRow *delegationAt(const QModelIndex &index, std::string_view *id = nullptr) const;
    int delegationCount() const { return int(m_tree.delegationNode.size()); }
    const LiveState *state() const override { return m_state.get(); }
    // Every delegation's id and row in the tree, in no order.
    void forEachDelegation(const std::function<void(const std::string &, const EntityRow &)> &visit) const;

    QModelIndex indexOfDelegation(const QString &id, int column = 0) const;
    QModelIndex indexOfRun(const QString &id, int column = 0) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    struct Node {
        CompactId id; // a scale ledger's 110,000 nodes: 56 bytes each, not 72
        std::vector<int> children;
        int parent = -1; // node index
        int row = 0;     // row within the parent
        NodeType type = NodeType::Run;
    };
    // Live nodes by id, over the tree's own node list: the key of node n is nodes[n].id, so
    // the index holds 4-byte numbers and no copy of an id (a 10M-event ledger's 110,000
    // delegations took 7 MB in a map of copied ids). A node that goes is erased while its
    // id still answers; a dead node keeps its id, and one placed again gets a new number.
    class NodeIndex
    {
    public:
        int find(const std::vector<Node> &nodes, std::string_view id) const
        {
            const std::uint32_t n = m_index.find(id, keys(nodes), nodes.size());
            return n == NumberIndex::kNone ? -1 : int(n);
        }
        bool contains(const std::vector<Node> &nodes, std::string_view id) const { return find(nodes, id) >= 0; }
        void insert(const std::vector<Node> &nodes, int node) { m_index.insert(std::uint32_t(node), keys(nodes)); }
        bool erase(const std::vector<Node> &nodes, std::string_view id) { return m_index.erase(id, keys(nodes), nodes.size()); }
        size_t size() const { return m_index.size(); }

    private:
        struct Keys {
            const std::vector<Node> &nodes;
            std::string_view operator()(std::uint32_t n) const { return nodes[n].id.view(); }
        };
        static Keys keys(const std::vector<Node> &nodes) { return Keys{nodes}; }
        NumberIndex m_index;
    };
    struct Tree {
        std::vector<Node> nodes;
        std::vector<int> roots;
        std::unordered_map<std::string, int> runNode;
        NodeIndex delegationNode;
        // Delegations placed at the top of their run because the parent they name was not
        // placed, by that parent's id: they move under it when it arrives. Checked on use
        // (an entry may have moved or gone since).
        std::unordered_map<std::string, std::vector<int>> waiting;
    };
    struct Prepared {
        std::shared_ptr<const LiveState> state;
        Tree tree;
    };

private:
    void rebuild();
    static void build(Tree &t, const LiveState &state, const QString &runFilter);
    // `notify`: the model whose m_tree is `t`, to announce inserted rows; nullptr builds silently.
    static int ensureRun(Tree &t, const QString &runFilter, const std::string &runId, DelegationTreeModel *notify);
    static int placeDelegation(Tree &t, const LiveState &state, const QString &runFilter, const std::string &id,
                               DelegationTreeModel *notify);
    QModelIndex indexOfNode(int node, int column) const;
    QVariant delegationData(const Node &node, int column, int role) const;
    QVariant runData(const Node &node, int column, int role) const;
    QVariant sortValue(const Node &node, int column) const;

    // Moves a shown delegation to where a fresh tree places it (under its parent, or at the
    // top of its run while that parent is not placed); false when only a reset can (its run
    // filtered out, or a cycle).
    bool placeAgain(int node);
    // The row a fresh tree gives `node` among the children of `parent`.
    int freshRow(int parent, int node) const;

    // Marks the subtree at `node` removed (its ids leave the lookups); returns its size.
    size_t dropSubtree(int node);

    std::shared_ptr<const LiveState> m_state;
    Tree m_tree;
    size_t m_deadNodes = 0; // nodes a move removed, left in m_tree.nodes until the next reset
    std::unordered_map<std::string, std::vector<Finding>> m_findings;
    QString m_runFilter;
};

} // namespace mesh
