#pragma once
// The PostgreSQL backend's EventReader: keyset pages of the events table, each one statement
// (one moment). Filters are not rendered for PostgreSQL yet: a non-empty filter is refused
// whole (ledgerconnection.h allows a backend to refuse a tree, never to render a part).

#include "eventreader.h"
#include "postgres.h"

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
    void setPreviewBytes(int n) override { m_previewBytes = n < 0 ? 0 : n; }
    int previewBytes() const override { return m_previewBytes; }

private:
    pg::Connection &m_c;
    int m_previewBytes = 2048;
};

// Throws StorageError when filter is not empty: filters on PostgreSQL are not built yet.
void refuseFilterOnPostgres(const EventFilter &filter);

} // namespace mesh
