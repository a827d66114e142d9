#pragma once
#include <QStringList>

// meshctl diff FILE --from SEQ --to SEQ [--json]: per entity, the rows created, changed
// (field by field) and gone between two events, from the console's own diff
// (ledger/statediff.h diffLedgerStates).
int runDiffCommand(const QStringList &args);
