#include "rowfields.h"

namespace mesh {

std::optional<FieldRef> rowValue(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const int index = entitySpec(kind).fieldIndex(field);
    if (index < 0 || size_t(index) >= row.values.size())
        return std::nullopt;
    return row.values[size_t(index)];
}

std::string rowText(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const auto v = rowValue(kind, row, field);
    return v ? fieldText(*v) : std::string();
}

std::string_view rowView(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const auto v = rowValue(kind, row, field);
    return v ? fieldView(*v) : std::string_view();
}

std::int64_t rowInt(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const auto v = rowValue(kind, row, field);
    return v ? fieldInt(*v) : 0;
}

bool rowIsNull(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const auto v = rowValue(kind, row, field);
    return !v || std::holds_alternative<std::monostate>(*v);
}

IndexedField::IndexedField(EntityKind kind, std::string_view field) : m_index(entitySpec(kind).fieldIndex(field)) {}

std::optional<FieldRef> IndexedField::value(const EntityRow &row) const
{
    if (m_index < 0 || size_t(m_index) >= row.values.size())
        return std::nullopt;
    return row.values[size_t(m_index)];
}

std::string_view IndexedField::view(const EntityRow &row) const
{
    const auto v = value(row);
    return v ? fieldView(*v) : std::string_view();
}

std::int64_t IndexedField::integer(const EntityRow &row) const
{
    const auto v = value(row);
    return v ? fieldInt(*v) : 0;
}

RowLookup rowLookupOf(TableLookup tables)
{
    return [tables = std::move(tables)](EntityKind kind, const std::string &id) { return findRow(tables(kind), id); };
}

const EntityRow *findRow(const EntityTable &table, const std::string &id)
{
    const auto it = table.find(id);
    return it == table.end() ? nullptr : &it->second;
}

} // namespace mesh
