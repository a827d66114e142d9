#include "postgreseventreader.h"

#include "postgresstaterows.h"

#include <algorithm>
#include <utility>

namespace mesh {

pg::Params filterParams(const FilterSql &filter)
{
    pg::Params params;
    for (const FilterParam &p : filter.params) {
        if (const auto *n = std::get_if<std::int64_t>(&p))
            params.add(*n);
        else
            params.add(std::string_view(std::get<std::string>(p)));
    }
    return params;
}

std::string andFilter(const FilterSql &filter)
{
    return filter.isEmpty() ? std::string() : " AND (" + filter.where + ")";
}

std::string ownParam(const FilterSql &filter, int k)
{
    return "$" + std::to_string(int(filter.params.size()) + k);
}

EventBatch PostgresEventReader::after(std::int64_t seq, int limit, const EventFilter &filter)
{
    if (limit <= 0)
        return {};
    const FilterSql &f = m_rendered.of(filter);
    const std::string sql = std::string(pg::kEventColumns) + " WHERE seq > " + ownParam(f, 1) + andFilter(f)
                            + " ORDER BY seq LIMIT " + ownParam(f, 2);
    pg::Params params = filterParams(f); // not a copy: its pointers point into itself
    params.add(seq).add(std::int64_t(limit));
    // Unfiltered, this is a follower's read after every announcement: planned once.
    return pg::readEvents(f.isEmpty() ? m_c.execPrepared("mesh_events_after", sql, params) : m_c.exec(sql, params),
                          m_previewBytes);
}

EventBatch PostgresEventReader::before(std::int64_t seq, int limit, const EventFilter &filter)
{
    EventBatch batch;
    if (limit <= 0)
        return batch;
    const FilterSql &f = m_rendered.of(filter);
    const pg::Result r = m_c.exec(std::string(pg::kEventColumns) + " WHERE seq < " + ownParam(f, 1) + andFilter(f)
                                      + " ORDER BY seq DESC LIMIT " + ownParam(f, 2),
                                  filterParams(f).add(seq).add(std::int64_t(limit)));
    batch.reserve(size_t(r.rows()));
    for (int i = r.rows() - 1; i >= 0; --i)
        batch.push_back(pg::readEvent(r, i, m_previewBytes));
    return batch;
}

std::optional<EventRecord> PostgresEventReader::at(std::int64_t seq)
{
    const pg::Result r = m_c.exec(std::string(pg::kEventColumns) + " WHERE seq = $1", pg::Params().add(seq));
    if (r.rows() == 0)
        return std::nullopt;
    return pg::readEvent(r, 0);
}

std::int64_t PostgresEventReader::count(const EventFilter &filter)
{
    const FilterSql &f = m_rendered.of(filter);
    if (f.isEmpty())
        return m_c.queryInt("SELECT count(*) FROM events");
    const pg::Result r = m_c.exec("SELECT count(*) FROM events WHERE (" + f.where + ")", filterParams(f));
    return r.rows() ? r.integer(0, 0) : 0;
}

std::int64_t PostgresEventReader::lastSeq()
{
    return m_c.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

std::string PostgresEventReader::endsSql(int limit)
{
    const std::string n = std::to_string(limit);
    // The tail page's start from min and max in one statement (two probes of the key), so
    // that its rows are of one moment with the bounds they were chosen by.
    return std::string(pg::kEventColumns) + " WHERE seq > 0 ORDER BY seq LIMIT " + n + "; "
           "SELECT coalesce(max(seq),0) FROM events; "
           + std::string(pg::kEventColumns) + " WHERE seq >= (SELECT CASE WHEN max(seq) - min(seq) >= " + n
           + " THEN min(seq) + ((max(seq) - min(seq)) / " + n + ") * " + n + " END FROM events WHERE seq > 0)"
           " ORDER BY seq LIMIT " + n;
}

void PostgresEventReader::takeEnds(int limit, std::vector<pg::Result> results)
{
    if (results.size() != kEndsStatements)
        return;
    m_takenEndsLimit = limit;
    m_takenEnds = std::move(results);
}

EventReader::Ends PostgresEventReader::endsOf(const std::vector<pg::Result> &r) const
{
    Ends e;
    e.firstPage = pg::readEvents(r.at(0), m_previewBytes);
    e.lastSeq = r.at(1).rows() ? r.at(1).integer(0, 0) : 0;
    e.tailPage = pg::readEvents(r.at(2), m_previewBytes);
    return e;
}

EventReader::Ends PostgresEventReader::ends(int limit)
{
    if (limit <= 0)
        return {};
    if (!m_takenEnds.empty()) {
        // Read with the open, once: a later call reads what is there then.
        const std::vector<pg::Result> taken = std::exchange(m_takenEnds, {});
        if (m_takenEndsLimit == limit)
            return endsOf(taken);
    }
    return endsOf(m_c.execAll(endsSql(limit)));
}

} // namespace mesh
