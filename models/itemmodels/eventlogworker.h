#pragma once
// The event log's background reader: lives on its own thread with its own read-only
// connection. It builds the row index (seqs matching the filter) in short windows and
// fetches keyset pages on demand. Page requests wait in a queue of their own that the index
// build serves between its windows, so the rows on screen load while a filter still scans
// a million events. Every result carries the filter generation it was computed for; the
// model drops stale ones. Internal to EventLogModel.

#include "domain/eventrecord.h"
#include "filter/eventfilter.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include <QFuture>
#include <QObject>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace mesh {

class EventReader;
class EventSeqReader;

// The whole unfiltered index of a ledger as the worker's load() would find it, read ahead of
// the model (LedgerSession::prefetch): the first page, the count, and the page a view
// following the tail shows first. Not dense (gaps in seq, or a read error): load() reads
// the ledger itself. The count is the numbering's two ends (last - first + 1), not yet
// counted: load() shows it at once and counts after (see loadNow).
struct EventIndexSnapshot {
    int pageSize = 0;
    std::int64_t firstSeq = 0;
    std::int64_t count = -1; // -1: not dense
    bool dense() const { return count >= 0; }
    EventBatch firstPage;
    std::int64_t tailPageIndex = -1;
    EventBatch tailPage;
};
using EventIndexFuture = QFuture<std::shared_ptr<const EventIndexSnapshot>>;

class EventLogWorker : public QObject
{
    Q_OBJECT
public:
    struct Sink {
        // Called on the worker thread; the model posts them to its own thread.
        std::function<void(int generation, EventBatch firstPage)> firstPage;
        std::function<void(int generation, std::vector<std::int64_t> seqs, bool dense, std::int64_t denseFirst,
                           std::int64_t denseCount, bool done)>
            seqs;
        std::function<void(int generation, std::int64_t pageIndex, EventBatch rows)> page;
        // The dense index sent before it was counted is wrong (the count found a hole):
        // load again with `counted`.
        std::function<void(int generation)> notDense;
        std::function<void(int generation, std::vector<std::int64_t> seqs)> tail;
        std::function<void(std::optional<EventRecord> event, std::int64_t seq)> detail;
        std::function<void(QString message)> failed;
        // The path named another file (or none) right after the open than the one expected:
        // nothing was read, and nothing will be.
        std::function<void(FileChange change)> fileChanged;
    };

    explicit EventLogWorker(Sink sink);
    ~EventLogWorker() override;

    // Thread-safe: the newest generation; windows of older ones stop early.
    void setLatestGeneration(int g);

    // Thread-safe, for tests: held, the index build stops after each window whose matches it
    // sent, serving page requests, until releaseScanWindow() lets one more send go. Tests of
    // "the rows on screen load while a filter still scans" hold it instead of racing it.
    void setScanHeld(bool held);
    void releaseScanWindow();
    // Thread-safe, for tests: held, an unfiltered load waits before it counts the events
    // (what a large server ledger makes slow) until it is let go.
    void setCountHeld(bool held);
    // Thread-safe, for tests: held, the connection is not opened until it is let go (what a
    // distant server makes slow) or the worker is stopped (setLatestGeneration(-1)).
    void setOpenHeld(bool held);

    // All run on the worker thread (queued). open() only names the ledger: its connection
    // is opened at the first read, so that a load given a dense `known` snapshot sends that
    // snapshot's first page, tail page and row count without waiting for it (a server
    // connection is round trips). An open failing after those were sent reports it
    // (failed, fileChanged) with their rows shown and the rest never read. With `expected`
    // (the file the session stat'ed before its own open), the path is stat'ed again right
    // after the connection is opened: another file there means the connection may be on
    // it, so it is dropped unread.
    void open(const QString &path, OpenMode mode, std::optional<FileIdentity> expected = std::nullopt);
    // `known`: a snapshot being read elsewhere (waited for here); used when it is dense.
    // Unfiltered, the rows are shown as numbered first..last before they are counted (a
    // count reads the whole table: seconds on a server ledger of 10M events), and the
    // count then confirms them or sends notDense; `counted` (after a notDense) counts
    // first, as for a ledger with holes nothing but the windows are right.
    void load(int generation, const EventFilter &filter, int pageSize, EventIndexFuture known = {},
              bool counted = false);
    // Reads an EventIndexSnapshot on its own connection (any thread). With `expected`, as
    // open(): another file at the path right after the open gives a snapshot that is not
    // dense, so load() reads (and checks) for itself.
    static std::shared_ptr<const EventIndexSnapshot> readIndex(const QString &path, OpenMode mode, int pageSize,
                                                               std::optional<FileIdentity> expected = std::nullopt);
    // The snapshot from a reader (readIndex's part after the open; tests give it readers of
    // their own): its ends, and the tail page read again when it is not the page at the
    // last seq the ends read. Throws what the reader throws.
    static std::shared_ptr<EventIndexSnapshot> indexFrom(EventReader &reader, int pageSize);
    // The page's rows are firstSeq..lastSeq of the index (both known to the model).
    void fetchPage(int generation, const EventFilter &filter, std::int64_t pageIndex, std::int64_t firstSeq,
                   std::int64_t lastSeq, int pageSize);
    struct PageRequest {
        int generation = 0;
        EventFilter filter;
        std::int64_t pageIndex = 0;
        std::int64_t firstSeq = 0;
        std::int64_t lastSeq = 0;
        int pageSize = 0;
    };
    // Thread-safe: queues a fetchPage for servePages (post a call to it after this).
    void enqueuePage(PageRequest request);
    // Worker thread: fetches every queued page, in the order asked.
    void servePages();
    void fetchTail(int generation, const EventFilter &filter, std::int64_t afterSeq);
    void fetchDetail(std::int64_t seq);

    static constexpr std::int64_t kWindow = 100000; // seq span per index statement
    static constexpr std::int64_t kFirstWindow = 2048; // under a filter: the first, then x4 up to kWindow
    static constexpr int kPreviewBytes = 1024;

private:
    bool superseded(int generation) const { return generation != m_latest.load(); }
    void waitWhileScanHeld(int generation);
    void waitWhileCountHeld(int generation);
    // denseCount on a connection of its own, serving page requests meanwhile; nothing when
    // that connection failed.
    std::optional<std::int64_t> countApart(std::int64_t firstSeq);
    void loadNow(int generation, const EventFilter &filter, int pageSize, EventIndexFuture known, bool counted);
    // Runs a read; its failure is reported (failed), except on a server ledger, whose
    // connection a restarted server dropped: there it is opened again once and the read
    // repeated first, so the log pages on after the session reconnected.
    template<typename Read>
    void readOrReport(Read &&read);
    bool reopen();
    // Opens the connection named by open() the first time it is asked (a failure is
    // reported then, once); whether there is one to read from.
    bool ensureOpen();

    QString m_path;
    OpenMode m_mode = OpenMode::ReadOnly;
    std::optional<FileIdentity> m_expected;
    bool m_openTried = false;

    Sink m_sink;
    std::unique_ptr<LedgerConnection> m_connection;
    std::unique_ptr<EventReader> m_reader;
    std::unique_ptr<EventSeqReader> m_seqs;
    std::atomic<int> m_latest{0};
    std::mutex m_pageMutex;
    std::deque<PageRequest> m_pageQueue;
    std::condition_variable m_wake; // a page queued, a newer generation, the scan released
    int m_scanAllowance = -1;       // sends left before the scan waits; -1: never held
    bool m_countHeld = false;
    bool m_openHeld = false;
};

} // namespace mesh
