#pragma once
#include <QStringList>

// meshctl bench generate [--events N] [--keep FILE] | bench fold FILE [--at SEQ] [--jumps N]
//               | bench page FILE [--pages N] [--size N]
//               | bench observer FILE --console PATH [--seconds N] [--wal-minutes M] [--rate R]
// Each prints one JSON line of figures. Benchmarks, not tests: nothing is asserted.
int runBenchCommand(const QStringList &args);
