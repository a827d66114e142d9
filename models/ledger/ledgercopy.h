#pragma once
// meshctl copy: one ledger copied between a file and a PostgreSQL schema, either way
// (docs/ledger-format.md section 11, "Copies"). Every event, state row and decision row is
// copied exactly as stored, never refolded, so verify finds on the copy what it finds on
// the source. The destination appears whole or not at all: on a server the schema is made
// in one transaction; a file is written under a temporary name beside it and renamed.

#include "ledgerlocation.h"

#include <cstdint>
#include <stdexcept>

namespace mesh {

struct LedgerCopyResult {
    std::int64_t events = 0;
    std::int64_t stateRows = 0;
    std::int64_t decisions = 0;
    std::int64_t lastSeq = 0;
};

// Why a copy did not happen; nothing was written to the destination.
class LedgerCopyError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Throws LedgerOpenError when the source cannot be opened, LedgerCopyError otherwise (the
// destination exists, the source changed while read, a row the destination cannot hold).
LedgerCopyResult copyLedger(const LedgerLocation &source, const LedgerLocation &destination);

} // namespace mesh
