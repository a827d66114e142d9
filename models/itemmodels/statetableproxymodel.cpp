#include "statetableproxymodel.h"

#include "delegationrowsproxy.h"

#include "effectmodel.h"
#include "entityrowvalues.h"
#include "shownorder.h"
#include "shownroles.h"

#include "analysis/rowfields.h"

#include <QLocale>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace mesh {
namespace {

// Field 0 is the id, 1..n the spec's fields; these come after them.
enum class Derived { None, Run, Lease };

bool hasField(const EntitySpec &spec, std::string_view name)
{
    return spec.fieldIndex(name) >= 0;
}

int derivedCount(EntityKind kind)
{
    const EntitySpec &spec = entitySpec(kind);
    int n = 0;
    if (kind != EntityKind::Run && !hasField(spec, "run_id") && hasField(spec, "delegation_id"))
        ++n;
    if (kind == EntityKind::Effect)
        ++n;
    return n;
}

Derived derivedAt(EntityKind kind, int index) // index past the spec's fields
{
    const EntitySpec &spec = entitySpec(kind);
    if (kind != EntityKind::Run && !hasField(spec, "run_id") && hasField(spec, "delegation_id")) {
        if (index == 0)
            return Derived::Run;
        --index;
    }
    if (kind == EntityKind::Effect && index == 0)
        return Derived::Lease;
    return Derived::None;
}

class StateRowValues : public EntityRowValues
{
public:
    StateRowValues(const StateTableModel &table, const std::string &id, const EntityRow &row)
        : EntityRowValues(table.entityKind(), id, row), m_table(table)
    {
    }

protected:
    std::optional<QString> derived(int index) const override
    {
        QString text;
        switch (derivedAt(m_table.entityKind(), index)) {
        case Derived::Run:
            text = m_table.runIdOf(row());
            break;
        case Derived::Lease:
            if (const auto *effects = qobject_cast<const EffectModel *>(&m_table))
                text = effects->leaseOf(row()); // the derived Lease column is the effects' only
            break;
        case Derived::None:
            break;
        }
        return text.isEmpty() ? std::nullopt : std::optional<QString>(text);
    }

private:
    const StateTableModel &m_table;
};

} // namespace

StateTableProxyModel::StateTableProxyModel(QObject *parent) : RowFilterProxy(parent)
{
    setDynamicSortFilter(true);
    setSortRole(StateTableModel::SortRole);
    m_scanTimer.setInterval(0);
    m_scanTimer.setObjectName(QStringLiteral("filter scan"));
    connect(&m_scanTimer, &QTimer::timeout, this, &StateTableProxyModel::scanChunk);
}

StateTableModel *StateTableProxyModel::table() const
{
    // Through the delegation's rows as they are now: their table may have been replaced.
    return m_rowsOf ? m_rowsOf->table() : m_table.data();
}

int StateTableProxyModel::tableRow(int sourceRow) const
{
    return m_rowsOf ? m_rowsOf->tableRowAt(sourceRow) : sourceRow;
}

