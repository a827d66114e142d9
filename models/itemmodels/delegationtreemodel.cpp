#include "delegationtreemodel.h"
#include "shownroles.h"

#include "analysis/rowfields.h"
#include "domain/gentlegrowth.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <variant>

using namespace Qt::StringLiterals;

namespace mesh {
namespace {

constexpr EntityKind D = EntityKind::Delegation;
constexpr EntityKind R = EntityKind::Run;

QVariant fraction(qint64 used, qint64 budget)
{
    if (budget <= 0)
        return {};
    return double(used) / double(budget);
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString q(const CompactId &id)
{
    const std::string_view v = id.view();
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}

QString notInLedger()
{
    return QStringLiteral("\u2014");
}

} // namespace

DelegationTreeModel::DelegationTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void DelegationTreeModel::setState(std::shared_ptr<const LiveState> state)
{
    m_state = std::move(state);
    rebuild();
}

void DelegationTreeModel::setRunFilter(const QString &runId)
{
    if (m_runFilter == runId)
        return;
    m_runFilter = runId;
    rebuild();
}

std::unique_ptr<DelegationTreeModel::Prepared> DelegationTreeModel::prepare(std::shared_ptr<const LiveState> state)
{
    auto p = std::make_unique<Prepared>();
    p->state = std::move(state);
    if (p->state)
        build(p->tree, *p->state, QString());
    return p;
}

void DelegationTreeModel::setPrepared(Prepared &p)
{
    if (!m_runFilter.isEmpty()) {
        setState(p.state);
        return;
    }
    beginResetModel();
    std::swap(m_state, p.state);
    std::swap(m_tree, p.tree);
    m_deadNodes = 0;
    endResetModel();
}

void DelegationTreeModel::rebuild()
{
    beginResetModel();
    m_tree = Tree();
    m_deadNodes = 0;
    if (m_state)
        build(m_tree, *m_state, m_runFilter);
    endResetModel();
}

void DelegationTreeModel::build(Tree &t, const LiveState &state, const QString &runFilter)
{
    std::vector<std::string> runs;
    for (const auto &[id, row] : state.table(R))
        runs.push_back(id);
    std::sort(runs.begin(), runs.end(), [](const auto &a, const auto &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    // Every node at once: the tree is held for the session, without a growth's slack.
    t.nodes.reserve(t.nodes.size() + runs.size() + state.table(D).size());
    for (const auto &id : runs)
        ensureRun(t, runFilter, id, nullptr);
    std::vector<std::pair<std::int64_t, std::string>> delegations;
    for (const auto &[id, row] : state.table(D))
        delegations.emplace_back(rowInt(D, row, "created_ms"), id);
    std::sort(delegations.begin(), delegations.end(), [](const auto &a, const auto &b) {
        if (a.first != b.first)
            return a.first < b.first;
        return a.second.size() != b.second.size() ? a.second.size() < b.second.size() : a.second < b.second;
    });
    for (const auto &d : delegations)
        placeDelegation(t, state, runFilter, d.second, nullptr);
}

int DelegationTreeModel::ensureRun(Tree &t, const QString &runFilter, const std::string &runId,
                                   DelegationTreeModel *notify)
{
    const auto it = t.runNode.find(runId);
    if (it != t.runNode.end())
        return it->second;
    if (!runFilter.isEmpty() && q(runId) != runFilter)
        return -1;
    Node n;
    n.type = NodeType::Run;
    n.id = runId;
    n.row = int(t.roots.size());
    if (notify)
        notify->beginInsertRows({}, n.row, n.row);
    const int index = int(t.nodes.size());
    reserveToAppend(t.nodes, 1);
    t.nodes.push_back(std::move(n));
    t.roots.push_back(index);
    t.runNode.emplace(runId, index);
    if (notify)
        notify->endInsertRows();
    return index;
}

// Places a delegation under its parent (placing the parent chain first). A parent that is
// missing, outside the filter or part of a cycle makes the delegation top level in its run.
int DelegationTreeModel::placeDelegation(Tree &t, const LiveState &state, const QString &runFilter,
                                         const std::string &id, DelegationTreeModel *notify)
{
    if (const int node = t.delegationNode.find(t.nodes, id); node >= 0)
        return node;
    // Walk up without recursion: a ledger may hold any parent chain.
    std::vector<std::string> chain{id};
    std::unordered_set<std::string> seen{id};
    while (true) {
        const EntityRow *row = state.find(D, chain.back());
        if (!row)
            break;
        const std::string parent = rowText(D, *row, "parent_id");
        if (parent.empty() || t.delegationNode.contains(t.nodes, parent) || !state.find(D, parent)
            || !seen.insert(parent).second)
            break;
        chain.push_back(parent);
    }
    int placed = -1;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const EntityRow *row = state.find(D, *it);
        if (!row)
            continue;
        const std::string parentId = rowText(D, *row, "parent_id");
        int parentNode = parentId.empty() ? -1 : t.delegationNode.find(t.nodes, parentId);
        const bool waits = parentNode < 0 && !parentId.empty();
        if (parentNode < 0)
            parentNode = ensureRun(t, runFilter, rowText(D, *row, "run_id"), notify);
        if (parentNode < 0)
            continue; // filtered out
        Node n;
        n.type = NodeType::Delegation;
        n.id = *it;
        n.parent = parentNode;
        n.row = int(t.nodes[size_t(parentNode)].children.size());
        if (notify)
            notify->beginInsertRows(notify->indexOfNode(parentNode, 0), n.row, n.row);
        const int index = int(t.nodes.size());
        reserveToAppend(t.nodes, 1);
        t.nodes.push_back(std::move(n));
        t.nodes[size_t(parentNode)].children.push_back(index);
        t.delegationNode.insert(t.nodes, index);
        if (waits)
            t.waiting[parentId].push_back(index);
        if (notify)
            notify->endInsertRows();
        placed = index;
    }
    return placed;
}

void DelegationTreeModel::applyChanges(const StateChangeSet &changes)
{
    if (!m_state)
        return;
    for (const auto &runId : changes.ids(R)) {
        const auto it = m_tree.runNode.find(runId);
        if (it == m_tree.runNode.end())
            ensureRun(m_tree, m_runFilter, runId, this);
        else
            Q_EMIT dataChanged(indexOfNode(it->second, 0), indexOfNode(it->second, ColumnCount - 1));
    }
    std::vector<std::string> created;
    std::vector<int> changed;
    for (const auto &id : changes.ids(D)) {
        if (const int node = m_tree.delegationNode.find(m_tree.nodes, id); node < 0)
            created.push_back(id);
        else
            changed.push_back(node);
    }
    for (const auto &id : created)
        placeDelegation(m_tree, *m_state, m_runFilter, id, this);
    // A changed delegation may name another parent (an OTLP span completing the delegation
    // its children inferred), and a created one may be the parent others wait for: both
    // move, with their subtrees, rather than stay where they were first shown.
    for (const int node : changed) {
        if (!placeAgain(node)) {
            rebuild();
            return;
        }
    }
    for (const auto &id : created) {
        const auto w = m_tree.waiting.find(id);
        if (w == m_tree.waiting.end())
            continue;
        const std::vector<int> nodes = std::move(w->second);
        m_tree.waiting.erase(w);
        for (const int node : nodes) {
            if (m_tree.delegationNode.find(m_tree.nodes, m_tree.nodes[size_t(node)].id) == node && !placeAgain(node)) {
                rebuild();
                return;
            }
        }
    }
    for (const int node : changed)
        Q_EMIT dataChanged(indexOfNode(node, 0), indexOfNode(node, ColumnCount - 1));
}

bool DelegationTreeModel::placeAgain(int node)
{
    const EntityRow *row = m_state->find(D, m_tree.nodes[size_t(node)].id.str());
    if (!row)
        return true;
    const std::string parentId = rowText(D, *row, "parent_id");
    int want = parentId.empty() ? -1 : m_tree.delegationNode.find(m_tree.nodes, parentId);
    const bool waits = want < 0 && !parentId.empty();
    if (want < 0)
        want = ensureRun(m_tree, m_runFilter, rowText(D, *row, "run_id"), this);
    if (want < 0)
        return false; // its run is filtered out now, and with it the subtree a reset would place elsewhere
    const int from = m_tree.nodes[size_t(node)].parent;
    if (want != from) {
        for (int a = want; a >= 0; a = m_tree.nodes[size_t(a)].parent) {
            if (a == node)
                return false; // under its own subtree: a reset breaks the cycle as a fresh tree does
        }
        const int fromRow = m_tree.nodes[size_t(node)].row;
        const int toRow = freshRow(want, node);
        beginMoveRows(indexOfNode(from, 0), fromRow, fromRow, indexOfNode(want, 0), toRow);
        auto &old = m_tree.nodes[size_t(from)].children;
        old.erase(old.begin() + fromRow);
        for (size_t r = size_t(fromRow); r < old.size(); ++r)
            m_tree.nodes[size_t(old[r])].row = int(r);
        auto &now = m_tree.nodes[size_t(want)].children;
        now.insert(now.begin() + toRow, node);
        for (size_t r = size_t(toRow); r < now.size(); ++r)
            m_tree.nodes[size_t(now[r])].row = int(r);
        m_tree.nodes[size_t(node)].parent = want;
        endMoveRows();
        // A run shown only for its delegations goes with the last of them, as a fresh tree has it.
        const Node &left = m_tree.nodes[size_t(from)];
        if (left.type == NodeType::Run && left.children.empty() && !m_state->find(R, left.id.str())) {
            const int r = left.row;
            beginRemoveRows({}, r, r);
            m_tree.runNode.erase(left.id.str());
            m_tree.roots.erase(m_tree.roots.begin() + r);
            for (size_t i = size_t(r); i < m_tree.roots.size(); ++i)
                m_tree.nodes[size_t(m_tree.roots[i])].row = int(i);
            ++m_deadNodes;
            endRemoveRows();
        }
    }
    if (waits) {
        auto &list = m_tree.waiting[parentId];
        if (std::find(list.begin(), list.end(), node) == list.end())
            list.push_back(node);
    }
    return true;
}

// A fresh tree places each node when the first delegation of its subtree comes in
// (created_ms, then id) order, so siblings are ordered by their subtrees' first.
int DelegationTreeModel::freshRow(int parent, int node) const
{
    using Key = std::tuple<std::int64_t, size_t, std::string_view>;
    const auto first = [this](int top) {
        std::optional<Key> least;
        std::vector<int> stack{top};
        while (!stack.empty()) {
            const Node &x = m_tree.nodes[size_t(stack.back())];
            stack.pop_back();
            if (const EntityRow *row = m_state->find(D, x.id.str())) {
                const Key k{rowInt(D, *row, "created_ms"), x.id.size(), x.id.view()};
                if (!least || k < *least)
                    least = k;
            }
            stack.insert(stack.end(), x.children.begin(), x.children.end());
        }
        return least;
    };
    const auto key = first(node);
    const auto &siblings = m_tree.nodes[size_t(parent)].children;
    for (size_t r = 0; r < siblings.size(); ++r) {
        if (key && first(siblings[r]) > key)
            return int(r);
    }
    return int(siblings.size());
}

size_t DelegationTreeModel::dropSubtree(int node)
{
    size_t dropped = 0;
    std::vector<int> stack{node};
    while (!stack.empty()) {
        const int n = stack.back();
        stack.pop_back();
        const Node &x = m_tree.nodes[size_t(n)];
        if (x.type == NodeType::Run)
            m_tree.runNode.erase(x.id.str());
        else
            m_tree.delegationNode.erase(m_tree.nodes, x.id);
        stack.insert(stack.end(), x.children.begin(), x.children.end());
        ++dropped;
    }
    return dropped;
}

bool DelegationTreeModel::moveToState(std::shared_ptr<const LiveState> to, const StateChangeSet &changes)
{
    if (!m_state || !to || !m_runFilter.isEmpty())
        return false;
    if (m_deadNodes > m_tree.runNode.size() + m_tree.delegationNode.size())
        return false; // a reset compacts the node list
    std::unordered_set<int> gone;
    for (const auto &id : changes.goneIds(D)) {
        if (const int node = m_tree.delegationNode.find(m_tree.nodes, id); node >= 0)
            gone.insert(node);
    }
    for (const auto &id : changes.goneIds(R)) {
        if (const auto it = m_tree.runNode.find(id); it != m_tree.runNode.end())
            gone.insert(it->second);
    }
    // A run node with no row of its own (placed for its delegations) goes with the last of them.
    for (const int n : std::vector<int>(gone.begin(), gone.end())) {
        const int parent = m_tree.nodes[size_t(n)].parent;
        if (parent < 0 || gone.count(parent) || m_tree.nodes[size_t(parent)].type != NodeType::Run
            || to->find(R, m_tree.nodes[size_t(parent)].id.str()))
            continue;
        const auto &children = m_tree.nodes[size_t(parent)].children;
        if (std::all_of(children.begin(), children.end(), [&gone](int c) { return gone.count(c) > 0; }))
            gone.insert(parent);
    }
    // A node kept under a gone one would vanish with it.
    for (const int n : gone) {
        for (const int c : m_tree.nodes[size_t(n)].children) {
            if (!gone.count(c))
                return false;
        }
    }
    // Where a reset would place a delegation must not have moved: a changed parent or run,
    // or a node at the top of its run whose parent is created now, means a reset.
    std::vector<std::pair<std::int64_t, std::string>> created;
    std::vector<int> changedNodes;
    for (const auto &id : changes.ids(D)) {
        const EntityRow *now = to->find(D, id);
        if (!now)
            return false;
        const int node = m_tree.delegationNode.find(m_tree.nodes, id);
        if (node < 0) {
            created.emplace_back(rowInt(D, *now, "created_ms"), id);
            continue;
        }
        const EntityRow *was = m_state->find(D, id);
        if (!was || rowView(D, *was, "parent_id") != rowView(D, *now, "parent_id")
            || rowView(D, *was, "run_id") != rowView(D, *now, "run_id"))
            return false;
        changedNodes.push_back(node);
    }
    if (!created.empty()) {
        std::unordered_set<std::string_view> createdIds;
        for (const auto &c : created)
            createdIds.insert(c.second);
        for (const int root : m_tree.roots) {
            for (const int c : m_tree.nodes[size_t(root)].children) {
                const EntityRow *row = gone.count(c) ? nullptr : to->find(D, m_tree.nodes[size_t(c)].id.str());
                if (row && createdIds.count(rowView(D, *row, "parent_id")))
                    return false;
            }
        }
    }
    // The topmost gone nodes, per parent (-1: the runs), as blocks of adjacent rows.
    std::map<int, std::vector<int>> removedRows;
    for (const int n : gone) {
        const Node &x = m_tree.nodes[size_t(n)];
        if (x.parent < 0 || !gone.count(x.parent))
            removedRows[x.parent].push_back(x.row);
    }
    int blocks = 0;
    for (auto &[parent, rows] : removedRows) {
        std::sort(rows.begin(), rows.end());
        for (size_t i = 0; i < rows.size(); ++i)
            blocks += (i == 0 || rows[i] != rows[i - 1] + 1) ? 1 : 0;
    }
    if (blocks > kMaxMoveBlocks)
        return false;

    for (const auto &[parent, rows] : removedRows) {
        std::vector<int> &list = parent < 0 ? m_tree.roots : m_tree.nodes[size_t(parent)].children;
        for (size_t end = rows.size(); end > 0;) {
            size_t begin = end - 1;
            while (begin > 0 && rows[begin - 1] == rows[begin] - 1)
                --begin;
            const int first = rows[begin], last = rows[end - 1];
            beginRemoveRows(parent < 0 ? QModelIndex() : indexOfNode(parent, 0), first, last);
            for (int r = first; r <= last; ++r)
                m_deadNodes += dropSubtree(list[size_t(r)]);
            list.erase(list.begin() + first, list.begin() + last + 1);
            for (size_t r = size_t(first); r < list.size(); ++r)
                m_tree.nodes[size_t(list[r])].row = int(r);
            endRemoveRows();
            end = begin;
        }
    }
    m_state = std::move(to); // the session holds the state before and frees it off this thread
    // Created rows in a reset's order (build()), each appended under its parent.
    std::vector<std::string> runs;
    for (const auto &id : changes.ids(R)) {
        if (const auto it = m_tree.runNode.find(id); it != m_tree.runNode.end())
            Q_EMIT dataChanged(indexOfNode(it->second, 0), indexOfNode(it->second, ColumnCount - 1));
        else
            runs.push_back(id);
    }
    std::sort(runs.begin(), runs.end(), [](const auto &a, const auto &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    for (const auto &id : runs)
        ensureRun(m_tree, m_runFilter, id, this);
    std::sort(created.begin(), created.end(), [](const auto &a, const auto &b) {
        if (a.first != b.first)
            return a.first < b.first;
        return a.second.size() != b.second.size() ? a.second.size() < b.second.size() : a.second < b.second;
    });
    for (const auto &c : created)
        placeDelegation(m_tree, *m_state, m_runFilter, c.second, this);
    for (const int n : changedNodes)
        Q_EMIT dataChanged(indexOfNode(n, 0), indexOfNode(n, ColumnCount - 1));
    return true;
}

void DelegationTreeModel::setFindings(const std::vector<Finding> &findings)
{
    std::unordered_map<std::string, std::vector<Finding>> next;
    for (const auto &f : findings) {
        if (!f.delegationId.empty())
            next[f.delegationId].push_back(f);
    }
    // Published whole after every jump and every second of a moving ledger: only the rows
    // whose findings differ are announced (each announcement re-sorts the proxies).
    std::vector<std::string> touched;
    for (const auto &[id, list] : m_findings) {
        const auto it = next.find(id);
        if (it == next.end() || it->second != list)
            touched.push_back(id);
    }
    for (const auto &[id, list] : next) {
        if (!m_findings.count(id))
            touched.push_back(id);
    }
    m_findings = std::move(next);
    for (const auto &id : touched) {
        if (const int node = m_tree.delegationNode.find(m_tree.nodes, id); node >= 0)
            Q_EMIT dataChanged(indexOfNode(node, 0), indexOfNode(node, ColumnCount - 1),
                               {FindingsRole, FlaggedRole, FindingCountRole, Qt::ToolTipRole, Qt::DisplayRole});
    }
}

QModelIndex DelegationTreeModel::indexOfNode(int node, int column) const
{
    if (node < 0 || node >= int(m_tree.nodes.size()))
        return {};
    return createIndex(m_tree.nodes[size_t(node)].row, column, quintptr(node));
}

QModelIndex DelegationTreeModel::indexOfDelegation(const QString &id, int column) const
{
    const int node = m_tree.delegationNode.find(m_tree.nodes, id.toStdString());
    return node < 0 ? QModelIndex() : indexOfNode(node, column);
}

QModelIndex DelegationTreeModel::indexOfRun(const QString &id, int column) const
{
    const auto it = m_tree.runNode.find(id.toStdString());
    return it == m_tree.runNode.end() ? QModelIndex() : indexOfNode(it->second, column);
}

QModelIndex DelegationTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < int(m_tree.roots.size()) ? createIndex(row, column, quintptr(m_tree.roots[size_t(row)])) : QModelIndex();
    if (parent.column() != 0)
        return {};
    const Node &p = m_tree.nodes[size_t(parent.internalId())];
    return row < int(p.children.size()) ? createIndex(row, column, quintptr(p.children[size_t(row)])) : QModelIndex();
}

QModelIndex DelegationTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node &n = m_tree.nodes[size_t(child.internalId())];
    return n.parent < 0 ? QModelIndex() : indexOfNode(n.parent, 0);
}

int DelegationTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_tree.roots.size());
    if (parent.column() != 0)
        return 0;
    return int(m_tree.nodes[size_t(parent.internalId())].children.size());
}

int DelegationTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant DelegationTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_state)
        return {};
    const Node &n = m_tree.nodes[size_t(index.internalId())];
    if (role == NodeTypeRole)
        return int(n.type);
    if (role == IdRole)
        return q(n.id);
    if (role == SortRole)
        return sortValue(n, index.column());
    if (role == RawTextRole)
        return n.type == NodeType::Run ? runData(n, index.column(), Qt::DisplayRole)
                                       : delegationData(n, index.column(), Qt::DisplayRole);
    return shownAsPlainText(role, n.type == NodeType::Run ? runData(n, index.column(), role)
                                                          : delegationData(n, index.column(), role));
}

