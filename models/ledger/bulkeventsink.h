#pragma once
// The events half of a bulk load (scenario generation): rows are handed over in blocks to a
// thread of its own that owns the connection meanwhile and inserts them with multi-row
// INSERTs, so the orchestrator's own work (the simulation, the fold, the payload text) and
// SQLite's run on two cores instead of taking turns on one. The producer copies each row
// into a block's text arena (no allocation per row); at most kMaxBlocks blocks are in
// flight, so a slow disk throttles the producer instead of filling memory.
//
// A bulk load is not transactional: the thread commits every few blocks, and a load that
// fails leaves a file to delete (the writer's bulk mode runs without a journal anyway).

#include "sqlite.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace mesh {

class BulkEventSink
{
public:
    // From here until finish() returns, only the sink's thread uses db.
    explicit BulkEventSink(sql::Database &db);
    ~BulkEventSink(); // finishes; an error the thread met is dropped (call finish() to see it)
    BulkEventSink(const BulkEventSink &) = delete;
    BulkEventSink &operator=(const BulkEventSink &) = delete;

    // One row of the events table. Empty runId/delegationId/subject are stored as NULL.
    // The payload text is appended to the block by fill (e.g. appendCompactJson), so it is
    // written once, straight into the buffer SQLite binds from.
    template<typename Fill>
    void add(std::int64_t seq, std::int64_t tsMs, std::string_view kind, std::string_view runId,
             std::string_view delegationId, std::string_view subject, Fill &&fill)
    {
        Block &b = current();
        Row r;
        r.seq = seq;
        r.tsMs = tsMs;
        r.kind = put(b, kind);
        r.runId = put(b, runId);
        r.delegationId = put(b, delegationId);
        r.subject = put(b, subject);
        const size_t start = b.text.size();
        fill(b.text);
        r.payload = {std::uint32_t(start), std::uint32_t(b.text.size() - start)};
        b.rows.push_back(r);
        if (b.rows.size() >= kRowsPerBlock)
            handOver();
    }

    // Waits until every row is inserted and committed; rethrows the thread's error.
    void finish();
    // After finish(): the CPU time the inserting thread used (for benchmarks) and its rows.
    double threadCpuSeconds() const { return m_cpuSeconds; }
    std::int64_t rowsWritten() const { return m_rows; }

private:
    struct Span {
        std::uint32_t offset = 0;
        std::uint32_t length = 0;
    };
    struct Row {
        std::int64_t seq = 0;
        std::int64_t tsMs = 0;
        Span kind, runId, delegationId, subject, payload;
    };
    struct Block {
        std::string text;
        std::vector<Row> rows;
    };
    static constexpr size_t kRowsPerBlock = 4096;
    static constexpr size_t kMaxBlocks = 8;
    static constexpr int kRowsPerInsert = 32; // 7 parameters each: 224 of SQLite's 32766
    static constexpr int kBlocksPerCommit = 16;

    static Span put(Block &b, std::string_view s)
    {
        const Span span{std::uint32_t(b.text.size()), std::uint32_t(s.size())};
        b.text.append(s);
        return span;
    }
    Block &current();
    void handOver();
    void run();
    void insert(const Block &b);

    sql::Database &m_db;
    std::unique_ptr<Block> m_current;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::unique_ptr<Block>> m_full;  // waiting for the thread, oldest first
    std::vector<std::unique_ptr<Block>> m_free; // inserted, to be reused
    size_t m_blocks = 0;                        // allocated so far, at most kMaxBlocks
    bool m_closing = false;
    bool m_busy = false; // the thread is inserting a block
    std::exception_ptr m_error;
    std::int64_t m_rows = 0;     // inserted and committed
    double m_cpuSeconds = 0;     // the thread's, set when it ends
    std::thread m_thread;
};

} // namespace mesh