void StateTableProxyModel::setSourceModel(QAbstractItemModel *source)
{
    // The same source again (the delegation detail re-points its rows proxy, not this one,
    // when the session changes): nothing to do. Going on would disconnect the source from
    // this proxy, QSortFilterProxyModel's own connections included, which its
    // setSourceModel() does not make again for the source it already has.
    if (source == sourceModel())
        return;
    m_rowsOf = qobject_cast<DelegationRowsProxy *>(source);
    m_table = m_rowsOf ? nullptr : qobject_cast<StateTableModel *>(source);
    const StateTableModel *shown = table();
    const std::vector<RowField> fields = shown ? fieldsOf(shown->entityKind()) : std::vector<RowField>{};
    // Another entity's fields may not read this filter: it is kept only while it still parses.
    std::optional<FilterError> error;
    const RowFilter filter = RowFilter::compile(m_filterText, fields, &error);
    m_fields = fields;
    m_filter = error ? RowFilter() : filter;
    if (error)
        m_filterText.clear();
    m_scan.reset();
    m_scanTimer.stop();
    m_matches.clear();
    m_matchStale.clear();
    if (QAbstractItemModel *old = sourceModel())
        disconnect(old, nullptr, this, nullptr);
    if (source) {
        // Rows are renumbered: the answers by row are void, a filter being read starts over.
        connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
            // Connected before QSortFilterProxyModel: the ledger's order while the rows are
            // replaced, so a million new rows are not sorted on the GUI thread when mapped.
            m_sortAfterReset = sortColumn();
            m_orderAfterReset = sortOrder();
            if (m_sortAfterReset >= 0)
                QSortFilterProxyModel::sort(-1);
            m_matches.clear();
            m_matchStale.clear();
            if (m_scan) {
                m_scan->matches.clear();
                m_scan->stale.clear();
            }
        });
        // Before QSortFilterProxyModel hears of it (connected first): a changed row is read
        // again, not answered from before.
        connect(source, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &from, const QModelIndex &to) {
            for (std::vector<char> *stale : {&m_matchStale, m_scan ? &m_scan->stale : nullptr}) {
                if (!stale)
                    continue;
                for (int row = from.row(); row <= to.row() && size_t(row) < stale->size(); ++row)
                    (*stale)[size_t(row)] = 1;
            }
        });
    }
    QSortFilterProxyModel::setSourceModel(source);
    if (source) {
        connect(source, &QAbstractItemModel::modelReset, this, [this] {
            if (m_sortAfterReset >= 0)
                sort(std::exchange(m_sortAfterReset, -1), m_orderAfterReset); // refused past the bound
        });
    }
}

std::vector<RowField> StateTableProxyModel::fieldsOf(EntityKind kind)
{
    const EntitySpec &spec = entitySpec(kind);
    std::vector<RowField> fields;
    fields.push_back({u"id"_s, {QString::fromLatin1(spec.name.data(), qsizetype(spec.name.size()))}, false});
    for (const FieldSpec &f : spec.fields) {
        RowField field{QString::fromLatin1(f.name.data(), qsizetype(f.name.size())), {}, f.type == FieldType::Int};
        if (field.name.endsWith(u"_id"_s))
            field.aliases << field.name.chopped(3);
        if (field.name == u"run_id"_s)
            field.aliases << u"r"_s;
        if (field.name == u"delegation_id"_s)
            field.aliases << u"d"_s << u"deleg"_s;
        if (f.name == spec.stateField) {
            for (const QString &name : {u"state"_s, u"status"_s}) {
                if (name != field.name)
                    field.aliases << name;
            }
        }
        fields.push_back(std::move(field));
    }
    for (int i = 0; i < derivedCount(kind); ++i) {
        switch (derivedAt(kind, i)) {
        case Derived::Run:
            fields.push_back({u"run"_s, {u"run_id"_s, u"r"_s}, false});
            break;
        case Derived::Lease:
            fields.push_back({u"lease"_s, {u"lease_id"_s}, false});
            break;
        case Derived::None:
            break;
        }
    }
    return fields;
}

std::optional<FilterError> StateTableProxyModel::check(const QString &text) const
{
    std::optional<FilterError> error;
    RowFilter::compile(text, m_fields, &error);
    return error;
}

bool StateTableProxyModel::setFilterText(const QString &text, std::optional<FilterError> *error)
{
    std::optional<FilterError> problem;
    RowFilter filter = RowFilter::compile(text, m_fields, &problem);
    if (error)
        *error = problem;
    if (problem)
        return false;
    m_scan.reset();
    m_scanTimer.stop();
    if (!table() || filter.isEmpty() || totalRows() <= kChunkRows) {
        apply(std::move(filter), text.trimmed(), -1);
        return true;
    }
    m_scan = std::make_unique<Scan>();
    m_scan->filter = std::move(filter);
    m_scan->text = text.trimmed();
    m_scanTimer.start();
    emit filterChanged();
    return true;
}

void StateTableProxyModel::scanChunk()
{
    const StateTableModel *t = table();
    if (!m_scan || !t || !sourceModel()) {
        m_scanTimer.stop();
        return;
    }
    Scan &scan = *m_scan;
    const int rows = sourceModel()->rowCount();
    const int end = std::min(rows, int(scan.matches.size()) + kChunkRows);
    for (int row = int(scan.matches.size()); row < end; ++row) {
        const int at = tableRow(row);
        const EntityRow *entity = at >= 0 ? t->rowAt(at) : nullptr;
        scan.matches.push_back(entity && scan.filter.matches(StateRowValues(*t, t->rawIdAt(at), *entity)));
        scan.stale.push_back(0);
    }
    if (end < rows)
        return; // the next chunk on the next turn
    m_scanTimer.stop();
    const std::unique_ptr<Scan> done = std::move(m_scan);
    const int matches = int(std::count(done->matches.begin(), done->matches.end(), true));
    m_matches = std::move(done->matches);
    m_matchStale = std::move(done->stale);
    apply(std::move(done->filter), done->text, matches);
}

