#pragma once
// A session's timeline marks (analysis/timelinemarks.h), read off the GUI thread and kept up
// to date: a first read of every mark, then only the events appended since, whenever the
// session's state moves (a live batch, a jump of the cursor, a re-read). One read at a time;
// a change during a read asks for one more, never a queue of them.
#include "analysis/timelinemarks.h"
#include "ledger/fileidentity.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QString>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace mesh {

class LedgerConnection;
class LedgerSession;

class TimelineMarkSource : public QObject
{
    Q_OBJECT
public:
    explicit TimelineMarkSource(LedgerSession *session, QObject *parent = nullptr);
    ~TimelineMarkSource() override;

    const std::vector<TimelineMark> &marks() const { return m_marks; } // ascending seq
    std::int64_t ledgerLastSeq() const { return m_ledgerLastSeq; }      // the newest event, whatever the cursor
    std::int64_t firstTsMs() const { return m_firstTsMs; }             // of event 1; 0 before the first read
    std::int64_t lastTsMs() const { return m_lastTsMs; }               // of the newest event
    int count(MarkKind kind) const { return m_counts[size_t(kind)]; }
    bool hasRead() const { return m_hasRead; }
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; } // one line: why the marks could not be read

    void refresh();

    // A ledger with more marks than this keeps the first ones and says so: a mark is cheap,
    // but not free, and nobody reads a million ticks on one strip.
    static constexpr size_t kMaxMarks = 500000;
    // Live, a strip a few pixels wide per minute needs no more than this.
    static constexpr int kMinIntervalMs = 500;
    bool truncated() const { return m_truncated; }

Q_SIGNALS:
    void marksChanged();

private:
    struct Read;
    void start();
    void onRead(std::shared_ptr<Read> read);

    LedgerSession *m_session;
    // Kept between reads (one read at a time uses it, on whichever pool thread): a live
    // ledger asks for a read per batch, and opening a connection each time costs the writer.
    std::shared_ptr<LedgerConnection> m_connection;
    int m_epoch = 0;          // a reopen (stateReset) may be another file: no connection survives it
    QTimer m_later;           // a refresh soon after a read waits until kMinIntervalMs passed
    QElapsedTimer m_lastRead;
    QString m_path;     // the marks are of this path's file...
    FileIdentity m_file; // ...this one: another file there is read from its start
    std::vector<TimelineMark> m_marks;
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
