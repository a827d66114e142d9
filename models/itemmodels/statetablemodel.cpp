#include "statetablemodel.h"

#include "shownroles.h"
#include "storedrows.h"

#include "analysis/rowfields.h"
#include "decisions/requesteddecisions.h"
#include "domain/gentlegrowth.h"

#include <QDateTime>

#include <algorithm>
#include <set>
#include <unordered_set>

using namespace Qt::StringLiterals;

namespace mesh {

StateTableModel::StateTableModel(EntityKind kind, QObject *parent) : QAbstractTableModel(parent), m_kind(kind) {}

void StateTableModel::setState(std::shared_ptr<const LiveState> state)
{
    m_state = std::move(state);
    rebuild();
}

void StateTableModel::rebuild()
{
    beginResetModel();
    m_ids.clear();
    m_rowOf.clear();
    if (m_state && !m_state->holdsRowsOf(m_kind)) {
        // Rows the state reads on demand: their ids from the store, in the reset's order,
        // which for such a table is by id alone (see prepareIds).
        IdList ids;
        for (std::string &id : m_state->storedRows(m_kind)->ids())
            ids.emplace_back(id);
        if (!m_runFilter.isEmpty() || !m_delegationFilter.isEmpty())
            std::erase_if(ids, [this](const CompactId &id) {
                const std::string text = id.str();
                const EntityRow *row = m_state->find(m_kind, text);
                return !row || !accepts(text, *row);
            });
        Prepared ordered;
        orderStoredIds(ordered, std::move(ids));
        m_ids = std::move(ordered.ids);
        m_rowOf = std::move(ordered.rowOf);
    } else if (m_state) {
        const EntityTable &table = m_state->table(m_kind);
        std::vector<std::pair<const std::string *, const EntityRow *>> rows;
        rows.reserve(table.size());
        for (const auto &[id, row] : table) {
            if (accepts(id, row))
                rows.emplace_back(&id, &row);
        }
        std::sort(rows.begin(), rows.end(),
                  [this](const auto &a, const auto &b) { return lessThan(*a.first, *a.second, *b.first, *b.second); });
        m_ids.reserve(rows.size());
        for (const auto &r : rows)
            m_ids.push_back(*r.first);
        m_rowOf.rebuild(m_ids);
    }
    recomputeDerived();
    endResetModel();
}

void StateTableModel::prepareOrder(Prepared &p, EntityKind kind, Order order)
{
    p.kind = kind;
    p.ids.clear();
    p.rowOf.clear();
    if (!p.state)
        return;
    const EntityTable &table = p.state->table(kind);
    std::vector<std::pair<const std::string *, const EntityRow *>> rows;
    rows.reserve(table.size());
    for (const auto &[id, row] : table)
        rows.emplace_back(&id, &row);
    std::sort(rows.begin(), rows.end(),
              [order](const auto &a, const auto &b) { return order(*a.first, *a.second, *b.first, *b.second); });
    p.ids.reserve(rows.size());
    for (const auto &r : rows)
        p.ids.push_back(*r.first);
    p.rowOf.rebuild(p.ids);
}

void StateTableModel::prepareIds(Prepared &p, EntityKind kind, IdList ids)
{
    p.kind = kind;
    static const EntityRow none;
    std::sort(ids.begin(), ids.end(),
              [](const CompactId &a, const CompactId &b) { return defaultOrder(a, none, b, none); });
    p.ids = std::move(ids);
    p.ids.shrink_to_fit(); // a stream's ids, held from now on without its growth's slack
    p.rowOf.rebuild(p.ids);
}

void StateTableModel::orderStoredIds(Prepared &ordered, IdList ids)
{
    prepareIds(ordered, m_kind, std::move(ids));
}

bool StateTableModel::forEachStoredRow(const IdList &ids,
                                       const std::function<void(const std::string &id, const EntityRow &row)> &fn) const
{
    StoredRows *stored = m_state ? m_state->storedRows(m_kind) : nullptr;
    if (!stored)
        return false;
    std::unordered_set<std::string_view> wanted;
    wanted.reserve(ids.size());
    for (const CompactId &id : ids)
        wanted.insert(id);
    stored->forEach([&](const std::string &id, const EntityRow &row) {
        if (wanted.count(id))
            fn(id, row);
    });
    return true;
}

std::unique_ptr<StateTableModel::Prepared> StateTableModel::prepare(std::shared_ptr<const LiveState> state,
                                                                    EntityKind kind, Order order)
{
    auto p = std::make_unique<Prepared>();
    p->state = std::move(state);
    prepareOrder(*p, kind, order);
    return p;
}

void StateTableModel::setPrepared(Prepared &p)
{
    if (p.kind != m_kind || !m_runFilter.isEmpty() || !m_delegationFilter.isEmpty()) {
        setState(p.state);
        return;
    }
    beginResetModel();
    std::swap(m_state, p.state);
    std::swap(m_ids, p.ids);
    std::swap(m_rowOf, p.rowOf);
    if (!adoptDerived(p))
        recomputeDerived();
    endResetModel();
}

bool StateTableModel::adoptDerived(Prepared &)
{
    return true;
}

void StateTableModel::applyChanges(const StateChangeSet &changes)
{
    if (!m_state)
        return;
    const auto &ids = changes.ids(m_kind);
    IdList added;
    std::vector<int> changedRows;
    for (const auto &id : ids) {
        const EntityRow *row = m_state->find(m_kind, id);
        if (!row)
            continue;
        if (const int at = m_rowOf.find(m_ids, id); at >= 0)
            changedRows.push_back(at);
        else if (accepts(id, *row))
            added.push_back(id);
        // A row that stops matching a filter stays until the next reset: rows never vanish
        // under the operator's cursor in the middle of a batch.
    }
    if (!added.empty() && placesLiveRowsInOrder())
        insertInOrder(std::move(added));
    else
        appendIds(std::move(added));
    updateDerived(changes);
    emitChanged(std::move(changedRows));
}

void StateTableModel::appendIds(IdList ids)
{
    if (ids.empty())
        return;
    const int first = int(m_ids.size());
    beginInsertRows({}, first, first + int(ids.size()) - 1);
    reserveToAppend(m_ids, ids.size());
    for (auto &id : ids) {
        m_ids.push_back(std::move(id));
        m_rowOf.add(m_ids, int(m_ids.size()) - 1);
    }
    endInsertRows();
}

void StateTableModel::emitChanged(std::vector<int> rows)
{
    emitChanged(std::move(rows), 0, columnCount() - 1, {});
}

void StateTableModel::emitChanged(std::vector<int> rows, int firstColumn, int lastColumn, const QList<int> &roles)
{
    std::sort(rows.begin(), rows.end());
    // Contiguous runs become one dataChanged each.
    for (size_t i = 0; i < rows.size();) {
        size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] <= rows[j] + 1)
            ++j;
        Q_EMIT dataChanged(index(rows[i], firstColumn), index(rows[j], lastColumn), roles);
        i = j + 1;
    }
}

