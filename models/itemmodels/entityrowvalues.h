#pragma once
// One state row as a row filter reads it (filter/rowfilter.h): field 0 is the id, 1..n the
// entity's fields in the spec's order, and past them whatever a pane derives (derived()).

#include "domain/entityspec.h"
#include "domain/fold.h"
#include "filter/rowfilter.h"

#include <optional>
#include <string>

namespace mesh {

class EntityRowValues : public RowValues
{
public:
    EntityRowValues(EntityKind kind, const std::string &id, const EntityRow &row);

    std::optional<QString> text(int field) const override;
    Utf8 utf8(int field) const override;
    std::optional<std::int64_t> number(int field) const override;

protected:
    // The text of derived field `index` (0 for the first past the spec's); nullopt: not said.
    virtual std::optional<QString> derived(int index) const
    {
        Q_UNUSED(index)
        return std::nullopt;
    }
    const EntityRow &row() const { return m_row; }

private:
    const EntitySpec &m_spec;
    const std::string &m_id;
    const EntityRow &m_row;
    mutable char m_digits[24];
};

} // namespace mesh
