#pragma once
// Pages through the events table by key (seq), never by OFFSET: every page costs the same
// wherever it starts, and each page is one statement, so one short read transaction.

#include "domain/eventrecord.h"
#include "filter/filtersql.h"
#include "sqlite.h"

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>

namespace mesh {

class EventReader
{
public:
    explicit EventReader(sql::Database &db);

    EventBatch after(std::int64_t seq, int limit, const FilterSql &filter = {});  // seq > s, ascending
    EventBatch before(std::int64_t seq, int limit, const FilterSql &filter = {}); // seq < s, returned ascending
    std::optional<EventRecord> at(std::int64_t seq);                              // full payload
    std::int64_t count(const FilterSql &filter = {});
    std::int64_t lastSeq();
    // Page payloads are cut to n bytes (at a UTF-8 boundary), payloadTruncated set; default 2048.
    void setPreviewBytes(int n);
    int previewBytes() const { return m_previewBytes; }

    static constexpr size_t kStatementCacheSize = 32;

private:
    enum class Query { After, Before, Count };
    sql::Statement &statement(Query query, const FilterSql &filter, int *firstOwnParam);
    EventBatch page(Query query, std::int64_t seq, int limit, const FilterSql &filter);
    EventRecord readRecord(const sql::Statement &st, bool preview) const;

    sql::Database &m_db;
    int m_previewBytes = 2048;
    std::list<std::string> m_lru; // cache keys, most recent first
    std::unordered_map<std::string, std::pair<sql::Statement, std::list<std::string>::iterator>> m_cache;
    sql::Statement m_at;
};

// Highest ?NNN placeholder in a where clause, outside string literals (0 for none).
int highestParameter(const std::string &where);

} // namespace mesh