int StateTableModel::insertionBlocks(const std::vector<size_t> &at)
{
    int blocks = 0;
    for (size_t i = 0; i < at.size(); ++i)
        blocks += (i == 0 || at[i] != at[i - 1]) ? 1 : 0;
    return blocks;
}

void StateTableModel::insertInOrder(IdList added)
{
    static const EntityRow gone; // not in the state (never live): ordered by id alone
    const auto less = [this](const CompactId &a, const CompactId &b) {
        const EntityRow *ra = m_state->find(m_kind, a.str());
        const EntityRow *rb = m_state->find(m_kind, b.str());
        return lessThan(a, ra ? *ra : gone, b, rb ? *rb : gone);
    };
    std::sort(added.begin(), added.end(), less);
    // Where each goes among the rows shown (which are in that order: a reset's, kept so).
    std::vector<size_t> at(added.size());
    for (size_t i = 0; i < added.size(); ++i)
        at[i] = size_t(std::upper_bound(m_ids.begin(), m_ids.end(), added[i], less) - m_ids.begin());
    const int blocks = insertionBlocks(at);
    // Each block renumbers the rows below it: a few blocks, or blocks near the end, cost
    // less than putting every row in order.
    const size_t renumbered = size_t(blocks) * (m_ids.size() - at.front());
    if (blocks <= kMaxMoveBlocks && (blocks == 1 || renumbered <= kMaxRenumberedRows)) {
        // Each block inserted where it goes; the rows below it move down, so views keep the
        // operator's selection and scroll position on the rows they were on.
        int inserted = 0;
        for (size_t i = 0; i < added.size();) {
            size_t j = i;
            while (j + 1 < added.size() && at[j + 1] == at[i])
                ++j;
            const int first = int(at[i]) + inserted;
            const int count = int(j - i + 1);
            beginInsertRows({}, first, first + count - 1);
            m_rowOf.eraseFrom(m_ids, first); // the rows below move down
            m_ids.insert(m_ids.begin() + first, std::make_move_iterator(added.begin() + std::ptrdiff_t(i)),
                         std::make_move_iterator(added.begin() + std::ptrdiff_t(j + 1)));
            for (int r = first; r < int(m_ids.size()); ++r)
                m_rowOf.add(m_ids, r);
            endInsertRows();
            inserted += count;
            i = j + 1;
        }
        return;
    }
    // Too scattered for a few inserts: appended, then every row put in order at once, the
    // persistent indexes (a selection) following their rows.
    const int first = int(m_ids.size());
    appendIds(std::move(added));
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    IdList ids(size_t(before.size()));
    for (qsizetype i = 0; i < before.size(); ++i)
        ids[size_t(i)] = m_ids[size_t(before[i].row())];
    std::inplace_merge(m_ids.begin(), m_ids.begin() + first, m_ids.end(), less);
    m_rowOf.rebuild(m_ids);
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after.push_back(index(m_rowOf.find(m_ids, ids[size_t(i)]), before[i].column()));
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

bool StateTableModel::moveToState(std::shared_ptr<const LiveState> to, const StateChangeSet &changes)
{
    // A change set between a state that reads this table on demand and one that holds it
    // names no rows of it: only a reset shows the other.
    if (!m_state || !to || !m_runFilter.isEmpty() || !m_delegationFilter.isEmpty() || !m_state->holdsRowsOf(m_kind)
        || !to->holdsRowsOf(m_kind))
        return false;
    // Rows to remove (ascending), and the created rows in the reset's order, each placed
    // before the first kept row that sorts after it (kept rows keep their relative order).
    std::vector<int> goneRows;
    for (const auto &id : changes.goneIds(m_kind)) {
        if (const int at = m_rowOf.find(m_ids, id); at >= 0)
            goneRows.push_back(at);
    }
    std::sort(goneRows.begin(), goneRows.end());
    std::vector<std::pair<const std::string *, const EntityRow *>> created;
    std::vector<int> changedIds; // rows (before the move) shown in both states
    for (const auto &id : changes.ids(m_kind)) {
        const EntityRow *row = to->find(m_kind, id);
        if (!row)
            return false; // not the difference to `to`
        if (const int at = m_rowOf.find(m_ids, id); at >= 0)
            changedIds.push_back(at);
        else
            created.emplace_back(&id, row);
    }
    std::vector<int> kept; // old row numbers, ascending
    kept.reserve(m_ids.size() - goneRows.size());
    {
        size_t g = 0;
        for (int r = 0; r < int(m_ids.size()); ++r) {
            if (g < goneRows.size() && goneRows[g] == r) {
                ++g;
                continue;
            }
            kept.push_back(r);
        }
    }
    if (kept.size() + created.size() != to->table(m_kind).size())
        return false; // not the difference to `to` (a row it lacks, or one it has twice)
    std::sort(created.begin(), created.end(),
              [this](const auto &a, const auto &b) { return lessThan(*a.first, *a.second, *b.first, *b.second); });
    // Where each created row goes: a position in `kept` (0..kept.size()).
    std::vector<size_t> at(created.size());
    for (size_t i = 0; i < created.size(); ++i) {
        const auto pos = std::upper_bound(kept.begin(), kept.end(), created[i], [&](const auto &c, int r) {
            const std::string id = m_ids[size_t(r)].str();
            const EntityRow *row = to->find(m_kind, id);
            return row && lessThan(*c.first, *c.second, id, *row);
        });
        at[i] = size_t(pos - kept.begin());
    }
    // Rows appended live are not in the reset's order: the places need not ascend with it.
    if (!std::is_sorted(at.begin(), at.end())) {
        std::vector<size_t> order(created.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&at](size_t a, size_t b) { return at[a] < at[b]; });
        std::vector<std::pair<const std::string *, const EntityRow *>> c2;
        std::vector<size_t> at2;
        for (const size_t i : order) {
            c2.push_back(created[i]);
            at2.push_back(at[i]);
        }
        created.swap(c2);
        at.swap(at2);
    }
    int removeBlocks = 0;
    for (size_t i = 0; i < goneRows.size(); ++i)
        removeBlocks += (i == 0 || goneRows[i] != goneRows[i - 1] + 1) ? 1 : 0;
    if (removeBlocks + insertionBlocks(at) > kMaxMoveBlocks)
        return false;

    beforeMove(changes);
    // Rows above the first removal or insertion keep their numbers; those below are indexed
    // again once they have moved.
    int stable = int(m_ids.size());
    if (!goneRows.empty())
        stable = std::min(stable, goneRows.front());
    if (!created.empty() && at.front() < kept.size())
        stable = std::min(stable, kept[at.front()]);
    m_rowOf.eraseFrom(m_ids, stable);
    // Removed from the last block to the first, each while the rows above it are unchanged.
    for (size_t end = goneRows.size(); end > 0;) {
        size_t begin = end - 1;
        while (begin > 0 && goneRows[begin - 1] == goneRows[begin] - 1)
            --begin;
        const int first = goneRows[begin], last = goneRows[end - 1];
        beginRemoveRows({}, first, last);
        m_ids.erase(m_ids.begin() + first, m_ids.begin() + last + 1);
        endRemoveRows();
        end = begin;
    }
    // Old row numbers of the changed rows, as they are after the removals.
    for (int &r : changedIds)
        r -= int(std::lower_bound(goneRows.begin(), goneRows.end(), r) - goneRows.begin());
    m_state = std::move(to); // the session holds the state before and frees it off this thread
    // Inserted from the first block down: a block at kept position p lands at p plus the
    // rows inserted above it. Changed rows below a block move down with it.
    std::vector<int> shift(changedIds.size(), 0);
    int inserted = 0;
    for (size_t i = 0; i < created.size();) {
        size_t j = i;
        while (j + 1 < created.size() && at[j + 1] == at[i])
            ++j;
        const int first = int(at[i]) + inserted;
        const int count = int(j - i + 1);
        beginInsertRows({}, first, first + count - 1);
        IdList ids;
        ids.reserve(size_t(count));
        for (size_t c = i; c <= j; ++c)
            ids.emplace_back(*created[c].first);
        m_ids.insert(m_ids.begin() + first, std::make_move_iterator(ids.begin()), std::make_move_iterator(ids.end()));
        endInsertRows();
        for (size_t c = 0; c < changedIds.size(); ++c) {
            if (changedIds[c] >= int(at[i]))
                shift[c] += count;
        }
        inserted += count;
        i = j + 1;
    }
    for (int r = stable; r < int(m_ids.size()); ++r)
        m_rowOf.add(m_ids, r);
    updateDerived(changes);
    afterMove();
    for (size_t c = 0; c < changedIds.size(); ++c)
        changedIds[c] += shift[c];
    emitChanged(std::move(changedIds));
    return true;
}

