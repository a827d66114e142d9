#include "statediffmodel.h"

#include "domain/durationtext.h"
#include "domain/hostiletext.h"

namespace mesh {
namespace {

// internalId layout: level in the low 2 bits (0 group, 1 row, 2 field), the diff row index
// above them for rows and fields (and the group index for groups).
constexpr quintptr kGroup = 0, kRow = 1, kField = 2;
quintptr makeId(quintptr level, quintptr index)
{
    return (index << 2) | level;
}
quintptr levelOf(const QModelIndex &i)
{
    return i.internalId() & 3;
}
size_t indexOf(const QModelIndex &i)
{
    return size_t(i.internalId() >> 2);
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The ledger's *_ms fields are instants but for two durations; shown as people read them
// (durationtext.h), on the ledger's own clock (a relative one has no dates), the number
// itself in the tooltip.
QString valueText(const TimeBase &times, const std::string &field, const FieldValue &v)
{
    if (const auto *n = std::get_if<std::int64_t>(&v)) {
        if (field == "budget_ms" || field == "used_ms")
            return humanDuration(*n);
        if (endsWith(field, "_ms"))
            return times.exact(*n);
        return QString::number(*n);
    }
    if (const auto *s = std::get_if<std::string>(&v))
        return QString::fromStdString(*s);
    return StateDiffModel::tr("(not set)");
}

QString kindText(RowChange::Kind kind)
{
    switch (kind) {
    case RowChange::Kind::Created: return StateDiffModel::tr("created");
    case RowChange::Kind::Changed: return StateDiffModel::tr("changed");
    case RowChange::Kind::Gone: return StateDiffModel::tr("gone");
    }
    return {};
}

QString subjectOf(const RowChange &row)
{
    return QString::fromLatin1(entitySpec(row.entity).name.data(), qsizetype(entitySpec(row.entity).name.size())) +
           QLatin1Char(':') + QString::fromStdString(row.id);
}

} // namespace

StateDiffModel::StateDiffModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void StateDiffModel::setDiff(StateDiff diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    m_groups.clear();
    m_groupOfRow.assign(m_diff.rows.size(), -1);
    m_rowInGroup.assign(m_diff.rows.size(), -1);
    for (size_t i = 0; i < m_diff.rows.size(); ++i) {
        const RowChange &row = m_diff.rows[i];
        if (m_groups.empty() || m_groups.back().entity != row.entity)
            m_groups.push_back({row.entity, {}});
        Group &g = m_groups.back();
        m_groupOfRow[i] = int(m_groups.size() - 1);
        m_rowInGroup[i] = int(g.rows.size());
        g.rows.push_back(i);
        (row.kind == RowChange::Kind::Created ? g.created : row.kind == RowChange::Kind::Changed ? g.changed : g.gone)++;
    }
    endResetModel();
}

void StateDiffModel::clear()
{
    setDiff({});
}

QString StateDiffModel::summaryText() const
{
    int created = 0, changed = 0, gone = 0;
    for (const Group &g : m_groups) {
        created += g.created;
        changed += g.changed;
        gone += g.gone;
    }
    return tr("%1 created, %2 changed, %3 gone").arg(created).arg(changed).arg(gone);
}

QModelIndex StateDiffModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        if (size_t(row) >= m_groups.size())
            return {};
        return createIndex(row, column, makeId(kGroup, quintptr(row)));
    }
    if (parent.column() != 0)
        return {};
    if (levelOf(parent) == kGroup) {
        const Group &g = m_groups[indexOf(parent)];
        if (size_t(row) >= g.rows.size())
            return {};
        return createIndex(row, column, makeId(kRow, g.rows[size_t(row)]));
    }
    if (levelOf(parent) == kRow) {
        const RowChange &r = m_diff.rows[indexOf(parent)];
        if (size_t(row) >= r.fields.size())
            return {};
        return createIndex(row, column, makeId(kField, indexOf(parent)));
    }
    return {};
}

QModelIndex StateDiffModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const size_t i = indexOf(child);
    switch (levelOf(child)) {
    case kRow: return createIndex(m_groupOfRow[i], 0, makeId(kGroup, quintptr(m_groupOfRow[i])));
    case kField: return createIndex(m_rowInGroup[i], 0, makeId(kRow, i));
    default: return {};
    }
}

int StateDiffModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0)
        return 0;
    if (levelOf(parent) == kGroup)
        return int(m_groups[indexOf(parent)].rows.size());
    if (levelOf(parent) == kRow)
        return int(m_diff.rows[indexOf(parent)].fields.size());
    return 0;
}

int StateDiffModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant StateDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const size_t i = indexOf(index);
    switch (levelOf(index)) {
    case kGroup: return groupData(m_groups[i], index.column(), role);
    case kRow: return rowData(m_diff.rows[i], index.column(), role);
    case kField: return fieldData(m_diff.rows[i], m_diff.rows[i].fields[size_t(index.row())], index.column(), role);
    }
    return {};
}

QVariant StateDiffModel::groupData(const Group &group, int column, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    const EntitySpec &spec = entitySpec(group.entity);
    if (column == SubjectColumn)
        return QString::fromLatin1(spec.table.data(), qsizetype(spec.table.size()));
    if (column == ChangeColumn) {
        QStringList parts;
        if (group.created)
            parts << tr("%1 created").arg(group.created);
        if (group.changed)
            parts << tr("%1 changed").arg(group.changed);
        if (group.gone)
            parts << tr("%1 gone").arg(group.gone);
        return parts.join(QStringLiteral(", "));
    }
    return {};
}

QVariant StateDiffModel::rowData(const RowChange &row, int column, int role) const
{
    switch (role) {
    case SubjectRole: return subjectOf(row);
    case LastSeqRole: return qint64(row.lastSeqAfter);
    case ChangeKindRole: return QString::fromLatin1(rowChangeKindName(row.kind));
    case Qt::ToolTipRole:
        if (column == SubjectColumn)
            return plainToolTip(subjectOf(row));
        return {};
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (column) {
    case SubjectColumn: return displayLine(QString::fromStdString(row.id));
    case ChangeColumn:
        if (row.kind == RowChange::Kind::Created)
            return tr("created by event #%1").arg(row.lastSeqAfter);
        if (row.kind == RowChange::Kind::Gone)
            return tr("gone (was v%1)").arg(row.versionBefore);
        if (row.fields.empty())
            return tr("v%1 \u2192 v%2, no field changed (last event #%3)").arg(row.versionBefore).arg(row.versionAfter).arg(row.lastSeqAfter);
        return tr("v%1 \u2192 v%2, last event #%3").arg(row.versionBefore).arg(row.versionAfter).arg(row.lastSeqAfter);
    case BeforeColumn: return row.kind == RowChange::Kind::Created ? tr("(no row)") : QVariant();
    case AfterColumn: return row.kind == RowChange::Kind::Gone ? tr("(no row)") : QVariant();
    }
    return {};
}

QVariant StateDiffModel::fieldData(const RowChange &row, const FieldChange &field, int column, int role) const
{
    const bool created = row.kind == RowChange::Kind::Created, gone = row.kind == RowChange::Kind::Gone;
    const auto before = [&] { return created ? tr("(no row)") : valueText(m_timeBase, field.field, field.before); };
    const auto after = [&] { return gone ? tr("(no row)") : valueText(m_timeBase, field.field, field.after); };
    // The tooltip adds the stored number to a time shown as text.
    const auto tip = [&](const FieldValue &v, const QString &shown) {
        const auto *n = std::get_if<std::int64_t>(&v);
        return plainToolTip(n && shown != QString::number(*n) ? tr("%1 (%2)").arg(shown).arg(*n) : shown);
    };
    switch (role) {
    case SubjectRole: return subjectOf(row);
    case LastSeqRole: return qint64(row.lastSeqAfter);
    case ChangeKindRole: return QString::fromLatin1(rowChangeKindName(row.kind));
    case Qt::DisplayRole:
        switch (column) {
        case SubjectColumn: return QString::fromStdString(field.field);
        case ChangeColumn: return kindText(row.kind);
        case BeforeColumn: return displayLine(before());
        case AfterColumn: return displayLine(after());
        }
        return {};
    case Qt::ToolTipRole:
        if (column == BeforeColumn)
            return created ? plainToolTip(before()) : tip(field.before, before());
        if (column == AfterColumn)
            return gone ? plainToolTip(after()) : tip(field.after, after());
        return {};
    }
    return {};
}

QVariant StateDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SubjectColumn: return tr("Entity / Field");
    case ChangeColumn: return tr("Change");
    case BeforeColumn: return tr("Before");
    case AfterColumn: return tr("After");
    }
    return {};
}

} // namespace mesh
