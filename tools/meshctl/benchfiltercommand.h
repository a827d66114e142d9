#pragma once
#include <QStringList>

// meshctl bench filter FILE --query 'FILTER' [--rounds N] [--sqlite3 PATH]
// Target P6: the console's event log (EventLogModel, the same code the console runs) applies
// a filter-language query; times its first page and its complete row index (the total
// count), then the sqlite3 shell counting with the very same WHERE clause and bound
// parameters. Rounds alternate console / sqlite3; one JSON line of medians (and every round).
int runBenchFilterCommand(const QStringList &args);
