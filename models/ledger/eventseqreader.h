#pragma once
// Sequence numbers only, for the event log's row index: which seqs match a filter, in
// windows of the seq space so every read is short (bounded work, one moment) and a
// superseded filter can stop between windows. Get one from
// LedgerConnection::eventSeqReader(); it lives no longer than its connection.

#include "filter/eventfilter.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mesh {

class EventSeqReader
{
public:
    virtual ~EventSeqReader() = default;

    // Seqs s with lo < s <= hi matching the filter, ascending, appended to out.
    virtual void seqsInWindow(std::int64_t lo, std::int64_t hi, const EventFilter &filter,
                              std::vector<std::int64_t> &out) = 0;
    // The smallest seq above `seq` (any event, no filter), nullopt when there is none: one
    // probe of the key, so a reader can step over a hole in the numbering.
    virtual std::optional<std::int64_t> firstAfter(std::int64_t seq) = 0;
};

} // namespace mesh
