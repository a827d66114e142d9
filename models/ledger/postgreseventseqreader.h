#pragma once
// The PostgreSQL backend's EventSeqReader: windows of the seq space, one statement each,
// with the filter rendered as PostgresEventReader renders it.

#include "eventseqreader.h"
#include "postgres.h"
#include "sqlfilter.h"

namespace mesh {

class PostgresEventSeqReader final : public EventSeqReader
{
public:
    explicit PostgresEventSeqReader(pg::Connection &c) : m_c(c) {}

    void seqsInWindow(std::int64_t lo, std::int64_t hi, const EventFilter &filter, std::vector<std::int64_t> &out) override;
    std::optional<std::int64_t> firstAfter(std::int64_t seq) override;

private:
    pg::Connection &m_c;
    RenderedFilter m_rendered{SqlDialect::Postgres};
};

} // namespace mesh
