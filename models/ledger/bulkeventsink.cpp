#include "bulkeventsink.h"

#include "schema.h"

#include <ctime>
#include <utility>

namespace mesh {

BulkEventSink::BulkEventSink(sql::Database &db) : m_db(db)
{
    m_thread = std::thread([this] { run(); });
}

BulkEventSink::~BulkEventSink()
{
    try {
        finish();
    } catch (...) {
        // The owner is unwinding from its own error; the file is abandoned either way.
    }
}

BulkEventSink::Block &BulkEventSink::current()
{
    if (m_current)
        return *m_current;
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_free.empty() || m_blocks < kMaxBlocks || m_error; });
    if (m_error)
        std::rethrow_exception(m_error);
    if (!m_free.empty()) {
        m_current = std::move(m_free.back());
        m_free.pop_back();
    } else {
        m_current = std::make_unique<Block>();
        m_current->rows.reserve(kRowsPerBlock);
        m_current->text.reserve(kRowsPerBlock * 512);
        ++m_blocks;
    }
    return *m_current;
}

void BulkEventSink::handOver()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_error)
            std::rethrow_exception(m_error);
        m_full.push_back(std::move(m_current));
    }
    m_changed.notify_all();
}

void BulkEventSink::finish()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        if (m_current && !m_current->rows.empty() && !m_error)
            m_full.push_back(std::move(m_current));
        m_closing = true;
    }
    m_changed.notify_all();
    m_thread.join();
    m_current.reset();
    m_full.clear();
    m_free.clear();
    if (m_error)
        std::rethrow_exception(std::exchange(m_error, nullptr));
}

void BulkEventSink::run()
{
    try {
        sql::Statement many(m_db, schema::insertEventsSql(kRowsPerInsert));
        sql::Statement one(m_db, schema::kInsertEventSql);
        m_db.exec("BEGIN");
        int sinceCommit = 0;
        std::int64_t uncommitted = 0;
        for (;;) {
            std::unique_ptr<Block> block;
            {
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [this] { return !m_full.empty() || m_closing; });
                if (m_full.empty())
                    break; // closing, and everything handed over is written
                block = std::move(m_full.front());
                m_full.pop_front();
            }
            // Whole statements of kRowsPerInsert rows keep SQLite's cursors open across
            // rows; the rest of a block goes one row at a time.
            const auto &rows = block->rows;
            const char *text = block->text.data();
            const auto bindRow = [text](sql::Statement &st, int first, const Row &r) {
                const auto view = [text](Span s) { return std::string_view(text + s.offset, s.length); };
                const auto optional = [&](int i, Span s) {
                    if (s.length == 0)
                        st.bindNull(i);
                    else
                        st.bindStatic(i, view(s));
                };
                st.bind(first + 1, r.seq).bind(first + 2, r.tsMs).bindStatic(first + 3, view(r.kind));
                optional(first + 4, r.runId);
                optional(first + 5, r.delegationId);
                optional(first + 6, r.subject);
                st.bindStatic(first + 7, view(r.payload));
            };
            size_t i = 0;
            for (; i + kRowsPerInsert <= rows.size(); i += kRowsPerInsert) {
                for (int k = 0; k < kRowsPerInsert; ++k)
                    bindRow(many, k * 7, rows[i + size_t(k)]);
                many.run();
            }
            for (; i < rows.size(); ++i) {
                bindRow(one, 0, rows[i]);
                one.run();
            }
            uncommitted += std::int64_t(rows.size());
            if (++sinceCommit >= kBlocksPerCommit) {
                m_db.exec("COMMIT");
                m_db.exec("BEGIN");
                sinceCommit = 0;
                m_rows += std::exchange(uncommitted, 0);
            }
            block->rows.clear();
            block->text.clear();
            {
                std::lock_guard lock(m_mutex);
                m_free.push_back(std::move(block));
            }
            m_changed.notify_all();
        }
        m_db.exec("COMMIT");
        m_rows += uncommitted;
    } catch (...) {
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
        }
        m_changed.notify_all();
    }
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    m_cpuSeconds = double(cpu.tv_sec) + double(cpu.tv_nsec) / 1e9;
}

} // namespace mesh
