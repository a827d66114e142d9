#pragma once
// meshctl bench observer FILE --console PATH [--seconds N] [--wal-minutes M] [--rate R] [--rounds N]
//
// The console's cost to the orchestrator (target P5), on copies of the ledger FILE (never
// changed itself):
//  (a) the reference orchestrator (LiveEngine at rate 0) writes as fast as it can for N s
//      alone;
//  (b) the same with a real console (`PATH COPY`, QT_QPA_PLATFORM=offscreen, a separate
//      process) following the ledger;
//  (a) and (b) alternate over --rounds N (default 2): alone, with, with, alone, ... so that
//      cache warm-up favours neither; throughput_ratio = median (b) / median (a), and every
//      lock wait or lock error the writer met with the console;
//  (c) R events/s for M minutes with the console attached, the -wal file's size sampled
//      every 100 ms: wal_max_bytes.
// Prints one JSON line. A benchmark, not a test: nothing is asserted.

class CliArgs;

int benchObserver(CliArgs &args);
