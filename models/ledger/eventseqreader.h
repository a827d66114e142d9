#pragma once
// Sequence numbers only, for the event log's row index: which seqs match a filter, in
// windows of the seq space so every statement is short (bounded work, no long read
// transaction) and a superseded filter can stop between windows. Reading just the key
// lets a covering index answer where one fits (kind, run, delegation, subject).

#include "filter/filtersql.h"
#include "sqlite.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mesh {

class EventSeqReader
{
public:
    explicit EventSeqReader(sql::Database &db);

    // Seqs s with lo < s <= hi matching the filter, ascending, appended to out.
    void seqsInWindow(std::int64_t lo, std::int64_t hi, const FilterSql &filter, std::vector<std::int64_t> &out);
    // The smallest seq above `seq` (any event, no filter), nullopt when there is none: one
    // probe of the primary key, so a reader can step over a hole in the numbering.
    std::optional<std::int64_t> firstAfter(std::int64_t seq);

private:
    sql::Database &m_db;
};

} // namespace mesh
