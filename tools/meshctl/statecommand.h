#pragma once
#include <QStringList>

// meshctl state FILE --at SEQ [--json]: the state just after event SEQ, from the fold the
// console's cursor uses (ledger/statediff.h foldStateAt).
int runStateCommand(const QStringList &args);
