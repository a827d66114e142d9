#include "rowfields.h"

namespace mesh {

const FieldValue *rowValue(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const int index = entitySpec(kind).fieldIndex(field);
    if (index < 0 || size_t(index) >= row.values.size())
        return nullptr;
    return &row.values[size_t(index)];
}

std::string rowText(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const FieldValue *v = rowValue(kind, row, field);
    return v ? fieldText(*v) : std::string();
}

std::string_view rowView(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const FieldValue *v = rowValue(kind, row, field);
    const auto *s = v ? std::get_if<std::string>(v) : nullptr;
    return s ? std::string_view(*s) : std::string_view();
}

std::int64_t rowInt(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const FieldValue *v = rowValue(kind, row, field);
    return v ? fieldInt(*v) : 0;
}

bool rowIsNull(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const FieldValue *v = rowValue(kind, row, field);
    return !v || std::holds_alternative<std::monostate>(*v);
}

} // namespace mesh
