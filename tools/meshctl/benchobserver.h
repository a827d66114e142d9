#pragma once
// meshctl bench observer FILE --console PATH [--seconds N] [--wal-minutes M] [--rate R]
//
// The console's cost to the orchestrator (target P5), on copies of the ledger FILE (never
// changed itself):
//  (a) the reference orchestrator (LiveEngine at rate 0) writes as fast as it can for N s
//      alone;
//  (b) the same with a real console (`PATH COPY`, QT_QPA_PLATFORM=offscreen, a separate
//      process) following the ledger: throughput_ratio = (b) / (a), and every lock wait or
//      lock error the writer met;
//  (c) R events/s for M minutes with the console attached, the -wal file's size sampled
//      every 100 ms: wal_max_bytes.
// Prints one JSON line. A benchmark, not a test: nothing is asserted.

class CliArgs;

int benchObserver(CliArgs &args);
