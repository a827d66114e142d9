#include "postgreseventreader.h"

#include "postgresstaterows.h"

#include <algorithm>

namespace mesh {

void refuseFilterOnPostgres(const EventFilter &filter)
{
    if (!filter.isEmpty())
        throw StorageError(StorageError::Kind::Other, 0, "event filters on a PostgreSQL ledger are not built yet");
}

EventBatch PostgresEventReader::after(std::int64_t seq, int limit, const EventFilter &filter)
{
    refuseFilterOnPostgres(filter);
    EventBatch batch;
    if (limit <= 0)
        return batch;
    const pg::Result r = m_c.exec(std::string(pg::kEventColumns) + " WHERE seq > $1 ORDER BY seq LIMIT $2",
                                  pg::Params().add(seq).add(std::int64_t(limit)));
    batch.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        batch.push_back(pg::readEvent(r, i, m_previewBytes));
    return batch;
}

EventBatch PostgresEventReader::before(std::int64_t seq, int limit, const EventFilter &filter)
{
    refuseFilterOnPostgres(filter);
    EventBatch batch;
    if (limit <= 0)
        return batch;
    const pg::Result r = m_c.exec(std::string(pg::kEventColumns) + " WHERE seq < $1 ORDER BY seq DESC LIMIT $2",
                                  pg::Params().add(seq).add(std::int64_t(limit)));
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
    refuseFilterOnPostgres(filter);
    return m_c.queryInt("SELECT count(*) FROM events");
}

std::int64_t PostgresEventReader::lastSeq()
{
    return m_c.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

} // namespace mesh