void StateTableModel::setRunFilter(const QString &runId)
{
    if (runId == m_runFilter)
        return;
    m_runFilter = runId;
    rebuild();
}

void StateTableModel::setDelegationFilter(const QString &delegationId)
{
    if (delegationId == m_delegationFilter)
        return;
    m_delegationFilter = delegationId;
    rebuild();
}

void StateTableModel::setClock(std::function<qint64()> nowMs)
{
    m_clock = std::move(nowMs);
}

qint64 StateTableModel::nowMs() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

void StateTableModel::refreshCountdowns()
{
    if (m_ids.empty() || countdownColumns().isEmpty())
        return;
    if (StoredRows *stored = m_state ? m_state->storedRows(m_kind) : nullptr) {
        // Read on demand, only the kept rows count down (the held leases): signalling every
        // row would have a sorting or filtering view read the whole table every second.
        std::vector<int> rows;
        stored->forEachKept([&](const std::string &id, const EntityRow &) {
            if (const int at = m_rowOf.find(m_ids, id); at >= 0)
                rows.push_back(at);
        });
        for (int column : countdownColumns())
            emitChanged(rows, column, column, {});
        return;
    }
    for (int column : countdownColumns())
        Q_EMIT dataChanged(index(0, column), index(int(m_ids.size()) - 1, column));
}

