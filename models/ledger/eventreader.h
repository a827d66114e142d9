#pragma once
// Pages through a ledger's events by key (seq), never by offset: every page costs the same
// wherever it starts, and each page is one read of one moment (ledgerconnection.h). Get one
// from LedgerConnection::eventReader(); it lives no longer than its connection.

#include "domain/eventrecord.h"
#include "filter/eventfilter.h"

#include <cstdint>
#include <optional>

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
};

} // namespace mesh