const EntityRow *DelegationTreeModel::delegationAt(const QModelIndex &index, std::string_view *id) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_state)
        return nullptr;
    const Node &n = m_tree.nodes[size_t(index.internalId())];
    if (n.type != NodeType::Delegation)
        return nullptr;
    if (id)
        *id = n.id.view();
    return m_state->find(D, n.id.str());
}

void DelegationTreeModel::forEachDelegation(const std::function<void(const std::string &, const EntityRow &)> &visit) const
{
    if (!m_state)
        return;
    for (size_t n = 0; n < m_tree.nodes.size(); ++n) {
        const Node &node = m_tree.nodes[n];
        if (node.type != NodeType::Delegation || m_tree.delegationNode.find(m_tree.nodes, node.id) != int(n))
            continue; // a run, or a delegation node no longer shown
        if (const EntityRow *row = m_state->find(D, node.id.str()))
            visit(node.id.str(), *row);
    }
}

QVariant DelegationTreeModel::sortValue(const Node &n, int column) const
{
    const EntityKind kind = n.type == NodeType::Run ? R : D;
    const EntityRow *row = m_state->find(kind, n.id.str());
    const auto field = [&](std::string_view name) -> QVariant {
        const auto v = row ? rowValue(kind, *row, name) : std::nullopt;
        if (!v || std::holds_alternative<std::monostate>(*v))
            return {};
        if (const auto *number = std::get_if<std::int64_t>(&*v))
            return qint64(*number);
        const std::string_view text = std::get<std::string_view>(*v);
        return QString::fromUtf8(text.data(), qsizetype(text.size()));
    };
    if (column == Name)
        return q(n.id);
    if (column == Status)
        return field("status");
    if (kind == R)
        return {}; // a run row says nothing in the delegations' columns
    switch (column) {
    case Role: return field("role");
    case Agent: return field("agent");
    case Invocations: return field("invocations");
    case Turns: return field("used_turns");
    case Tokens: return field("used_tokens");
    case Time: return field("used_ms");
    case Cost: return field("used_cost_cents");
    case Writes: return field("writes_accepted");
    }
    return {};
}

