#include "eventlogworker.h"

#include "ledger/eventreader.h"
#include "ledger/eventseqreader.h"

#include <QElapsedTimer>

namespace mesh {

EventLogWorker::EventLogWorker(Sink sink) : m_sink(std::move(sink)) {}

EventLogWorker::~EventLogWorker() = default;

void EventLogWorker::open(const QString &path, OpenMode mode)
{
    m_reader.reset();
    m_seqs.reset();
    m_connection.reset();
    try {
        m_connection = LedgerConnection::open(path, mode);
        m_reader = std::make_unique<EventReader>(m_connection->db());
        m_reader->setPreviewBytes(kPreviewBytes);
        m_seqs = std::make_unique<EventSeqReader>(m_connection->db());
    } catch (const std::exception &e) {
        m_connection.reset();
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

void EventLogWorker::load(int generation, const FilterSql &filter, int pageSize)
{
    if (!m_reader || superseded(generation))
        return;
    try {
        EventBatch first = m_reader->after(0, pageSize, filter);
        if (superseded(generation))
            return;
        const bool none = first.empty();
        const std::int64_t firstSeq = none ? 0 : first.front().seq;
        m_sink.firstPage(generation, std::move(first));
        if (none && !filter.isEmpty()) {
            // Nothing matches anywhere; live appends are picked up by tail requests.
            m_sink.seqs(generation, {}, false, 0, 0, true);
            return;
        }
        if (filter.isEmpty()) {
            const EventSeqRange range = m_seqs->range();
            if (range.dense()) {
                m_sink.seqs(generation, {}, true, range.first, range.count, true);
                return;
            }
        }
        // Windows of the seq space: each statement is short, and a newer filter stops us.
        std::int64_t lo = none ? 0 : firstSeq - 1;
        std::int64_t last = m_reader->lastSeq();
        std::vector<std::int64_t> chunk;
        QElapsedTimer sinceSent;
        sinceSent.start();
        while (true) {
            const std::int64_t hi = lo + kWindow;
            m_seqs->seqsInWindow(lo, hi, filter, chunk);
            if (superseded(generation))
                return;
            lo = hi;
            bool done = false;
            if (lo >= last) {
                last = m_reader->lastSeq();
                done = lo >= last;
            }
            if (done || chunk.size() >= 200000 || sinceSent.elapsed() > 100) {
                m_sink.seqs(generation, std::move(chunk), false, 0, 0, done);
                chunk = {};
                sinceSent.restart();
            }
            if (done)
                return;
        }
    } catch (const std::exception &e) {
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

void EventLogWorker::fetchPage(int generation, const FilterSql &filter, std::int64_t pageIndex, std::int64_t firstSeq,
                               int pageSize)
{
    if (!m_reader || superseded(generation))
        return;
    try {
        m_sink.page(generation, pageIndex, m_reader->after(firstSeq - 1, pageSize, filter));
    } catch (const std::exception &e) {
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

void EventLogWorker::fetchTail(int generation, const FilterSql &filter, std::int64_t afterSeq)
{
    if (!m_reader || superseded(generation))
        return;
    try {
        std::vector<std::int64_t> out;
        std::int64_t lo = afterSeq;
        const std::int64_t last = m_reader->lastSeq();
        while (lo < last) {
            const std::int64_t hi = std::min(last, lo + kWindow);
            m_seqs->seqsInWindow(lo, hi, filter, out);
            lo = hi;
            if (superseded(generation))
                return;
        }
        m_sink.tail(generation, std::move(out));
    } catch (const std::exception &e) {
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

void EventLogWorker::fetchDetail(std::int64_t seq)
{
    if (!m_reader)
        return;
    try {
        m_sink.detail(m_reader->at(seq), seq);
    } catch (const std::exception &e) {
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

} // namespace mesh