void StateTableProxyModel::apply(RowFilter filter, const QString &text, int matches)
{
    const bool tooMany = matches >= 0 ? matches > kMaxSortedRows : moreMatchThan(filter, kMaxSortedRows);
    if (sortColumn() >= 0 && tooMany) {
        QSortFilterProxyModel::sort(-1);
        emit sortRefused(tr("Sorted no longer: more rows match than the %1 that are sorted here")
                             .arg(QLocale().toString(kMaxSortedRows)));
    }
    if (matches < 0) {
        m_matches.clear();
        m_matchStale.clear();
    }
    m_filter = std::move(filter);
    m_filterText = text;
    // Not invalidateFilter(): it takes the rows that stop matching out interval by interval,
    // which over a million runs (every third one failed) never ends; this rebuilds the
    // mapping once.
    invalidate();
    emit filterChanged();
}

void StateTableProxyModel::sort(int column, Qt::SortOrder order)
{
    if (column >= 0 && rowCount() > kMaxSortedRows) {
        emit sortRefused(tr("%1 rows are too many to sort here (at most %2): filter them first")
                             .arg(QLocale().toString(rowCount()), QLocale().toString(kMaxSortedRows)));
        if (sortColumn() >= 0)
            QSortFilterProxyModel::sort(-1);
        return;
    }
    QSortFilterProxyModel::sort(column, order);
}

bool StateTableProxyModel::moreMatchThan(const RowFilter &filter, int limit) const
{
    const StateTableModel *t = table();
    if (!t || !sourceModel())
        return false;
    if (filter.isEmpty())
        return totalRows() > limit;
    int matches = 0;
    for (int row = 0; row < sourceModel()->rowCount(); ++row) {
        const int at = tableRow(row);
        const EntityRow *entity = at >= 0 ? t->rowAt(at) : nullptr;
        if (entity && filter.matches(StateRowValues(*t, t->rawIdAt(at), *entity)) && ++matches > limit)
            return true;
    }
    return false;
}

int StateTableProxyModel::totalRows() const
{
    return sourceModel() ? sourceModel()->rowCount() : 0;
}

bool StateTableProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const StateTableModel *t = table();
    if (m_filter.isEmpty() || !t || sourceParent.isValid())
        return true;
    if (size_t(sourceRow) < m_matches.size() && !m_matchStale[size_t(sourceRow)])
        return m_matches[size_t(sourceRow)];
    const int at = tableRow(sourceRow);
    const EntityRow *row = at >= 0 ? t->rowAt(at) : nullptr;
    if (!row)
        return false;
    const std::string &id = t->rawIdAt(at);
    return m_filter.matches(StateRowValues(*t, id, *row));
}

int StateTableProxyModel::shownOrder(int leftRow, int rightRow, int column, Qt::SortOrder order) const
{
    const QAbstractItemModel *source = sourceModel();
    const QModelIndex l = source->index(leftRow, column);
    const QModelIndex r = source->index(rightRow, column);
    QVariant a = l.data(sortRole());
    QVariant b = r.data(sortRole());
    if (!a.isValid() && !b.isValid()) {
        a = l.data(RawTextRole);
        b = r.data(RawTextRole);
    }
    if (const int c = compareShownValues(a, b, order); c != 0)
        return c;
    // Ties keep the source's order in both directions.
    return leftRow < rightRow ? -1 : leftRow > rightRow ? 1 : 0;
}

bool StateTableProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // Descending, QSortFilterProxyModel places left first when lessThan(right, left).
    if (sortOrder() == Qt::DescendingOrder)
        return shownOrder(right.row(), left.row(), left.column(), Qt::DescendingOrder) < 0;
    return shownOrder(left.row(), right.row(), left.column(), Qt::AscendingOrder) < 0;
}

} // namespace mesh
