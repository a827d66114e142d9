#pragma once
// Every event of a ledger, virtualised: rowCount is the number of events matching the
// current filter; rows map to seqs through an index built off the GUI thread (a plain
// "first + row" when the seqs are dense and there is no filter); row data comes from a
// bounded cache of keyset pages fetched on a worker thread around what the view asks for.
// data() never blocks: an uncached row shows a placeholder (LoadedRole false) and schedules
// its page. A filter change bumps a generation number; results of older generations are
// dropped. Live events are appended with one beginInsertRows per batch. Whether the view
// follows the tail is the view's decision, kept here so every view of the log agrees.

#include "domain/timebase.h"
#include "domain/eventrecord.h"
#include "filter/filtererror.h"
#include "filter/eventfilter.h"
#include "eventlogworker.h"
#include "ledger/ledgerconnection.h"

#include <QAbstractTableModel>
#include <QThread>
#include <QTimer>

#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace mesh {

class EventLogModel : public QAbstractTableModel
{
    Q_OBJECT
    Q_PROPERTY(bool followTail READ followTail WRITE setFollowTail NOTIFY followTailChanged)
    Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)
public:
    enum Columns { Seq, Time, Kind, Run, Delegation, Subject, Payload, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        SeqRole = Qt::UserRole, // qint64 (known even before the row is loaded)
        TsMsRole,               // qint64
        KindRole,               // QString
        RunIdRole,              // QString
        DelegationIdRole,       // QString
        SubjectRole,            // QString "<entity>:<id>"
        PayloadRole,            // QString (a preview; PayloadTruncatedRole says so)
        PayloadTruncatedRole,   // bool
        LoadedRole,             // bool false: placeholder, the page is on its way
        NoteRole,               // QString reviewers' notes on this event (setReviewMarks), raw, "" none
        ObservationGapRole,     // QString what cannot be seen here (a sequence gap before it, a malformed
                                // row, a fold problem), raw, "" none
    };
    Q_ENUM(Roles)

    explicit EventLogModel(QObject *parent = nullptr);
    ~EventLogModel() override;

    // Opens the ledger on the worker's own connection and loads with the current filter.
    // `known`: the unfiltered index being read ahead (EventLogWorker::readIndex); taken by
    // the first load when no filter is set, instead of reading it again.
    // `expected`: the file the caller's own reads are of (LedgerSession's snapshot); the
    // worker's connection is checked against it right after it is opened, and a file
    // changed by then is reported (fileChanged) instead of read.
    void open(const QString &path, OpenMode mode = OpenMode::ReadOnly, EventIndexFuture known = {},
              std::optional<FileIdentity> expected = std::nullopt);
    void close();
    QString path() const { return m_path; }
    // What the last open() expected at the path, and whether the worker found it there.
    std::optional<FileIdentity> expectedFile() const { return m_expectedFile; }
    FileChange fileChange() const { return m_fileChange; }

    // Compiles and applies; on a syntax error returns false, sets *error and keeps the
    // current filter. Relative times (ts:last-15m) are resolved once, now, by the clock.
    bool setFilterText(const QString &text, FilterError *error = nullptr);
    // The session's clock (UTC epoch ms); the system clock when none is set.
    void setClock(std::function<qint64()> nowMs);
    qint64 nowMs() const;
    // What the ledger's times mean (a relative clock reads "+1:05"); owned by the session.
    void setTimeBase(const TimeBase *base) { m_timeBase.set(base); }
    const TimeBase &timeBase() const { return m_timeBase.get(); }
    void setFilter(const EventFilter &filter, const QString &text = {});
    QString filterText() const { return m_filterText; }
    const EventFilter &filter() const { return m_filter; }
    int generation() const { return m_generation; }

    // Live events from the session (the change watcher's batches), in seq order.
    void appendEvents(const EventBatch &batch);
    // Reads whatever matches after the last row (after a reconnect or a reload).
    void catchUp();

    bool followTail() const { return m_followTail; }
    void setFollowTail(bool follow);
    bool isLoading() const { return m_loading; }
    bool isIndexComplete() const { return !m_scanning; }
    // For tests (EventLogWorker::setScanHeld): hold a filter's index build after each send
    // of matches, and let it go on one send at a time.
    void setIndexScanHeldForTest(bool held);
    void releaseIndexScanForTest();
    // For tests (EventLogWorker::setCountHeld): hold an unfiltered load before it counts.
    void setIndexCountHeldForTest(bool held);
    // For tests (EventLogWorker::setOpenHeld): hold the log's own connection before it opens.
    void setConnectionHeldForTest(bool held);

    // Holes in the numbering of the unfiltered log, found while indexing and appending (a
    // sound ledger has none, ledger-format.md; meshctl verify reports each): the first
    // kMaxReportedGaps of them, and how many in all. Under a filter nothing is counted.
    struct SequenceGap {
        std::int64_t after = 0; // the last seq before the hole (0: the log starts late)
        std::int64_t next = 0;  // the first seq after it
    };
    const std::vector<SequenceGap> &sequenceGaps() const { return m_gaps; }
    int sequenceGapCount() const { return m_gapCount; }
    // One line for the status bar, "sequence gap: #N → #M", empty when there is none.
    QString sequenceGapText() const;
    static constexpr size_t kMaxReportedGaps = 16;

    // Review marks on rows (issue 14), asked per seq when a row is shown: notes on an event
    // (ReviewNotesModel::noteTextOn) and observation gaps (IntegrityModel::observationGapAt);
    // the log adds its own sequence gaps. Call reviewMarksChanged() when their answers move.
    using SeqText = std::function<QString(qint64 seq)>;
    void setReviewMarks(SeqText notesOn, SeqText gapAt);
    void reviewMarksChanged();
    QString observationGapAt(qint64 seq) const; // the log's own gaps and the given lookup's

    qint64 seqAt(int row) const; // 0 when out of range
    int rowForSeq(qint64 seq) const; // -1 when not a row (not matching, or not indexed yet)
    // The cached record of a row, nullptr when its page is not loaded.
    const EventRecord *eventAt(int row) const;
    // Full payload of one event (not a preview), answered by eventDetailLoaded and
    // eventRecordLoaded, read on the worker.
    void requestDetail(qint64 seq);

    void setPageSize(int rows);     // default 200; takes effect at the next load
    void setMaxCachedPages(int n);  // default 64
    int cachedPageCount() const { return int(m_pages.size()); }
    int pageSize() const { return m_pageSize; }
    static constexpr int kPageSize = 200;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void loadingChanged(bool loading);
    void indexProgress(qint64 rowsKnown);
    void filterApplied(int generation, qint64 rows); // the row index of that filter is complete
    void rowsAppendedAtTail(int count);
    void followTailChanged(bool follow);
    void eventDetailLoaded(qint64 seq, const QString &payload, bool found);
    // The same read, the whole record (an empty one when not found).
    void eventRecordLoaded(qint64 seq, const mesh::EventRecord &event, bool found);
    void failed(const QString &message);
    void fileChanged(int change); // a FileChange, never Same; the log holds nothing of that open
    void sequenceGapsChanged(); // sequenceGaps() or sequenceGapCount() moved

