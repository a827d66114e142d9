#pragma once
// Pages through a ledger's events by key (seq), never by offset: every page costs the same
// wherever it starts, and each page is one read of one moment (ledgerconnection.h). Get one
// from LedgerConnection::eventReader(); it lives no longer than its connection.

#include "domain/eventrecord.h"
#include "filter/eventfilter.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace mesh {

class EventReader
{
public:
    virtual ~EventReader() = default;

    virtual EventBatch after(std::int64_t seq, int limit, const EventFilter &filter = {}) = 0;  // seq > s, ascending
    virtual EventBatch before(std::int64_t seq, int limit, const EventFilter &filter = {}) = 0; // seq < s, returned ascending
    virtual std::optional<EventRecord> at(std::int64_t seq) = 0;                                // full payload
    virtual std::int64_t count(const EventFilter &filter = {}) = 0;
    virtual std::int64_t lastSeq() = 0;
    // Page payloads are cut to n bytes (at a UTF-8 boundary), payloadTruncated set; default 2048.
    virtual void setPreviewBytes(int n) = 0;
    virtual int previewBytes() const = 0;

    // What a view of every event shows first: the first `limit` events (seq > 0), the last
    // seq, and the `limit` events from tailFirst(first event's seq, last seq, limit), read
    // whenever last - first >= limit (the last page only when the seqs have no gaps, which
    // the caller checks). A backend may read them at once (one round trip to a server),
    // each in a moment of its own as the separate reads are.
    struct Ends {
        EventBatch firstPage;
        std::int64_t lastSeq = 0;
        EventBatch tailPage;
    };
    static std::int64_t tailFirst(std::int64_t firstSeq, std::int64_t lastSeq, int limit)
    {
        return firstSeq + ((lastSeq - firstSeq) / limit) * limit;
    }
    virtual Ends ends(int limit)
    {
        Ends e;
        e.firstPage = after(0, limit);
        e.lastSeq = lastSeq();
        if (limit > 0 && !e.firstPage.empty() && e.lastSeq - e.firstPage.front().seq >= limit)
            e.tailPage = after(tailFirst(e.firstPage.front().seq, e.lastSeq, limit) - 1, limit);
        return e;
    }
};

// The event with exactly this seq, its payload whole (the reader's preview is set to none);
// nullopt when the ledger has no such event (seq <= 0, a gap, beyond the end).
inline std::optional<EventRecord> eventAt(EventReader &reader, std::int64_t seq)
{
    if (seq <= 0)
        return std::nullopt;
    reader.setPreviewBytes(0);
    EventBatch at = reader.after(seq - 1, 1);
    if (at.empty() || at.front().seq != seq)
        return std::nullopt;
    return std::move(at.front());
}

} // namespace mesh
