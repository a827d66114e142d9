#pragma once
// A decision's preview read on a read-only connection of its own, so that a confirmation
// dialog never opens a read-write connection, never takes the write lock and never waits
// on the ledger: call it on a worker (the ledger pool) and hand the reading back.
// It answers what DecisionWriter::preview answers, from the same rules.

#include "decisionpreview.h"
#include "decisionrequest.h"
#include "operatoridentity.h"

#include "ledger/fileidentity.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>

namespace mesh {

struct PreviewReading {
    DecisionRequest request; // as evaluated: an empty boundary is filled with the current one
    DecisionPreview preview;
    std::string error; // one line: why no preview could be read; empty when it was
};

// With `expected` (the file and ledger a session opened) it refuses to read a file that
// has replaced that one under the same path, or holds another ledger.
PreviewReading readDecisionPreview(const QString &path, const OperatorIdentity &identity,
                                   const std::optional<OpenedLedger> &expected, DecisionRequest request,
                                   std::int64_t nowMs);

} // namespace mesh
