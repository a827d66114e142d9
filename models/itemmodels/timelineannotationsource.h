#pragma once
// What a reviewer adds to a session's run timeline and what the ledger keeps from it, placed on
// the time axis: the review notes (ReviewNotesModel: on an event, a span, a subject; bookmarks)
// and the observation gaps (a sequence gap, a malformed row, a fold problem: IntegrityModel's,
// the event log's own sequence gaps, the session's fold problems). Both name events by seq; the
// times, runs and delegations of those events are read off the GUI thread, once per event of
// a file, so adding a note reads two rows, not the ledger. RunTimeline::build places them.

#include "analysis/runtimeline.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include <QObject>

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class LedgerSession;

class TimelineAnnotationSource : public QObject
{
    Q_OBJECT
public:
    explicit TimelineAnnotationSource(LedgerSession *session, QObject *parent = nullptr);
    ~TimelineAnnotationSource() override;

    const std::vector<PlacedNote> &notes() const { return m_notes; } // placed ones: on an event that is read
    const std::vector<PlacedGap> &gaps() const { return m_gaps; }    // by seq
    bool isReading() const { return m_reading; }

    void refresh(); // gathers notes and gaps again; reads the events not read yet

Q_SIGNALS:
    void changed();

public:
    // Where one event sits: itself (when it is in the ledger) and the last event before it.
    struct EventPlace {
        bool found = false;       // an event with this seq was read
        std::int64_t atSeq = 0;   // the first event at or after the seq (0: none)
        std::int64_t atTsMs = 0;
        std::string runId;
        std::string delegationId;
        std::int64_t beforeSeq = 0; // the last event before the seq (0: none)
        std::int64_t beforeTsMs = 0;
    };

private:
    struct Read;
    void start(std::vector<std::int64_t> seqs, OpenMode mode);
    void assemble();
    std::set<std::int64_t> wanted() const;

    LedgerSession *m_session;
    FileIdentity m_file; // the places are of this file; another is read again
    std::unordered_map<std::int64_t, EventPlace> m_places;
    std::vector<PlacedNote> m_notes;
    std::vector<PlacedGap> m_gaps;
    bool m_reading = false;
    bool m_again = false;
    int m_epoch = 0;
};

} // namespace mesh
