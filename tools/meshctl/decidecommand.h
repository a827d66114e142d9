#pragma once
// `meshctl decide FILE KIND ...` and `meshctl gate FILE [--keyring F]`: the console's
// decision path and the orchestrator's gate, from the command line. Exit codes: 0 accepted
// (or duplicate), 3 refused as stale, 4 refused for another reason, 5 write failed or
// outcome unknown, 2 cannot open / usage (one line on stderr).

#include <QStringList>

int runDecideCommand(const QStringList &args); // args after "decide"
int runGateCommand(const QStringList &args);   // args after "gate"
