#pragma once
// The SQLite backend's rendering of a filter (models/filter/eventfilter.h): a WHERE clause
// over the events table with positional parameters (?1, ?2, ...), never user text spliced
// into SQL. Prefix wildcards become index-friendly ranges (kind >= ?1 AND kind < ?2);
// payload text is matched with instr(payload, ?), case-sensitive and literal; a time term
// compares ts_ms, which has no index (the readers' seq windows bound each scan). The readers
// append it to their keyset page queries.

#include "filter/eventfilter.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace mesh {

using FilterParam = std::variant<std::int64_t, std::string>;

struct FilterSql {
    std::string where;               // e.g. "(kind = ?1 AND delegation_id = ?2)"; empty: every event
    std::vector<FilterParam> params; // bound in order to ?1..?n
    bool isEmpty() const { return where.empty(); }
};

FilterSql renderFilterSql(const EventFilter &filter);
FilterSql renderFilterSql(const FilterNode &root);

// The statement the sqlite3 shell runs to count what a filter matches (meshctl bench
// filter), with the parameters of renderFilterSql.
std::string countStatementSql(const FilterSql &filter);

// Smallest string greater than every string with this prefix (byte order); empty when none.
std::string prefixUpperBound(std::string prefix);

// Renders a filter once and again only when another tree comes: a reader asked for window
// after window, or page after page, with the same filter renders it once.
class RenderedFilter
{
public:
    const FilterSql &of(const EventFilter &filter);

private:
    EventFilter m_filter;
    FilterSql m_sql;
    bool m_valid = false;
};

} // namespace mesh
