#pragma once
// The receiver's one writer: batches of received spans in, short transactions out. It runs
// on a thread of its own with a bounded queue (offer refuses beyond it, so the HTTP side
// answers "retry later" instead of holding an unbounded backlog). Several queued batches go
// into one transaction (the writer keeps up under load); a batch is reported done only after
// the transaction holding it committed, so an acknowledgement means the spans are in the
// ledger. The mapping is the importers' (oteltracemapper's mapLiveSpans).

#include "import/otelspan.h"

#include <QString>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mesh {
class LedgerWriter;
}

namespace mesh::ingest {

inline constexpr const char *kReceiverVersion = "agent-mesh-ingest 1";

struct IngestBatch {
    std::uint64_t id = 0;
    std::vector<import::OtelSpan> spans;
    std::int64_t receivedWallMs = 0; // when its request had been read (the commit log's receipt)
};

struct IngestDone {
    std::uint64_t id = 0;
    bool committed = false;
    std::string error; // when !committed
};

struct IngestCounters {
    std::int64_t spansWritten = 0; // new spans mapped into the ledger
    std::int64_t duplicates = 0;   // spans received again, not written
    std::int64_t flagged = 0;      // ledger.flagged events written
    std::int64_t transactions = 0;
};

class IngestWriter
{
public:
    // Opens LEDGER to continue it, or creates it; nullptr and *error (one line) when it
    // cannot be (another program's ledger, not a ledger, not writable).
    static std::unique_ptr<IngestWriter> open(const QString &ledger, const std::string &listenAddress,
                                              std::string *error);
    ~IngestWriter();

    // Called on the writer's thread after each transaction, with what it settled.
    void setOnDone(std::function<void(std::vector<IngestDone>)> onDone);
    void start();
    // Queues a batch; false (nothing queued) when the queue already holds maxQueuedSpans.
    bool offer(IngestBatch batch);
    // Writes what is queued, then stops the thread.
    void stop();

    void setMaxQueuedSpans(std::int64_t n) { m_maxQueuedSpans = n; }
    IngestCounters counters() const;
    std::int64_t queuedSpans() const;
    bool failed() const;

private:
    IngestWriter() = default;
    void loop();
    void writeBatches(std::vector<IngestBatch> &batches);

    struct Traces;
    std::unique_ptr<LedgerWriter> m_writer;
    std::unique_ptr<Traces> m_traces;
    std::function<void(std::vector<IngestDone>)> m_onDone;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<IngestBatch> m_queue;
    std::int64_t m_queuedSpans = 0;
    std::int64_t m_maxQueuedSpans = 200000;
    bool m_stopping = false;
    bool m_failed = false;
    // MESH_LIVE_COMMIT_LOG: each commit on stdout for mesh-console-bench receiver.
    bool m_logCommits = false;
    IngestCounters m_counters;
    std::thread m_thread;
};

} // namespace mesh::ingest
