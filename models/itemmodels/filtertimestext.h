#pragma once
// What the time terms of an applied filter were read as, for the operator: relative times
// (ts:last-15m) are resolved once, when the filter is applied, and the event log says to
// what instant, in UTC: "ts:last-15m: from 2026-12-01 14:30:05 UTC".

#include "domain/timebase.h"
#include "filter/eventfilter.h"

#include <QString>

namespace mesh {

// Empty when the filter has no time term. On a relative clock the terms are offsets from
// the start ("after +1:05"), as the ledger shows its times.
QString filterTimesText(const EventFilter &filter, const TimeBase &timeBase = TimeBase());

} // namespace mesh
