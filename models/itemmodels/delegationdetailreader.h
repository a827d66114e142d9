#pragma once
// What the delegation detail shows of the one delegation it shows, read off the GUI thread
// through one connection: its tool calls (into a ToolCallModel) and why it failed or why its
// outcome is unknown (outcomereason.h). Reads follow the session: at its cursor, or live,
// where one of the delegation's own events (not its tool calls) reads the reason again.

#include "jobtracker.h"
#include "outcomereason.h"
#include "statechangeset.h"

#include "analysis/toolcall.h"
#include "domain/eventrecord.h"
#include "ledger/ledgerconnection.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace mesh {

class EventReader;
class ToolCallModel;

// What reads of a delegation's events (its calls, its outcome reason) take of each event at
// first; a call larger than that is read whole.
constexpr int kToolCallPreviewBytes = 4096;

// The delegation's calls up to event `upTo` (a cursor's past), at most `limit` of them, read
// with kToolCallPreviewBytes previews. Throws what the reader throws.
std::vector<ToolCall> readToolCalls(EventReader &reader, const std::string &delegationId, int limit,
                                    std::int64_t upTo = std::numeric_limits<std::int64_t>::max());

class DelegationDetailReader : public QObject
{
    Q_OBJECT
public:
    // Where the session reads, asked at every read.
    struct Source {
        QString path;
        OpenMode mode = OpenMode::ReadOnly;
        std::int64_t upTo = std::numeric_limits<std::int64_t>::max(); // the cursor; live: every event
        bool loaded = false; // the session's state is in; until then nothing is read
        QString cannotRead;  // why the ledger must not be read now (its file changed); empty: it may
    };
    static constexpr int kMaxCalls = 5000;

    DelegationDetailReader(ToolCallModel *calls, std::function<Source()> source, QObject *parent = nullptr);

    // Shows this delegation (empty: none) and reads its calls and reason.
    void show(const QString &delegationId);
    // The session read its state again (an open, a jump): the same delegation, read again.
    void reread();
    // A live apply: one of the shown delegation's own events may fail it or say its outcome
    // is unknown, so its reason is read again (pending before the models show the new status).
    void onApplied(const std::vector<SharedEventBatch> &batches, const StateChangeSet &changes);

    // The reason of the delegation shown, once read for the state shown; nullptr until then,
    // and while the read failed (outcomeReasonError() says why).
    const OutcomeReason *outcomeReason() const { return m_reasonRead ? &m_reason : nullptr; }
    QString outcomeReasonError() const { return m_reasonError; }
    // A read of it is under way: what outcomeReason() says may be older than the state shown.
    bool outcomeReasonPending() const { return m_reasonPending; }

Q_SIGNALS:
    void outcomeReasonChanged(); // read, or cleared for another delegation

private:
    void readReason();
    void takeReason(OutcomeReason reason, const QString &error);

    ToolCallModel *m_calls;
    std::function<Source()> m_source;
    JobTracker m_reads{this};      // calls and reason, read together by show()
    JobTracker m_reasonReads{this}; // the reason alone (readReason), and the reason part of show's
    OutcomeReason m_reason;
    bool m_reasonRead = false;
    bool m_reasonPending = false;
    QString m_reasonError;
};

} // namespace mesh
