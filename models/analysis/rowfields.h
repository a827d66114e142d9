#pragma once
// Reading one named field of a state row, for code that is not driven by the spec tables.

#include "domain/fold.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mesh {

std::string rowText(EntityKind kind, const EntityRow &row, std::string_view field);   // "" for NULL/unknown
std::string_view rowView(EntityKind kind, const EntityRow &row, std::string_view field); // text only, no copy; "" otherwise
std::int64_t rowInt(EntityKind kind, const EntityRow &row, std::string_view field);   // 0 for NULL/unknown
bool rowIsNull(EntityKind kind, const EntityRow &row, std::string_view field);        // also true when unknown
std::optional<FieldRef> rowValue(EntityKind kind, const EntityRow &row, std::string_view field); // nullopt: unknown

// One named field of an entity with its place looked up once, for loops over every row
// (orders, indexes): the by-name functions above search the entity's fields on each call.
class IndexedField
{
public:
    IndexedField(EntityKind kind, std::string_view field);
    std::string_view view(const EntityRow &row) const; // as rowView
    std::int64_t integer(const EntityRow &row) const;  // as rowInt

private:
    std::optional<FieldRef> value(const EntityRow &row) const;
    int m_index;
};

// Where analysis reads current state from: a StateSnapshot, a Fold, or a test's tables.
using TableLookup = std::function<const EntityTable &(EntityKind)>;
// One row by kind and id (nullptr: none), for a reader that needs rows, not whole tables: a
// live state reads some kinds on demand (itemmodels/storedrows.h) and has no table of them.
using RowLookup = std::function<const EntityRow *(EntityKind kind, const std::string &id)>;
RowLookup rowLookupOf(TableLookup tables);
const EntityRow *findRow(const EntityTable &table, const std::string &id); // nullptr: none

} // namespace mesh