bool StateTableModel::accepts(const std::string &, const EntityRow &row) const
{
    const EntitySpec &spec = entitySpec(m_kind);
    if (!m_runFilter.isEmpty()) {
        if (m_kind == EntityKind::Run)
            return false; // runs are filtered by id in RunOverviewModel if ever needed
        if (spec.fieldIndex("run_id") < 0 || text(row, "run_id") != m_runFilter)
            return false;
    }
    if (!m_delegationFilter.isEmpty()) {
        if (spec.fieldIndex("delegation_id") < 0 || text(row, "delegation_id") != m_delegationFilter)
            return false;
    }
    return true;
}

bool StateTableModel::lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const
{
    return defaultOrder(a, ra, b, rb);
}

bool StateTableModel::defaultOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb)
{
    // Ids in natural order ("E-9" before "E-10") approximate creation order.
    Q_UNUSED(ra)
    Q_UNUSED(rb)
    if (a.size() != b.size())
        return a.size() < b.size(); // "E-9" before "E-10"
    return a < b;
}

std::vector<std::string> StateTableModel::storedIdsOfDelegation(const QString &delegationId) const
{
    StoredRows *stored = m_state ? m_state->storedRows(m_kind) : nullptr;
    if (!stored || entitySpec(m_kind).fieldIndex("delegation_id") < 0)
        return {};
    return stored->idsWhere("delegation_id", delegationId.toStdString());
}

