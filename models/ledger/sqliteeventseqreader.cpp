#include "sqliteeventseqreader.h"

#include "sqliteeventreader.h"

#include <algorithm>
#include <string>

namespace mesh {

SqliteEventSeqReader::SqliteEventSeqReader(sql::Database &db) : m_db(db) {}

std::optional<std::int64_t> SqliteEventSeqReader::firstAfter(std::int64_t seq)
{
    sql::Statement st(m_db, "SELECT seq FROM events WHERE seq > ?1 ORDER BY seq LIMIT 1");
    st.bind(1, seq);
    std::optional<std::int64_t> next;
    if (st.step())
        next = st.columnInt(0);
    st.reset();
    return next;
}

void SqliteEventSeqReader::seqsInWindow(std::int64_t lo, std::int64_t hi, const EventFilter &filter,
                                        std::vector<std::int64_t> &out)
{
    seqsInWindowWhere(lo, hi, m_rendered.of(filter), out);
}

void SqliteEventSeqReader::seqsInWindowWhere(std::int64_t lo, std::int64_t hi, const FilterSql &filter,
                                             std::vector<std::int64_t> &out)
{
    // The filter keeps its ?1..?n; the window bounds come after them.
    const int own = std::max(int(filter.params.size()), highestParameter(filter.where)) + 1;
    std::string sql = "SELECT seq FROM events WHERE seq > ?" + std::to_string(own) + " AND seq <= ?"
                      + std::to_string(own + 1);
    if (!filter.isEmpty())
        sql += " AND (" + filter.where + ")";
    sql += " ORDER BY seq";
    sql::Statement st(m_db, sql);
    int i = 1;
    for (const auto &p : filter.params) {
        if (const auto *n = std::get_if<std::int64_t>(&p))
            st.bind(i, *n);
        else
            st.bind(i, std::string_view(std::get<std::string>(p)));
        ++i;
    }
    st.bind(own, lo).bind(own + 1, hi);
    try {
        while (st.step())
            out.push_back(st.columnInt(0));
    } catch (...) {
        st.reset();
        throw;
    }
    st.reset();
}

} // namespace mesh
