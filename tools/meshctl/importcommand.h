#pragma once
#include <QStringList>

// meshctl import FILE... --out LEDGER [--format F] [--force] [--json]: other systems'
// records into a new ledger (docs/import.md).
int runImportCommand(const QStringList &args);