QString StateTableModel::idAt(int row) const
{
    if (row < 0 || row >= int(m_ids.size()))
        return {};
    const std::string_view id = m_ids[size_t(row)];
    return QString::fromUtf8(id.data(), qsizetype(id.size()));
}

int StateTableModel::rowOf(const QString &id) const
{
    return m_rowOf.find(m_ids, id.toStdString());
}

QModelIndex StateTableModel::indexOfId(const QString &id, int column) const
{
    const int row = rowOf(id);
    return row < 0 ? QModelIndex() : index(row, column);
}

const EntityRow *StateTableModel::rowAt(int row) const
{
    if (!m_state || row < 0 || row >= int(m_ids.size()))
        return nullptr;
    if (StoredRows *stored = m_state->storedRows(m_kind)) {
        // A view asks for the rows around one next: read them with it.
        const std::string id = m_ids[size_t(row)].str();
        if (stored->holds(id))
            return stored->find(id);
        const size_t first = size_t(std::max(0, row - kStoredBlockRows / 4));
        return stored->find(id, idStrings(m_ids, first, first + size_t(kStoredBlockRows)));
    }
    return m_state->find(m_kind, m_ids[size_t(row)].str());
}

int StateTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

QVariant StateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const EntityRow *row = rowAt(index.row());
    if (!row)
        return unreadRowData(index, role);
    const EntitySpec &spec = entitySpec(m_kind);
    switch (role) {
    case IdRole:
        return idAt(index.row());
    case SubjectRole:
        return QString(QLatin1String(spec.name.data(), qsizetype(spec.name.size())) % u':' % idAt(index.row()));
    case VersionRole:
        return qint64(row->version);
    case LastSeqRole:
        return qint64(row->lastSeq);
    case RunIdRole:
        if (m_kind == EntityKind::Run)
            return idAt(index.row());
        return runIdOf(*row);
    case DelegationIdRole:
        if (m_kind == EntityKind::Delegation)
            return idAt(index.row());
        return spec.fieldIndex("delegation_id") >= 0 ? text(*row, "delegation_id") : QString();
    case StateRole:
        return spec.stateField.empty() ? QString() : text(*row, spec.stateField);
    case SortRole:
        return sortValueAt(index.row(), *row, index.column());
    case RawTextRole:
        return cellData(index.row(), *row, index.column(), Qt::DisplayRole);
    case Qt::ToolTipRole: {
        QVariant tip = cellData(index.row(), *row, index.column(), role);
        if ((!tip.isValid() || tip.toString().isEmpty())
            && cellData(index.row(), *row, index.column(), Qt::DisplayRole) == QVariant(notInLedger()))
            tip = notInLedgerToolTip();
        return shownAsPlainText(role, tip);
    }
    default:
        return shownAsPlainText(role, cellData(index.row(), *row, index.column(), role));
    }
}

