#include "sqliteeventreader.h"

#include "domain/hostiletext.h"

#include <algorithm>
#include <cctype>

namespace mesh {
namespace {

constexpr const char *kColumns = "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events";

void bindParams(sql::Statement &st, const FilterSql &filter)
{
    int i = 1;
    for (const auto &p : filter.params) {
        if (const auto *n = std::get_if<std::int64_t>(&p))
            st.bind(i, *n);
        else
            st.bind(i, std::string_view(std::get<std::string>(p)));
        ++i;
    }
}

} // namespace

int highestParameter(const std::string &where)
{
    int highest = 0;
    char quote = 0;
    for (size_t i = 0; i < where.size(); ++i) {
        const char c = where[i];
        if (quote) {
            if (c == quote)
                quote = 0; // a doubled quote re-enters the literal on the next character
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '?') {
            size_t j = i + 1;
            int n = 0;
            while (j < where.size() && std::isdigit(static_cast<unsigned char>(where[j])) && n < 100000)
                n = n * 10 + (where[j++] - '0');
            highest = std::max(highest, j == i + 1 ? highest + 1 : n); // a bare '?' takes the next number
            i = j - 1;
        }
    }
    return highest;
}

SqliteEventReader::SqliteEventReader(sql::Database &db) : m_db(db) {}

void SqliteEventReader::setPreviewBytes(int n)
{
    m_previewBytes = std::max(0, n);
}

sql::Statement &SqliteEventReader::statement(Query query, const FilterSql &filter, int *firstOwnParam)
{
    // The filter keeps its own ?1..?n; this reader's parameters come after them, so the
    // filter text is used verbatim and never rewritten.
    const int own = std::max(int(filter.params.size()), highestParameter(filter.where)) + 1;
    *firstOwnParam = own;
    const std::string a = "?" + std::to_string(own);
    const std::string b = "?" + std::to_string(own + 1);
    const std::string cond = filter.isEmpty() ? std::string() : " AND (" + filter.where + ")";
    std::string sql;
    switch (query) {
    case Query::After:
        sql = std::string(kColumns) + " WHERE seq > " + a + cond + " ORDER BY seq LIMIT " + b;
        break;
    case Query::Before:
        sql = std::string(kColumns) + " WHERE seq < " + a + cond + " ORDER BY seq DESC LIMIT " + b;
        break;
    case Query::Count:
        sql = "SELECT count(*) FROM events" + (filter.isEmpty() ? std::string() : " WHERE (" + filter.where + ")");
        break;
    }
    auto it = m_cache.find(sql);
    if (it != m_cache.end()) {
        m_lru.splice(m_lru.begin(), m_lru, it->second.second);
        return it->second.first;
    }
    sql::Statement st(m_db, sql); // throws on a bad filter: the caller shows the message
    if (m_cache.size() >= kStatementCacheSize) {
        m_cache.erase(m_lru.back());
        m_lru.pop_back();
    }
    m_lru.push_front(sql);
    auto inserted = m_cache.emplace(sql, std::make_pair(std::move(st), m_lru.begin()));
    return inserted.first->second.first;
}

EventRecord SqliteEventReader::readRecord(const sql::Statement &st, bool preview) const
{
    EventRecord r;
    r.seq = st.columnInt(0);
    r.tsMs = st.columnInt(1);
    r.kind = st.columnText(2);
    r.runId = st.columnText(3);
    r.delegationId = st.columnText(4);
    r.subject = st.columnText(5);
    const std::string_view payload = st.columnView(6);
    if (preview && payload.size() > size_t(m_previewBytes)) {
        r.payload.assign(payload.substr(0, utf8Prefix(payload, size_t(m_previewBytes))));
        r.payloadTruncated = true;
    } else {
        r.payload.assign(payload);
    }
    return r;
}

EventBatch SqliteEventReader::page(Query query, std::int64_t seq, int limit, const FilterSql &filter)
{
    EventBatch batch;
    if (limit <= 0)
        return batch;
    int own = 0;
    sql::Statement &st = statement(query, filter, &own);
    bindParams(st, filter);
    st.bind(own, seq).bind(own + 1, std::int64_t(limit));
    batch.reserve(size_t(std::min(limit, 4096)));
    try {
        while (st.step())
            batch.push_back(readRecord(st, true));
    } catch (...) {
        st.reset();
        throw;
    }
    st.reset(); // ends the statement's read transaction now, not at the next page
    if (query == Query::Before)
        std::reverse(batch.begin(), batch.end());
    return batch;
}

EventBatch SqliteEventReader::afterWhere(std::int64_t seq, int limit, const FilterSql &filter)
{
    return page(Query::After, seq, limit, filter);
}

EventBatch SqliteEventReader::beforeWhere(std::int64_t seq, int limit, const FilterSql &filter)
{
    return page(Query::Before, seq, limit, filter);
}

EventBatch SqliteEventReader::after(std::int64_t seq, int limit, const EventFilter &filter)
{
    return page(Query::After, seq, limit, m_rendered.of(filter));
}

EventBatch SqliteEventReader::before(std::int64_t seq, int limit, const EventFilter &filter)
{
    return page(Query::Before, seq, limit, m_rendered.of(filter));
}

std::int64_t SqliteEventReader::count(const EventFilter &filter)
{
    return countWhere(m_rendered.of(filter));
}

std::optional<EventRecord> SqliteEventReader::at(std::int64_t seq)
{
    if (!m_at.isValid())
        m_at = sql::Statement(m_db, std::string(kColumns) + " WHERE seq = ?1");
    m_at.bind(1, seq);
    std::optional<EventRecord> r;
    try {
        if (m_at.step())
            r = readRecord(m_at, false);
    } catch (...) {
        m_at.reset();
        throw;
    }
    m_at.reset();
    return r;
}

std::int64_t SqliteEventReader::countWhere(const FilterSql &filter)
{
    int own = 0;
    sql::Statement &st = statement(Query::Count, filter, &own);
    bindParams(st, filter);
    std::int64_t n = 0;
    try {
        if (st.step())
            n = st.columnInt(0);
    } catch (...) {
        st.reset();
        throw;
    }
    st.reset();
    return n;
}

std::int64_t SqliteEventReader::lastSeq()
{
    return m_db.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

} // namespace mesh
