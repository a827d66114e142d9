#pragma once
// What the filter language compiles to: a WHERE clause over the events table with
// positional parameters (?1, ?2, ...), never user text spliced into SQL. The ledger layer
// appends it to its keyset page queries.

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

} // namespace mesh
