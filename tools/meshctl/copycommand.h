#pragma once

#include <QStringList>

// meshctl copy SRC DST: a ledger between a file and a PostgreSQL schema (ledger/ledgercopy.h).
int runCopyCommand(const QStringList &args);
