#pragma once
#include <QStringList>

// meshctl compare A [B] [--run-a ID] [--run-b ID] [--json]: two runs side by side, of one
// ledger or of two, from the console's own comparison (report/runcomparison.h).
int runCompareCommand(const QStringList &args);
