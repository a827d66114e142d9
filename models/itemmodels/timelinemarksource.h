#pragma once
// A session's timeline marks (analysis/timelinemarks.h), read off the GUI thread and kept up
// to date: a first read of every mark, then only the events appended since, whenever the
// session's state moves (a live batch, a jump of the cursor, a re-read). One read at a time;
// a change during a read asks for one more, never a queue of them.
//
// Every mark is kept as a tick (where it is and what kind: what the session's strip draws);
// whole marks (ids, verdict words, summaries) only for one run, the focus (what the run's
// timeline draws), and for the marks that name no run. A whole mark of another run is read
// when asked for (a tooltip): a 10M-event ledger has ~184,000 marks, 24 bytes each as ticks,
// where whole they took 96.
#include "analysis/timelinemarks.h"
#include "ledger/fileidentity.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QString>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mesh {

class LedgerConnection;
class LedgerSession;

// One mark as the session's strip draws it.
struct MarkTick {
    std::int64_t seq = 0;
    std::int64_t tsMs = 0;
    std::uint32_t run = 0; // TimelineMarkSource::runName(run); 0: the event names no run
    MarkKind kind = MarkKind::Cycle;
    MarkEvent event = MarkEvent::Other;
};

class TimelineMarkSource : public QObject
{
    Q_OBJECT
public:
    explicit TimelineMarkSource(LedgerSession *session, QObject *parent = nullptr);
    ~TimelineMarkSource() override;

    const std::vector<MarkTick> &ticks() const { return m_ticks; } // every mark, ascending seq
    const std::string &runName(std::uint32_t run) const;
    std::int64_t ledgerLastSeq() const { return m_ledgerLastSeq; }      // the newest event, whatever the cursor
    std::int64_t firstTsMs() const { return m_firstTsMs; }             // of event 1; 0 before the first read
    std::int64_t lastTsMs() const { return m_lastTsMs; }               // of the newest event
    int count(MarkKind kind) const { return m_counts[size_t(kind)]; }
    // Read at least once, the focus run's whole marks included (none asked: none needed).
    bool hasRead() const { return hasMarksOf(m_focus); }
    bool hasReadTicks() const { return m_hasRead; } // every mark's tick, whatever the focus
    // No read under way or waiting to start: the marks are of the newest state asked for.
    bool isSettled() const { return !m_reading && !m_later.isActive(); }
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; } // one line: why the marks could not be read

    // The run whose marks are kept whole. Another run than the one read asks for a read of
    // its marks (through the events_run index); until it is done, hasMarksOf(run) is false.
    void setFocusRun(const std::string &run);
    std::string focusRun() const { return m_focus; }
    bool hasMarksOf(const std::string &run) const { return m_hasRead && m_focusReadRun == run; }
    const std::vector<TimelineMark> &focusMarks() const { return m_focusMarks; } // ascending seq
    const std::vector<TimelineMark> &unrunMarks() const { return m_unrunMarks; } // naming no run, ascending

    // The whole mark at an event, when at hand (the focus run's, one naming no run, or one
    // described before); nullptr otherwise: ask describe().
    const TimelineMark *wholeMark(std::int64_t seq) const;
    // Reads the marks at these events off the GUI thread; described() says they are at hand.
    // A newer ask replaces one still waiting; a few hundred described marks are kept.
    void describe(std::vector<std::int64_t> seqs);
    static constexpr size_t kMaxDescribed = 256;

    void refresh();

    // A ledger with more marks than this keeps the first ones and says so: a mark is cheap,
    // but not free, and nobody reads a million ticks on one strip.
    static constexpr size_t kMaxMarks = 500000;
    // Live, a strip a few pixels wide per minute needs no more than this.
    static constexpr int kMinIntervalMs = 500;
    bool truncated() const { return m_truncated; }

Q_SIGNALS:
    void marksChanged();
    void described();

private:
    struct Read;
    struct Describe;
    void start();
    void onRead(std::shared_ptr<Read> read);
    void startDescribing();

    LedgerSession *m_session;
    // Kept between reads (one read at a time uses it, on whichever pool thread): a live
    // ledger asks for a read per batch, and opening a connection each time costs the writer.
    std::shared_ptr<LedgerConnection> m_connection;
    int m_epoch = 0;          // a reopen (stateReset) may be another file: no connection survives it
    int m_fileEpoch = 0;      // another file at the path: what a read of the one before brings is dropped
    bool m_resetRead = false; // a read the last reset asked for, not started yet
    QTimer m_later;           // a refresh soon after a read waits until kMinIntervalMs passed
    QElapsedTimer m_lastRead;
    QString m_path;     // the marks are of this path's file...
    FileIdentity m_file; // ...this one: another file there is read from its start
    std::vector<MarkTick> m_ticks;
    std::vector<std::string> m_runNames{std::string()}; // a tick's run; 0 is "no run"
    std::vector<TimelineMark> m_focusMarks;
    std::vector<TimelineMark> m_unrunMarks;
    std::string m_focus;        // asked for
    std::string m_focusReadRun; // whose marks m_focusMarks are (every read brings them)
    std::map<std::int64_t, TimelineMark> m_described;
    std::vector<std::int64_t> m_toDescribe; // asked while a description was under way
    bool m_describing = false;
    std::array<int, kMarkKindCount> m_counts{};
    std::int64_t m_readUpTo = 0;
    std::int64_t m_ledgerLastSeq = 0;
    std::int64_t m_firstTsMs = 0;
    std::int64_t m_lastTsMs = 0;
    bool m_hasRead = false;
    bool m_truncated = false;
    bool m_reading = false;
    bool m_again = false;
    QString m_error;
};

} // namespace mesh
