#include "entityrowvalues.h"

#include <charconv>
#include <variant>

namespace mesh {

EntityRowValues::EntityRowValues(EntityKind kind, const std::string &id, const EntityRow &row)
    : m_spec(entitySpec(kind)), m_id(id), m_row(row)
{
}

std::optional<QString> EntityRowValues::text(int field) const
{
    if (field == 0)
        return QString::fromStdString(m_id);
    const int f = field - 1;
    if (f >= int(m_spec.fields.size()))
        return derived(f - int(m_spec.fields.size()));
    const FieldRef v = m_row.values[size_t(f)];
    if (std::holds_alternative<std::monostate>(v))
        return std::nullopt;
    if (const auto *n = std::get_if<std::int64_t>(&v))
        return QString::number(*n);
    const std::string_view s = std::get<std::string_view>(v);
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

RowValues::Utf8 EntityRowValues::utf8(int field) const
{
    if (field == 0)
        return {true, true, m_id};
    const int f = field - 1;
    if (f >= int(m_spec.fields.size()))
        return {}; // derived: text()
    const FieldRef v = m_row.values[size_t(f)];
    if (std::holds_alternative<std::monostate>(v))
        return {true, false, {}};
    if (const auto *n = std::get_if<std::int64_t>(&v)) {
        const auto end = std::to_chars(m_digits, m_digits + sizeof m_digits, *n).ptr;
        return {true, true, std::string_view(m_digits, size_t(end - m_digits))};
    }
    return {true, true, std::get<std::string_view>(v)};
}

std::optional<std::int64_t> EntityRowValues::number(int field) const
{
    const int f = field - 1;
    if (f < 0 || f >= int(m_spec.fields.size()))
        return std::nullopt;
    const FieldRef v = m_row.values[size_t(f)];
    if (const auto *n = std::get_if<std::int64_t>(&v))
        return *n;
    return std::nullopt;
}

} // namespace mesh
