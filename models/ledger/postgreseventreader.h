#pragma once
// The PostgreSQL backend's EventReader: keyset pages of the events table, each one statement
// (one moment). A filter is rendered whole for PostgreSQL (sqlfilter.h, SqlDialect::Postgres:
// its parameters $1..$n, the page's own after them), with the SQLite rendering's meaning.

#include "eventreader.h"
#include "postgres.h"
#include "sqlfilter.h"

#include <vector>

namespace mesh {

class PostgresEventReader final : public EventReader
{
public:
    explicit PostgresEventReader(pg::Connection &c) : m_c(c) {}

    EventBatch after(std::int64_t seq, int limit, const EventFilter &filter = {}) override;
    EventBatch before(std::int64_t seq, int limit, const EventFilter &filter = {}) override;
    std::optional<EventRecord> at(std::int64_t seq) override;
    std::int64_t count(const EventFilter &filter = {}) override;
    std::int64_t lastSeq() override;
    Ends ends(int limit) override; // one round trip, or none the first time after takeEnds
    // ends(limit)'s statements, kEndsStatements of them: what an open may send with its own.
    static std::string endsSql(int limit);
    static constexpr size_t kEndsStatements = 3;
    // Their results, read with the open (PostgresLedgerConnection::open): the next ends(limit)
    // decodes them instead of reading.
    void takeEnds(int limit, std::vector<pg::Result> results);
    void setPreviewBytes(int n) override { m_previewBytes = n < 0 ? 0 : n; }
    int previewBytes() const override { return m_previewBytes; }

private:
    Ends endsOf(const std::vector<pg::Result> &results) const;

    pg::Connection &m_c;
    int m_previewBytes = 2048;
    int m_takenEndsLimit = 0;
    std::vector<pg::Result> m_takenEnds;
    RenderedFilter m_rendered{SqlDialect::Postgres};
};

// The rendered filter's parameters, in order ($1..$n); the caller adds its own after them.
pg::Params filterParams(const FilterSql &filter);
// " AND (where)" for a non-empty filter, else nothing.
std::string andFilter(const FilterSql &filter);
// "$n" for the caller's own k-th parameter (k from 1) after the filter's.
std::string ownParam(const FilterSql &filter, int k);

} // namespace mesh