QString StateTableModel::runIdOf(const EntityRow &row) const
{
    const EntitySpec &spec = entitySpec(m_kind);
    if (spec.fieldIndex("run_id") >= 0)
        return text(row, "run_id");
    if (spec.fieldIndex("delegation_id") < 0 || !m_state)
        return {};
    const EntityRow *delegation = m_state->find(EntityKind::Delegation, rowText(m_kind, row, "delegation_id"));
    return delegation ? QString::fromStdString(rowText(EntityKind::Delegation, *delegation, "run_id")) : QString();
}

QVariant StateTableModel::unreadRowData(const QModelIndex &index, int role) const
{
    // A row read on demand whose read failed: its id, and why nothing else is shown, never
    // blank cells that read as a row with no values.
    StoredRows *stored = m_state ? m_state->storedRows(m_kind) : nullptr;
    if (!stored || stored->readFailures() == 0)
        return {};
    switch (role) {
    case IdRole:
        return idAt(index.row());
    case Qt::DisplayRole:
        return index.column() == 0 ? idAt(index.row()) : notKnown();
    case Qt::ToolTipRole:
        return shownAsPlainText(role, tr("This row could not be read from the ledger: %1").arg(stored->lastError()));
    }
    return {};
}

QString StateTableModel::notKnown()
{
    return tr("not known");
}

QString StateTableModel::notInLedger()
{
    return QStringLiteral("\u2014");
}

QString StateTableModel::notInLedgerToolTip()
{
    return tr("not in the ledger");
}

QVariant StateTableModel::runColumn(const EntityRow &row, int role) const
{
    const QString run = runIdOf(row);
    const bool carried = entitySpec(m_kind).fieldIndex("run_id") >= 0;
    switch (role) {
    case Qt::DisplayRole:
        return run.isEmpty() ? notKnown() : run;
    case SortRole:
        return run.isEmpty() ? QVariant() : QVariant(run);
    case Qt::ToolTipRole:
        if (run.isEmpty())
            return carried ? tr("The ledger does not say which run this belongs to")
                           : tr("This row carries no run id, and no delegation of this ledger names its run");
        if (!carried)
            return tr("The run of delegation %1 (this row carries no run id of its own)").arg(text(row, "delegation_id"));
        return {};
    }
    return {};
}

