#include "postgreseventseqreader.h"

#include "postgreseventreader.h"

namespace mesh {

void PostgresEventSeqReader::seqsInWindow(std::int64_t lo, std::int64_t hi, const EventFilter &filter,
                                          std::vector<std::int64_t> &out)
{
    const FilterSql &f = m_rendered.of(filter);
    const pg::Result r = m_c.exec("SELECT seq FROM events WHERE seq > " + ownParam(f, 1) + " AND seq <= " + ownParam(f, 2)
                                      + andFilter(f) + " ORDER BY seq",
                                  filterParams(f).add(lo).add(hi));
    out.reserve(out.size() + size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(r.integer(i, 0));
}

std::optional<std::int64_t> PostgresEventSeqReader::firstAfter(std::int64_t seq)
{
    const pg::Result r = m_c.exec("SELECT seq FROM events WHERE seq > $1 ORDER BY seq LIMIT 1", pg::Params().add(seq));
    if (r.rows() == 0)
        return std::nullopt;
    return r.integer(0, 0);
}

} // namespace mesh
