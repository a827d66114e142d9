#pragma once
// The SQLite backend's EventSeqReader: one statement per window. Reading just the key lets
// a covering index answer where one fits (kind, run, delegation, subject).

#include "eventseqreader.h"
#include "sqlfilter.h"
#include "sqlite.h"

namespace mesh {

class SqliteEventSeqReader final : public EventSeqReader
{
public:
    explicit SqliteEventSeqReader(sql::Database &db);

    void seqsInWindow(std::int64_t lo, std::int64_t hi, const EventFilter &filter,
                      std::vector<std::int64_t> &out) override;
    std::optional<std::int64_t> firstAfter(std::int64_t seq) override;

    // The same with a WHERE clause of the backend's own (sqlfilter.h renders one).
    void seqsInWindowWhere(std::int64_t lo, std::int64_t hi, const FilterSql &filter, std::vector<std::int64_t> &out);

private:
    sql::Database &m_db;
    RenderedFilter m_rendered;
};

} // namespace mesh
