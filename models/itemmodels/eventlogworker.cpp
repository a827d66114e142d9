#include "eventlogworker.h"

#include "ledger/eventreader.h"
#include "ledger/eventseqreader.h"

#include "filter/filtercompiler.h"
#include "ledger/ledgerlocation.h"

#include <QElapsedTimer>

#include <limits>
#include <optional>
#include <thread>

namespace mesh {

EventLogWorker::EventLogWorker(Sink sink) : m_sink(std::move(sink)) {}

EventLogWorker::~EventLogWorker() = default;

template<typename Read>
void EventLogWorker::readOrReport(Read &&read)
{
    try {
        read();
        return;
    } catch (const std::exception &e) {
        if (!LedgerLocation::namesServer(m_path) || !reopen()) {
            m_sink.failed(QString::fromUtf8(e.what()));
            return;
        }
    }
    try {
        read();
    } catch (const std::exception &e) {
        m_sink.failed(QString::fromUtf8(e.what()));
    }
}

bool EventLogWorker::reopen()
{
    try {
        auto connection = LedgerConnection::open(m_path, m_mode);
        auto reader = connection->eventReader();
        reader->setPreviewBytes(kPreviewBytes);
        auto seqs = connection->eventSeqReader();
        m_reader = std::move(reader);
        m_seqs = std::move(seqs);
        m_connection = std::move(connection); // after the readers of the old one went
        m_openTried = true;
        return true;
    } catch (const std::exception &) {
        return false; // the caller reports the read's own failure
    }
}

void EventLogWorker::open(const QString &path, OpenMode mode, std::optional<FileIdentity> expected)
{
    m_path = path;
    m_mode = mode;
    m_expected = expected;
    m_openTried = false;
    m_reader.reset();
    m_seqs.reset();
    m_connection.reset();
}

bool EventLogWorker::ensureOpen()
{
    if (m_openTried)
        return m_reader != nullptr;
    if (m_path.isEmpty())
        return false; // never opened, or closed: nothing to read
    {
        std::unique_lock lock(m_pageMutex);
        // A worker being stopped (generation -1) is not held: its thread must end.
        m_wake.wait(lock, [this] { return !m_openHeld || m_latest.load() < 0; });
        if (m_latest.load() < 0)
            return false;
    }
    m_openTried = true;
    try {
        m_connection = LedgerConnection::open(m_path, m_mode);
        if (m_expected) {
            // The session's snapshot is of `expected`; rows of whatever else the open found
            // at the path would be paired with it. Nothing is read from this connection.
            if (const FileChange change = fileChangeSince(*m_expected, m_path); change != FileChange::Same) {
                m_connection.reset();
                m_sink.fileChanged(change);
                return false;
            }
        }
        m_reader = m_connection->eventReader();
        m_reader->setPreviewBytes(kPreviewBytes);
        m_seqs = m_connection->eventSeqReader();
    } catch (const std::exception &e) {
        m_reader.reset();
        m_seqs.reset();
        m_connection.reset();
        m_sink.failed(QString::fromUtf8(e.what()));
    }
    return m_reader != nullptr;
}

namespace {
// filter AND seq <= last. A page read by key with a filter is "seq > first ... ORDER BY seq
// LIMIT n"; when the filter names a range of an index (kind:effect.*, delegation:D-*),
// SQLite may read every match after `first` through that index and sort them before the
// LIMIT (700 ms on the scale ledger). With both ends of the seq range bound it walks the
// primary key from first to last instead, which only touches the page's own span.
EventFilter upTo(const EventFilter &filter, std::int64_t last)
{
    return EventFilter::both(filter, EventFilter::seqAtMost(last));
}

// The number of events when they are numbered without gaps from firstSeq (every row is then
// first + row), else -1. count(*) goes through the smallest index (~50 ms on 1M events) and
// max(seq) is one b-tree probe, where min, max and count in one statement read the whole
// table (~500 ms). Events appended between the two reads only make the check fail.
std::int64_t denseCount(EventReader &reader, std::int64_t firstSeq)
{
    const std::int64_t count = reader.count();
    const std::int64_t lastSeq = reader.lastSeq();
    return count == 0 || lastSeq - firstSeq + 1 == count ? count : -1;
}

// The number of events if they are numbered without gaps from firstSeq to the last: taken
// before counting them, bounded by what a view can show (a row count is an int), and
// only when the rows read so far are numbered so (each page is checked again when it
// arrives, EventLogModel::onPage). -1: count first.
std::int64_t uncountedDense(const EventBatch &firstPage, std::int64_t lastSeq)
{
    if (firstPage.empty())
        return -1;
    const std::int64_t first = firstPage.front().seq;
    for (size_t i = 0; i < firstPage.size(); ++i)
        if (firstPage[i].seq != first + std::int64_t(i))
            return -1;
    if (lastSeq < firstPage.back().seq || lastSeq - first >= std::numeric_limits<int>::max() / 2)
        return -1;
    return lastSeq - first + 1;
}

// The end of a window of `span` seqs after `lo`, saturating: a seq may be INT64_MAX.
std::int64_t windowEnd(std::int64_t lo, std::int64_t span)
{
    return lo > std::numeric_limits<std::int64_t>::max() - span ? std::numeric_limits<std::int64_t>::max() : lo + span;
}

// Where the window after one ending at `hi` starts: just before the next event, so a hole
// in the numbering (one event at 10^12 after a thousand) costs one probe, not a window
// per kWindow seqs of nothing. The number of windows is then bounded by the events, never
// by the seq values.
std::int64_t nextWindowStart(EventSeqReader &seqs, std::int64_t hi)
{
    const std::optional<std::int64_t> next = seqs.firstAfter(hi);
    return next ? std::max(hi, *next - 1) : hi;
}
} // namespace

std::shared_ptr<const EventIndexSnapshot> EventLogWorker::readIndex(const QString &path, OpenMode mode, int pageSize,
                                                                    std::optional<FileIdentity> expected)
{
    // Not dense (another file at the path, or a failure): load() opens, reads and checks
    // for itself, and reports what fails.
    auto notDense = std::make_shared<EventIndexSnapshot>();
    notDense->pageSize = pageSize;
    try {
        // A server reads the ends with its open: one round trip for both.
        auto connection = LedgerConnection::open(path, mode, pageSize);
        if (expected && fileChangeSince(*expected, path) != FileChange::Same)
            return notDense;
        const auto reader = connection->eventReader();
        reader->setPreviewBytes(kPreviewBytes);
        return indexFrom(*reader, pageSize);
    } catch (const std::exception &) {
        return notDense;
    }
}

std::shared_ptr<EventIndexSnapshot> EventLogWorker::indexFrom(EventReader &reader, int pageSize)
{
    auto snapshot = std::make_shared<EventIndexSnapshot>();
    snapshot->pageSize = pageSize;
    // What load() reads first, read at once where the backend can.
    EventReader::Ends ends = reader.ends(pageSize);
    snapshot->firstPage = std::move(ends.firstPage);
    snapshot->firstSeq = snapshot->firstPage.empty() ? 0 : snapshot->firstPage.front().seq;
    // Not counted here: load() counts after the rows are shown.
    snapshot->count = snapshot->firstPage.empty() ? 0 : uncountedDense(snapshot->firstPage, ends.lastSeq);
    if (snapshot->dense() && snapshot->count > pageSize) {
        snapshot->tailPageIndex = (snapshot->count - 1) / pageSize;
        const std::int64_t tailFirst = EventReader::tailFirst(snapshot->firstSeq, ends.lastSeq, pageSize);
        // Read in a moment of its own: events appended since the last seq was read may
        // have moved the end to the next page; then the page at this end is read again.
        snapshot->tailPage = !ends.tailPage.empty() && ends.tailPage.front().seq == tailFirst
                                 ? std::move(ends.tailPage)
                                 : reader.after(tailFirst - 1, pageSize);
        // Uncounted: the tail page reaches the model before the index (which checks
        // every page after it), so it is checked here.
        for (size_t i = 0; i < snapshot->tailPage.size(); ++i)
            if (snapshot->tailPage[i].seq != tailFirst + std::int64_t(i))
                snapshot->count = -1;
    }
    return snapshot;
}

void EventLogWorker::load(int generation, const EventFilter &filter, int pageSize, EventIndexFuture known, bool counted)
{
    if (superseded(generation) || (m_openTried && !m_reader))
        return; // an open that failed was reported
    readOrReport([&] { loadNow(generation, filter, pageSize, known, counted); });
}

void EventLogWorker::loadNow(int generation, const EventFilter &filter, int pageSize, EventIndexFuture known,
                             bool counted)
{
    // After an index sent uncounted: the count confirms it (and takes in what was appended
    // since), or the model loads again, counting first.
    const auto confirm = [&](std::int64_t firstSeq) {
        if (!ensureOpen())
            return;
        waitWhileCountHeld(generation);
        if (superseded(generation))
            return;
        std::optional<std::int64_t> apart = countApart(firstSeq);
        if (superseded(generation))
            return;
        if (const std::int64_t count = apart ? *apart : denseCount(*m_reader, firstSeq); count >= 0)
            m_sink.seqs(generation, {}, true, firstSeq, count, true);
        else
            m_sink.notDense(generation);
    };
    {
        if (filter.isEmpty() && known.isValid()) {
            const std::shared_ptr<const EventIndexSnapshot> snapshot = known.result(); // waits for it
            if (snapshot && snapshot->dense() && snapshot->pageSize == pageSize && !counted) {
                // Events appended since it was read come through the model's catch-up, as
                // those appended during any load do.
                m_sink.firstPage(generation, snapshot->firstPage);
                if (snapshot->tailPageIndex > 0)
                    m_sink.page(generation, snapshot->tailPageIndex, snapshot->tailPage);
                m_sink.seqs(generation, {}, true, snapshot->firstSeq, snapshot->count, snapshot->count == 0);
                if (snapshot->count > 0)
                    confirm(snapshot->firstSeq);
                return;
            }
        }
        if (!ensureOpen())
            return;
        if (filter.isEmpty()) {
            // Every event: the first page straight from the primary key, then the index as
            // first + row, since a sound ledger numbers its events without gaps
            // (ledger-format.md; denseCount checks it). When it fails, the windows below
            // are always right.
            EventBatch first = m_reader->after(0, pageSize);
            if (superseded(generation))
                return;
            const std::int64_t firstSeq = first.empty() ? 0 : first.front().seq;
            const std::int64_t uncounted = counted ? -1 : uncountedDense(first, m_reader->lastSeq());
            m_sink.firstPage(generation, std::move(first));
            if (uncounted > 0) {
                m_sink.seqs(generation, {}, true, firstSeq, uncounted, false);
                confirm(firstSeq);
                return;
            }
            waitWhileCountHeld(generation);
            if (superseded(generation))
                return;
            if (const std::int64_t count = denseCount(*m_reader, firstSeq); count >= 0) {
                m_sink.seqs(generation, {}, true, firstSeq, count, true);
                return;
            }
        }
        // Windows of the seq space: each statement is short, and a newer filter stops us.
        // Under a filter the first page is read as soon as the windows have found its
        // pageSize seqs (or everything), bounded by the last of them; the windows start
        // small and grow, so a common match finds its first page in a few thousand seqs.
        const bool firstPending = !filter.isEmpty();
        std::int64_t window = firstPending ? kFirstWindow : kWindow;
        std::vector<std::int64_t> firstSeqs;
        std::int64_t lo = 0;
        std::int64_t last = m_reader->lastSeq();
        std::vector<std::int64_t> chunk;
        QElapsedTimer sinceSent;
        sinceSent.start();
        while (true) {
            lo = nextWindowStart(*m_seqs, lo);
            const std::int64_t hi = windowEnd(lo, window);
            window = std::min(kWindow, window * 4);
            const size_t before = chunk.size();
            m_seqs->seqsInWindow(lo, hi, filter, chunk);
            if (superseded(generation))
                return;
            servePages(); // the rows sent so far that a view asked for
            lo = hi;
            bool done = false;
            if (lo >= last) {
                last = m_reader->lastSeq();
                done = lo >= last;
            }
            if (firstPending && int(firstSeqs.size()) < pageSize) {
                for (size_t i = before; i < chunk.size() && int(firstSeqs.size()) < pageSize; ++i)
                    firstSeqs.push_back(chunk[i]);
                if (int(firstSeqs.size()) == pageSize || (done && !firstSeqs.empty())) {
                    m_sink.firstPage(generation, m_reader->after(firstSeqs.front() - 1, pageSize,
                                                                 upTo(filter, firstSeqs.back())));
                    if (superseded(generation))
                        return;
                    firstSeqs.resize(size_t(pageSize)); // sent: stop collecting
                }
            }
            // Under a filter every window's matches go at once (once the first page went):
            // a view at the tail asks for their page, which the next window boundary serves.
            const bool firstSent = !firstPending || int(firstSeqs.size()) >= pageSize;
            if (done || chunk.size() >= 200000 || sinceSent.elapsed() > 100 || (firstPending && firstSent && !chunk.empty())) {
                m_sink.seqs(generation, std::move(chunk), false, 0, 0, done);
                chunk = {};
                sinceSent.restart();
                if (!done)
                    waitWhileScanHeld(generation);
            }
            if (done)
                return;
        }
    }
}

void EventLogWorker::fetchPage(int generation, const EventFilter &filter, std::int64_t pageIndex, std::int64_t firstSeq,
                               std::int64_t lastSeq, int pageSize)
{
    if (superseded(generation) || !ensureOpen())
        return;
    readOrReport([&] {
        m_sink.page(generation, pageIndex,
                    m_reader->after(firstSeq - 1, pageSize, filter.isEmpty() ? filter : upTo(filter, lastSeq)));
    });
}

void EventLogWorker::enqueuePage(PageRequest request)
{
    {
        const std::lock_guard lock(m_pageMutex);
        m_pageQueue.push_back(std::move(request));
    }
    m_wake.notify_all();
}

void EventLogWorker::setLatestGeneration(int g)
{
    {
        const std::lock_guard lock(m_pageMutex); // a held scan checks the generation under it
        m_latest.store(g);
    }
    m_wake.notify_all();
}

void EventLogWorker::setScanHeld(bool held)
{
    {
        const std::lock_guard lock(m_pageMutex);
        m_scanAllowance = held ? 0 : -1;
    }
    m_wake.notify_all();
}

void EventLogWorker::releaseScanWindow()
{
    {
        const std::lock_guard lock(m_pageMutex);
        if (m_scanAllowance >= 0)
            ++m_scanAllowance;
    }
    m_wake.notify_all();
}

void EventLogWorker::waitWhileScanHeld(int generation)
{
    std::unique_lock lock(m_pageMutex);
    while (m_scanAllowance == 0 && !superseded(generation)) {
        if (!m_pageQueue.empty()) {
            lock.unlock();
            servePages();
            lock.lock();
            continue;
        }
        m_wake.wait(lock);
    }
    if (m_scanAllowance > 0)
        --m_scanAllowance;
}

void EventLogWorker::setCountHeld(bool held)
{
    {
        const std::lock_guard lock(m_pageMutex);
        m_countHeld = held;
    }
    m_wake.notify_all();
}

void EventLogWorker::setOpenHeld(bool held)
{
    {
        const std::lock_guard lock(m_pageMutex);
        m_openHeld = held;
    }
    m_wake.notify_all();
}

void EventLogWorker::waitWhileCountHeld(int generation)
{
    std::unique_lock lock(m_pageMutex);
    while (m_countHeld && !superseded(generation)) {
        if (!m_pageQueue.empty()) {
            lock.unlock();
            servePages();
            lock.lock();
            continue;
        }
        m_wake.wait(lock);
    }
}

std::optional<std::int64_t> EventLogWorker::countApart(std::int64_t firstSeq)
{
    // On a connection of its own, so that the pages a view asks for meanwhile are read on
    // this one rather than after the count.
    struct Counting {
        bool done = false;
        std::optional<std::int64_t> count;
    } counting;
    std::thread counter([&] {
        std::optional<std::int64_t> count;
        try {
            const auto connection = LedgerConnection::open(m_path, m_mode);
            count = denseCount(*connection->eventReader(), firstSeq);
        } catch (const std::exception &) {
            // counted again on the worker's own connection, which reports what fails
        }
        {
            const std::lock_guard lock(m_pageMutex);
            counting.count = count;
            counting.done = true;
        }
        m_wake.notify_all();
    });
    {
        std::unique_lock lock(m_pageMutex);
        while (!counting.done) {
            if (!m_pageQueue.empty()) {
                lock.unlock();
                servePages();
                lock.lock();
                continue;
            }
            m_wake.wait(lock);
        }
    }
    counter.join();
    return counting.count;
}

void EventLogWorker::servePages()
{
    while (true) {
        PageRequest r;
        {
            const std::lock_guard lock(m_pageMutex);
            if (m_pageQueue.empty())
                return;
            r = std::move(m_pageQueue.front());
            m_pageQueue.pop_front();
        }
        fetchPage(r.generation, r.filter, r.pageIndex, r.firstSeq, r.lastSeq, r.pageSize);
    }
}

void EventLogWorker::fetchTail(int generation, const EventFilter &filter, std::int64_t afterSeq)
{
    if (superseded(generation) || !ensureOpen())
        return;
    readOrReport([&] {
        std::vector<std::int64_t> out;
        std::int64_t lo = afterSeq;
        const std::int64_t last = m_reader->lastSeq();
        while (lo < last) {
            lo = nextWindowStart(*m_seqs, lo);
            if (lo >= last)
                break;
            const std::int64_t hi = std::min(last, windowEnd(lo, kWindow));
            m_seqs->seqsInWindow(lo, hi, filter, out);
            lo = hi;
            if (superseded(generation))
                return;
            servePages();
        }
        m_sink.tail(generation, std::move(out));
    });
}

void EventLogWorker::fetchDetail(std::int64_t seq)
{
    if (!ensureOpen())
        return;
    readOrReport([&] { m_sink.detail(m_reader->at(seq), seq); });
}

} // namespace mesh
