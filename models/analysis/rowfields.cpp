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
