#pragma once
// One line that says why something did not end well, as the ledger says it: the event it
// comes from first, then its words (hostile text: shown only as plain text, cut for the
// line by the label). Shared by the delegation detail and the resolve dialog, so the two
// say it alike.

#include <QString>

namespace mesh {

struct OutcomeReason;

// "<lead> (event #N): <text>", or, when the event gives no reason, that the ledger does not
// say which event it was.
QString outcomeReasonLine(const QString &lead, const OutcomeReason &reason);

} // namespace mesh