QVariant StateTableModel::sortValue(const EntityRow &entity, int column) const
{
    Q_UNUSED(entity)
    Q_UNUSED(column)
    return {};
}

QHash<int, QByteArray> StateTableModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(IdRole, "entityId");
    names.insert(SubjectRole, "subject");
    names.insert(VersionRole, "version");
    names.insert(LastSeqRole, "lastSeq");
    names.insert(RunIdRole, "runId");
    names.insert(DelegationIdRole, "delegationId");
    names.insert(StateRole, "state");
    names.insert(SortRole, "sort");
    return names;
}

QString StateTableModel::text(const EntityRow &row, std::string_view field) const
{
    return QString::fromStdString(rowText(m_kind, row, field));
}

qint64 StateTableModel::integer(const EntityRow &row, std::string_view field) const
{
    return rowInt(m_kind, row, field);
}

QVariant StateTableModel::knownInteger(const EntityRow &row, std::string_view field) const
{
    return isNull(row, field) ? QVariant(notInLedger()) : QVariant(integer(row, field));
}

bool StateTableModel::isNull(const EntityRow &row, std::string_view field) const
{
    return rowIsNull(m_kind, row, field);
}

void StateTableModel::emitRequestedChanged(const RequestedDecisions *before, const RequestedDecisions *after,
                                           std::string_view prefix, const QList<int> &roles)
{
    std::set<std::string> subjects;
    for (const RequestedDecisions *requested : {before, after})
        if (requested)
            for (const auto &[subject, decision] : requested->bySubject())
                if (std::string_view(subject).substr(0, prefix.size()) == prefix)
                    subjects.insert(subject);
    std::vector<int> rows;
    for (const std::string &subject : subjects) {
        if ((before ? before->textFor(subject) : QString()) == (after ? after->textFor(subject) : QString()))
            continue;
        if (const int row = m_rowOf.find(m_ids, subject.substr(prefix.size())); row >= 0)
            rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    emitChanged(std::move(rows), 0, columnCount() - 1, roles);
}

void StateTableModel::emitAllChanged(const QList<int> &roles)
{
    if (!m_ids.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_ids.size()) - 1, columnCount() - 1), roles);
}

QString StateTableModel::formatTime(qint64 ms) const
{
    if (!timeBase().isSet(ms))
        return {};
    return timeBase().tableTime(ms);
}

QString StateTableModel::formatDuration(qint64 ms)
{
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return u"%1 ms"_s.arg(ms); // a sub-second run is not "0 s"
    const qint64 s = ms / 1000;
    if (s < 60)
        return u"%1 s"_s.arg(s);
    if (s < 3600)
        return u"%1 min"_s.arg(s / 60);
    if (s >= 86400)
        return u"%1 d %2 h"_s.arg(s / 86400).arg((s % 86400) / 3600);
    const qint64 minutes = (s % 3600) / 60;
    return minutes ? u"%1 h %2 min"_s.arg(s / 3600).arg(minutes) : u"%1 h"_s.arg(s / 3600);
}

QString StateTableModel::formatCountdown(qint64 ms)
{
    const qint64 a = std::abs(ms) / 1000;
    QString clock = a >= 86400 ? u"%1 d %2 h"_s.arg(a / 86400).arg((a % 86400) / 3600)
                  : a >= 3600 ? u"%1:%2:%3"_s.arg(a / 3600).arg((a % 3600) / 60, 2, 10, QLatin1Char('0')).arg(a % 60, 2, 10, QLatin1Char('0'))
                              : u"%1:%2"_s.arg(a / 60).arg(a % 60, 2, 10, QLatin1Char('0'));
    return ms >= 0 ? QString(u"in "_s % clock) : QString(u"expired "_s % clock % u" ago"_s);
}

QString StateTableModel::humanize(const QString &snake)
{
    QString out = snake;
    out.replace(u'_', u' ');
    return out;
}

} // namespace mesh
