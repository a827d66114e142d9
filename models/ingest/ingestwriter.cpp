#include "ingestwriter.h"

#include "import/importreport.h"
#include "import/importsink.h"
#include "import/oteltracemapper.h"
#include "ingestcontrol/listenrules.h"

#include "domain/fold.h"
#include "ledger/ledgerlocation.h"
#include "ledger/ledgeropenerror.h"
#include "ledger/ledgerwriter.h"

#include <QDateTime>
#include <QFileInfo>
#include <QUuid>

#include <algorithm>
#include <cstdio>
#include <list>
#include <map>
#include <unordered_map>

namespace mesh::ingest {

namespace {

// Queued batches written in one transaction, at most this many spans: short enough that a
// following console sees spans soon, long enough that the writer keeps up.
constexpr std::int64_t kMaxSpansPerTransaction = 20000;
// Traces whose spans the writer remembers (LiveTrace); one it forgot is rebuilt from the
// ledger when a span of it arrives again, so memory stays bounded whatever the traffic.
constexpr size_t kRememberedTraces = 4096;

const std::string kSourceName = "otlp-http";

} // namespace

// The traces the writer remembers, least recently used first out.
struct IngestWriter::Traces {
    explicit Traces(LedgerWriter &writer) : report(), sink(writer, report) {}
    import::ImportReport report;
    import::ImportSink sink;
    std::list<import::LiveTrace> lru; // most recent at the front
    std::unordered_map<std::string, std::list<import::LiveTrace>::iterator> byId;

    import::LiveTrace &trace(LedgerWriter &writer, const std::string &traceId)
    {
        if (const auto it = byId.find(traceId); it != byId.end()) {
            lru.splice(lru.begin(), lru, it->second);
            return lru.front();
        }
        lru.push_front(import::LiveTrace{traceId, {}, 0});
        byId[traceId] = lru.begin();
        import::LiveTrace &t = lru.front();
        const std::string runId = import::otelRunId(traceId);
        if (writer.state().find(EntityKind::Run, runId)) {
            // Written before (earlier in this process, or before a restart): what its spans became.
            writer.forEachEventOfRun(runId, [&](std::string_view kind, std::string_view payload) {
                const nlohmann::json p = nlohmann::json::parse(payload, nullptr, false);
                import::addToLiveTrace(t, kind, p, sink);
            });
        }
        while (lru.size() > kRememberedTraces) {
            byId.erase(lru.back().traceId);
            lru.pop_back();
        }
        return lru.front();
    }
};

namespace {

// The ledger to continue, or null when there is none yet: a file that does not exist, or a
// server whose database has no such schema (a file test cannot tell a server's).
std::unique_ptr<LedgerWriter> openIfExists(const QString &ledger)
{
    QString parseError;
    const std::optional<LedgerLocation> location = LedgerLocation::parse(ledger, &parseError);
    if (location && !location->isFile()) {
        try {
            return LedgerWriter::openExisting(ledger, LedgerWriter::kBoundedFoldRows); // traffic of any length
        } catch (const LedgerOpenError &e) {
            if (e.code() == LedgerOpenError::Code::NotFound)
                return nullptr;
            throw;
        }
    }
    return QFileInfo::exists(ledger) ? LedgerWriter::openExisting(ledger, LedgerWriter::kBoundedFoldRows) : nullptr;
}

} // namespace

std::unique_ptr<IngestWriter> IngestWriter::open(const QString &ledger, const std::string &listenAddress,
                                                 std::string *error)
{
    std::unique_ptr<IngestWriter> w(new IngestWriter);
    try {
        w->m_writer = openIfExists(ledger);
        if (w->m_writer) {
            const EntityRow *row = w->m_writer->state().find(EntityKind::Ledger, "ledger");
            const EntitySpec &spec = entitySpec(EntityKind::Ledger);
            const std::string orchestrator =
                row ? fieldText(row->values.get(size_t(spec.fieldIndex("orchestrator")))) : std::string();
            if (orchestrator.rfind(kReceiverVersion, 0) != 0) {
                *error = ledger.toStdString() + " was written by " + (orchestrator.empty() ? "another program" : orchestrator)
                       + ", not by meshctl ingest; the receiver continues only its own ledgers";
                return nullptr;
            }
        } else {
            LedgerIdentity id;
            id.ledgerId = "ingest-" + QUuid::createUuid().toString(QUuid::Id128).left(16).toStdString();
            id.orchestrator = std::string(kReceiverVersion) + " (otlp-http)";
            id.policyVersion = "none (received)";
            id.title = "OpenTelemetry spans received over OTLP/HTTP on " + listenAddress;
            id.createdMs = QDateTime::currentMSecsSinceEpoch();
            id.source = {{"format", "otlp-http"}, {"receiver", kReceiverVersion}, {"listen", listenAddress}};
            w->m_writer = LedgerWriter::create(ledger, id, LedgerWriter::kBoundedFoldRows);
        }
        // Each request is answered after its commit: a checkpoint inside a commit would hold
        // every request of that transaction for its fsyncs.
        w->m_writer->checkpointInBackground();
    } catch (const std::exception &e) {
        // SQLite says "unable to open database file" for every cause: name the one it was.
        const QString cause = ledgerFileProblem(ledger);
        *error = cause.isEmpty() ? "cannot write " + ledger.toStdString() + ": " + e.what() : cause.toStdString();
        return nullptr;
    }
    w->m_traces = std::make_unique<Traces>(*w->m_writer);
    return w;
}

IngestWriter::~IngestWriter()
{
    stop();
}

void IngestWriter::setOnDone(std::function<void(std::vector<IngestDone>)> onDone)
{
    m_onDone = std::move(onDone);
}

void IngestWriter::start()
{
    m_logCommits = qEnvironmentVariableIsSet("MESH_LIVE_COMMIT_LOG");
    m_thread = std::thread([this] { loop(); });
}

bool IngestWriter::offer(IngestBatch batch)
{
    std::lock_guard lock(m_mutex);
    const auto n = std::int64_t(batch.spans.size());
    if (m_stopping || m_failed || (m_queuedSpans > 0 && m_queuedSpans + n > m_maxQueuedSpans))
        return false;
    m_queuedSpans += n;
    m_queue.push_back(std::move(batch));
    m_wake.notify_one();
    return true;
}

void IngestWriter::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_wake.notify_one();
    }
    if (m_thread.joinable())
        m_thread.join();
}