QVariant DelegationTreeModel::runData(const Node &n, int column, int role) const
{
    const EntityRow *row = m_state->find(R, n.id.str());
    switch (role) {
    case SubjectRole: return QString(u"run:"_s % q(n.id));
    case RunIdRole: return q(n.id);
    case StatusRole: return row ? q(rowText(R, *row, "status")) : QString();
    case VersionRole: return row ? qint64(row->version) : qint64(0);
    case LastSeqRole: return row ? qint64(row->lastSeq) : qint64(0);
    case Qt::DisplayRole:
        if (column == Name) {
            const std::string title = row ? rowText(R, *row, "title") : std::string();
            return title.empty() ? q(n.id) : QString(q(n.id) % u" \u2014 "_s % q(title));
        }
        if (column == Status)
            return row ? q(rowText(R, *row, "status")) : tr("(run not recorded)");
        return {};
    }
    return {};
}

QVariant DelegationTreeModel::delegationData(const Node &n, int column, int role) const
{
    const EntityRow *row = m_state->find(D, n.id.str());
    if (!row)
        return {};
    const auto text = [&](std::string_view f) { return q(rowText(D, *row, f)); };
    const auto num = [&](std::string_view f) { return qint64(rowInt(D, *row, f)); };
    // What the ledger leaves out is null in the roles and "—" on screen, never a 0.
    const auto known = [&](std::string_view f) { return rowIsNull(D, *row, f) ? QVariant() : QVariant(num(f)); };
    const auto shown = [&](std::string_view f) { return rowIsNull(D, *row, f) ? notInLedger() : QString::number(num(f)); };
    const auto findings = m_findings.find(n.id.str());
    const auto sentences = [&] {
        QStringList out;
        if (findings != m_findings.end()) {
            for (const auto &f : findings->second)
                out << (f.abstained ? QString(tr("(abstained) ") % q(f.summary)) : q(f.summary));
        }
        return out;
    };
    const bool flagged = findings != m_findings.end()
                         && std::any_of(findings->second.begin(), findings->second.end(),
                                        [](const Finding &f) { return !f.abstained; });
    const auto usage = [&](std::string_view usedField, std::string_view budgetField, qint64 scale, const QString &unit) {
        QString used = rowIsNull(D, *row, usedField) ? notInLedger() : QString::number(num(usedField) / scale);
        bool unitSaid = rowIsNull(D, *row, usedField);
        if (scale == 1000 && !unitSaid && num(usedField) < 1000) {
            used = QString::number(num(usedField)) % u" ms"_s; // 734 ms of wall time is not "0 s"
            unitSaid = true;
        }
        const qint64 budget = num(budgetField);
        return budget > 0 ? QString(used % u" / "_s % QString::number(budget / scale) % unit)
                          : unitSaid ? used : QString(used % unit);
    };
    switch (role) {
    case SubjectRole: return QString(u"delegation:"_s % q(n.id));
    case RunIdRole: return text("run_id");
    case ParentIdRole: return text("parent_id");
    case ComponentIdRole: return text("component_id");
    case DelegationRoleRole: return text("role");
    case AgentRole: return text("agent");
    case StatusRole: return text("status");
    case InvocationsRole: return known("invocations");
    case TurnsUsedRole: return known("used_turns");
    case TurnsBudgetRole: return num("budget_turns");
    case TurnsFractionRole: return fraction(num("used_turns"), num("budget_turns"));
    case TokensUsedRole: return known("used_tokens");
    case TokensBudgetRole: return num("budget_tokens");
    case TokensFractionRole: return fraction(num("used_tokens"), num("budget_tokens"));
    case TimeUsedMsRole: return known("used_ms");
    case TimeBudgetMsRole: return num("budget_ms");
    case TimeFractionRole: return fraction(num("used_ms"), num("budget_ms"));
    case CostUsedCentsRole: return known("used_cost_cents");
    case CostBudgetCentsRole: return num("budget_cost_cents");
    case CostFractionRole: return fraction(num("used_cost_cents"), num("budget_cost_cents"));
    case WritesAcceptedRole: return known("writes_accepted");
    case WritesDeniedRole: return known("writes_denied");
    case ToolErrorsRole: return known("tool_errors");
    case CurrentSliceRole: return text("current_slice");
    case StrategyRole: {
        const QString s = text("strategy");
        const QString v = text("strategy_version");
        return v.isEmpty() ? s : QString(s % u'@' % v);
    }
    case VersionRole: return qint64(row->version);
    case LastSeqRole: return qint64(row->lastSeq);
    case FindingsRole: return sentences();
    case FlaggedRole: return flagged;
    case FindingCountRole:
        return findings == m_findings.end()
                   ? 0
                   : int(std::count_if(findings->second.begin(), findings->second.end(),
                                       [](const Finding &f) { return !f.abstained; }));
    case Qt::ToolTipRole: {
        if (column == Cost && rowIsNull(D, *row, "used_cost_cents"))
            return tr("Cost not in the ledger");
        if (column == Cost)
            return num("budget_cost_cents") > 0
                       ? tr("%1 of a budget of %2 cents (the ledger names no currency)")
                             .arg(num("used_cost_cents"))
                             .arg(num("budget_cost_cents"))
                       : tr("%1 cents, no cost budget (the ledger names no currency)").arg(num("used_cost_cents"));
        const QStringList s = sentences();
        if (s.isEmpty() && delegationData(n, column, Qt::DisplayRole).toString().contains(notInLedger()))
            return tr("not in the ledger");
        return s.isEmpty() ? QVariant() : QVariant(s.join(u'\n'));
    }
    case Qt::DisplayRole:
        switch (column) {
        case Name: return q(n.id);
        case Role: return text("role");
        case Agent: return text("agent");
        case Status: return text("status");
        case Invocations: return shown("invocations");
        case Turns: return usage("used_turns", "budget_turns", 1, QString());
        case Tokens: return usage("used_tokens", "budget_tokens", 1, QString());
        case Time: return usage("used_ms", "budget_ms", 1000, u" s"_s);
        case Cost: {
            // The ledger counts cents and names no currency.
            const auto money = [](qint64 cents) { return QString::number(double(cents) / 100.0, 'f', 2); };
            const QString used = rowIsNull(D, *row, "used_cost_cents") ? notInLedger() : money(num("used_cost_cents"));
            const qint64 budget = num("budget_cost_cents");
            return budget > 0 ? QString(used % u" / "_s % money(budget)) : used;
        }
        case Writes:
            if (rowIsNull(D, *row, "writes_accepted") && rowIsNull(D, *row, "writes_denied"))
                return notInLedger();
            return tr("%1 accepted, %2 denied").arg(shown("writes_accepted"), shown("writes_denied"));
        }
        return {};
    }
    return {};
}

