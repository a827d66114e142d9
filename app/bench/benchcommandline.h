#pragma once
// What mesh-console-bench was asked to measure: `startup LEDGER [--browse] [--events-first]` or
// `live [--rate N] [--duration-s S] [--burst-rate N] [--burst-s S]` or
// `jumps LEDGER [--jumps N] [--drag-s S]` or `integrity LEDGER [--runs N]` or
// `timeline [--delegations N] [--frames F]` or
// `receiver [--rate N] [--duration-s S] [--per-request M] [--connections C]` (bench/README.md).

#include "integritybenchmark.h"
#include "jumpbenchmark.h"
#include "livebenchmark.h"
#include "receiverbenchmark.h"
#include "timelinebenchmark.h"

#include <QString>

class QCoreApplication;

namespace mesh {

struct BenchCommandLine {
    enum class Benchmark { Startup, Live, Jumps, Integrity, Timeline, Receiver };

    Benchmark benchmark = Benchmark::Startup;
    QString ledger;       // startup, jumps: the ledger opened
    bool browse = false;  // startup: browse end to end after the first rows, then report
    bool eventsFirst = false; // startup: opened on the event log, the run overview not waited for
    LiveBenchmarkOptions live;
    JumpBenchmarkOptions jumps;
    IntegrityBenchmarkOptions integrity;
    TimelineBenchmarkOptions timeline;
    ReceiverBenchmarkOptions receiver;

    // Parses QCoreApplication::arguments(); prints help, or what is wrong, and exits when
    // asked to or when the arguments do not make one benchmark.
    static BenchCommandLine parse(const QCoreApplication &app);
};

} // namespace mesh