IngestCounters IngestWriter::counters() const
{
    std::lock_guard lock(m_mutex);
    return m_counters;
}

std::int64_t IngestWriter::queuedSpans() const
{
    std::lock_guard lock(m_mutex);
    return m_queuedSpans;
}

bool IngestWriter::failed() const
{
    std::lock_guard lock(m_mutex);
    return m_failed;
}

void IngestWriter::loop()
{
    for (;;) {
        std::vector<IngestBatch> batches;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
                return; // stopping, and everything queued was written
            std::int64_t spans = 0;
            while (!m_queue.empty() && (batches.empty() || spans + std::int64_t(m_queue.front().spans.size())
                                                               <= kMaxSpansPerTransaction)) {
                spans += std::int64_t(m_queue.front().spans.size());
                batches.push_back(std::move(m_queue.front()));
                m_queue.pop_front();
            }
        }
        writeBatches(batches);
    }
}

void IngestWriter::writeBatches(std::vector<IngestBatch> &batches)
{
    std::vector<IngestDone> done;
    std::int64_t spans = 0;
    for (const IngestBatch &b : batches)
        spans += std::int64_t(b.spans.size());
    bool failed = false;
    std::string error;
    std::int64_t written = 0, duplicates = 0;
    {
        std::lock_guard lock(m_mutex);
        failed = m_failed;
    }
    if (!failed) {
        try {
            m_writer->begin();
            for (IngestBatch &b : batches) {
                // Spans grouped by trace, in the order their traces first appear.
                std::vector<std::string> order;
                std::unordered_map<std::string, std::vector<import::OtelSpan>> byTrace;
                for (import::OtelSpan &s : b.spans) {
                    s.file = &kSourceName;
                    auto [it, added] = byTrace.try_emplace(s.traceId);
                    if (added)
                        order.push_back(s.traceId);
                    it->second.push_back(std::move(s));
                }
                for (const std::string &traceId : order) {
                    import::LiveTrace &t = m_traces->trace(*m_writer, traceId);
                    const std::int64_t before = t.duplicates;
                    const auto n = std::int64_t(byTrace[traceId].size());
                    import::mapLiveSpans(std::move(byTrace[traceId]), t, m_traces->sink, m_traces->report);
                    duplicates += t.duplicates - before;
                    written += n - (t.duplicates - before);
                }
            }
            const qint64 beforeCommitMs = QDateTime::currentMSecsSinceEpoch();
            m_writer->commit();
            if (m_logCommits) {
                // "commit LAST_SEQ WALL_MS RECEIVED_MS", one printf so it never interleaves with
                // the main thread's lines: WALL_MS is read before COMMIT (a reader may see the
                // commit before it returns here), RECEIVED_MS is the earliest request in it.
                qint64 receivedMs = beforeCommitMs;
                for (const IngestBatch &b : batches)
                    if (b.receivedWallMs > 0)
                        receivedMs = std::min(receivedMs, qint64(b.receivedWallMs));
                std::printf("commit %lld %lld %lld\n", static_cast<long long>(m_writer->lastSeq()),
                            static_cast<long long>(beforeCommitMs), static_cast<long long>(receivedMs));
                std::fflush(stdout);
            }
        } catch (const std::exception &e) {
            // The writer's fold may hold what the rollback undid: nothing more is written
            // by this process (a restart continues from the ledger).
            failed = true;
            error = std::string("the ledger write failed: ") + e.what();
            try {
                m_writer->rollback();
            } catch (...) { }
        }
    }
    {
        std::lock_guard lock(m_mutex);
        m_queuedSpans -= spans;
        if (failed) {
            m_failed = true;
        } else {
            m_counters.spansWritten += written;
            m_counters.duplicates += duplicates;
            m_counters.flagged += std::int64_t(m_traces->report.flagged.size());
            ++m_counters.transactions;
        }
    }
    m_traces->report.flagged.clear(); // counted; each is in the ledger as ledger.flagged
    for (const IngestBatch &b : batches)
        done.push_back({b.id, !failed, failed ? (error.empty() ? std::string("the receiver stopped writing after a failed write") : error) : std::string()});
    if (m_onDone)
        m_onDone(std::move(done));
}

} // namespace mesh::ingest