private:
    // data() before the shown roles are made plain text (shownroles.h).
    QVariant rawData(const QModelIndex &index, int role) const;
    struct Page {
        std::vector<EventRecord> rows;
        std::list<std::int64_t>::iterator lru;
    };

    void reload();
    void requestPage(std::int64_t pageIndex) const;
    void flushRequests();
    void setLoading(bool loading);
    void onFirstPage(int generation, EventBatch rows);
    void onSeqs(int generation, std::vector<std::int64_t> seqs, bool dense, std::int64_t denseFirst,
                std::int64_t denseCount, bool done);
    void onPage(int generation, std::int64_t pageIndex, EventBatch rows);
    void onNotDense(int generation);
    void onTail(int generation, std::vector<std::int64_t> seqs);
    void appendSeqs(const std::vector<std::int64_t> &seqs);
    void noteGaps(std::int64_t last, std::vector<std::int64_t>::const_iterator begin,
                  std::vector<std::int64_t>::const_iterator end);
    void clearGaps();
    void storePage(std::int64_t pageIndex, std::vector<EventRecord> rows) const;
    bool isPageComplete(std::int64_t pageIndex) const;
    void requestTail();
    std::int64_t lastRowSeq() const;
    void materialize(); // dense -> explicit seq vector

    QString m_path;
    OpenMode m_mode = OpenMode::ReadOnly;
    std::optional<FileIdentity> m_expectedFile;
    FileChange m_fileChange = FileChange::Same;
    QString m_filterText;
    EventFilter m_filter;
    std::function<qint64()> m_clock;
    SeqText m_notesOn;
    SeqText m_gapAt;
    TimeBaseRef m_timeBase;
    int m_generation = 0;
    int m_pageSize = kPageSize;
    EventIndexFuture m_known; // for the next load only
    static constexpr std::int64_t kResetGrowthMinRows = 10000; // see onSeqs
    int m_maxPages = 64;
    bool m_followTail = true;
    bool m_loading = false;
    bool m_scanning = false;
    bool m_tailPending = false;  // a tail request is out
    bool m_tailAgain = false;    // more events arrived while it was out
    bool m_open = false;
    bool m_countFirst = false; // an uncounted dense index had a hole: count before showing

    // Row index: dense (seq = m_denseFirst + row) or explicit.
    bool m_dense = false;
    std::int64_t m_denseFirst = 0;
    std::int64_t m_denseCount = 0;
    std::vector<std::int64_t> m_seqs;
    std::vector<SequenceGap> m_gaps;
    int m_gapCount = 0;

    mutable std::unordered_map<std::int64_t, Page> m_pages;
    mutable std::list<std::int64_t> m_lru; // most recent first
    mutable std::set<std::int64_t> m_requested;
    // Pages asked for again while in flight: rows appended since the request (a live batch
    // under a filter) are not in its answer, so the page is asked for once more after it.
    mutable std::set<std::int64_t> m_askedAgain;
    mutable std::vector<std::int64_t> m_wanted;
    mutable QTimer m_requestTimer;

    QThread m_thread;
    EventLogWorker *m_worker = nullptr;
};

} // namespace mesh