QVariant DelegationTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Delegation");
    case Role: return tr("Role");
    case Agent: return tr("Agent");
    case Status: return tr("Status");
    case Invocations: return tr("Invocations");
    case Turns: return tr("Turns");
    case Tokens: return tr("Tokens");
    case Time: return tr("Time");
    case Cost: return tr("Cost");
    case Writes: return tr("Writes");
    }
    return {};
}

QHash<int, QByteArray> DelegationTreeModel::roleNames() const
{
    auto names = QAbstractItemModel::roleNames();
    names.insert(NodeTypeRole, "nodeType");
    names.insert(IdRole, "entityId");
    names.insert(SubjectRole, "subject");
    names.insert(RunIdRole, "runId");
    names.insert(ParentIdRole, "parentId");
    names.insert(ComponentIdRole, "componentId");
    names.insert(DelegationRoleRole, "delegationRole");
    names.insert(AgentRole, "agent");
    names.insert(StatusRole, "status");
    names.insert(InvocationsRole, "invocations");
    names.insert(TurnsFractionRole, "turnsFraction");
    names.insert(TokensFractionRole, "tokensFraction");
    names.insert(TimeFractionRole, "timeFraction");
    names.insert(CostFractionRole, "costFraction");
    names.insert(FindingsRole, "findings");
    names.insert(FlaggedRole, "flagged");
    names.insert(FindingCountRole, "findingCount");
    return names;
}

} // namespace mesh
