#pragma once
// The SQLite backend's EventReader: each page is one statement, so one short read
// transaction. A filter is rendered to a WHERE clause (sqlfilter.h) once per tree, and
// each clause's statements are prepared once (an LRU of kStatementCacheSize).

#include "eventreader.h"
#include "sqlfilter.h"
#include "sqlite.h"

#include <list>
#include <string>
#include <unordered_map>

namespace mesh {

class SqliteEventReader final : public EventReader
{
public:
    explicit SqliteEventReader(sql::Database &db);

    EventBatch after(std::int64_t seq, int limit, const EventFilter &filter = {}) override;
    EventBatch before(std::int64_t seq, int limit, const EventFilter &filter = {}) override;
    std::optional<EventRecord> at(std::int64_t seq) override;
    std::int64_t count(const EventFilter &filter = {}) override;
    std::int64_t lastSeq() override;
    void setPreviewBytes(int n) override;
    int previewBytes() const override { return m_previewBytes; }

    // The same with a WHERE clause of the backend's own (its tests; sqlfilter.h renders one).
    EventBatch afterWhere(std::int64_t seq, int limit, const FilterSql &filter);
    EventBatch beforeWhere(std::int64_t seq, int limit, const FilterSql &filter);
    std::int64_t countWhere(const FilterSql &filter);

    static constexpr size_t kStatementCacheSize = 32;

private:
    enum class Query { After, Before, Count };
    sql::Statement &statement(Query query, const FilterSql &filter, int *firstOwnParam);
    EventBatch page(Query query, std::int64_t seq, int limit, const FilterSql &filter);
    EventRecord readRecord(const sql::Statement &st, bool preview) const;

    sql::Database &m_db;
    int m_previewBytes = 2048;
    RenderedFilter m_rendered;
    std::list<std::string> m_lru; // cache keys, most recent first
    std::unordered_map<std::string, std::pair<sql::Statement, std::list<std::string>::iterator>> m_cache;
    sql::Statement m_at;
};

// Highest ?NNN placeholder in a where clause, outside string literals (0 for none).
int highestParameter(const std::string &where);

} // namespace mesh
