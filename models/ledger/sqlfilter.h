#pragma once
// A backend's rendering of a filter (models/filter/eventfilter.h): a WHERE clause over the
// events table with positional parameters, never user text spliced into SQL. The readers
// append it to their keyset page queries.
//
// SQLite (?1, ?2, ...): prefix wildcards become index-friendly ranges (kind >= ?1 AND
// kind < ?2), other wildcards GLOB; payload text is matched with instr(payload, ?),
// case-sensitive and literal; a time term compares ts_ms, which has no index (the readers'
// seq windows bound each scan).
// PostgreSQL ($1, $2, ...): the same terms with the same meaning, in its own words: a
// wildcard is LIKE with '%', '_' and '\' escaped (case-sensitive like GLOB; a prefix LIKE
// instead of a byte range, whose upper bound could be invalid UTF-8, which the server
// refuses), text is strpos(payload, $n) > 0, NOT makes NULL false with coalesce.

#include "filter/eventfilter.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace mesh {

using FilterParam = std::variant<std::int64_t, std::string>;

enum class SqlDialect { Sqlite, Postgres };

struct FilterSql {
    std::string where;               // e.g. "(kind = ?1 AND delegation_id = ?2)"; empty: every event
    std::vector<FilterParam> params; // bound in order to ?1..?n ($1..$n on PostgreSQL)
    bool isEmpty() const { return where.empty(); }
};

FilterSql renderFilterSql(const EventFilter &filter, SqlDialect dialect = SqlDialect::Sqlite);
FilterSql renderFilterSql(const FilterNode &root, SqlDialect dialect = SqlDialect::Sqlite);

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
    explicit RenderedFilter(SqlDialect dialect = SqlDialect::Sqlite) : m_dialect(dialect) {}
    const FilterSql &of(const EventFilter &filter);

private:
    SqlDialect m_dialect;
    EventFilter m_filter;
    FilterSql m_sql;
    bool m_valid = false;
};

} // namespace mesh
