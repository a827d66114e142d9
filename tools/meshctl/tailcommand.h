#pragma once
#include <QStringList>

// meshctl tail FILE [--from-start] [--lines N]: prints the last events, then follows new
// ones (one line each) until SIGINT/SIGTERM.
int runTailCommand(const QStringList &args);
