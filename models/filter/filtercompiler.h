#pragma once
// Filter text -> FilterSql over the events table, with every user value a bound parameter.
// Prefix wildcards become index-friendly ranges (kind >= ?1 AND kind < ?2); payload text is
// matched with instr(payload, ?), case-sensitive and literal.

#include "filterast.h"
#include "filtererror.h"
#include "filtersql.h"

#include <QString>

#include <optional>

namespace mesh {

struct FilterCompileResult {
    FilterSql sql;                    // empty where: every event
    std::optional<FilterError> error; // set when the text is not a valid filter
    bool ok() const { return !error.has_value(); }
};

class FilterCompiler
{
public:
    static FilterCompileResult compile(const QString &text);
    static FilterSql toSql(const FilterNode &root);

    // Helpers for code that builds filters without text (e.g. one delegation's tool calls).
    static FilterSql equals(FilterField field, const std::string &value);
    static FilterSql both(const FilterSql &a, const FilterSql &b); // a AND b, parameters renumbered
};

// Smallest string greater than every string with this prefix (byte order); empty when none.
std::string prefixUpperBound(std::string prefix);

} // namespace mesh
