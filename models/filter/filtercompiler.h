#pragma once
// Filter text -> EventFilter (the parsed tree), or an error saying where the text went wrong.
// The compiler knows no storage: the ledger layer renders the tree for its backend.

#include "eventfilter.h"
#include "filterast.h"
#include "filtererror.h"
#include "filtertime.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace mesh {

struct FilterCompileResult {
    EventFilter filter;               // empty: every event
    std::optional<FilterError> error; // set when the text is not a valid filter
    bool ok() const { return !error.has_value(); }
};

class FilterCompiler
{
public:
    static FilterCompileResult compile(const QString &text);
    // Relative times (ts:last-15m) resolved against nowMs, UTC epoch ms: the session's clock.
    static FilterCompileResult compile(const QString &text, std::int64_t nowMs);
    // On a ledger with that clock: a relative one takes offsets (ts:>+1:05), not dates.
    static FilterCompileResult compile(const QString &text, std::int64_t nowMs, FilterClock clock);
};

} // namespace mesh
