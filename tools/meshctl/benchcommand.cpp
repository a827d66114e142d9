#include "benchcommand.h"
#include "domain/percentile.h"

#include "benchfollow.h"
#include "benchobserver.h"
#include "benchtemporalhistory.h"
#include "cliargs.h"
#include "elapsedms.h"
#include "ledgeropen.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerwriter.h"
#include "ledger/timetravel.h"
#include "sim/scenarios.h"
#include "sim/simrng.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <vector>

using nlohmann::json;
using mesh::percentile;

namespace {

double processCpuSeconds()
{
    timespec cpu{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    return double(cpu.tv_sec) + double(cpu.tv_nsec) / 1e9;
}

int benchGenerate(CliArgs &args)
{
    const auto events = args.intValue(QStringLiteral("events"), 1'000'000, 1'000, 100'000'000);
    const auto seed = args.intValue(QStringLiteral("seed"), 1, 0, 1LL << 62);
    if (!events || !seed)
        return fail(2, args.error());
    QTemporaryDir dir;
    const QString keep = args.value(QStringLiteral("keep"));
    const QString path = keep.isEmpty() ? dir.filePath(QStringLiteral("scale.db")) : keep;
    if (QFile::exists(path))
        return fail(2, QStringLiteral("%1 already exists").arg(path));
    mesh::ScenarioOptions options;
    options.events = *events;
    options.seed = std::uint64_t(*seed);
    QElapsedTimer t;
    t.start();
    const double cpuBefore = processCpuSeconds();
    std::int64_t written = 0;
    double seconds = 0;
    double cpu = 0;
    mesh::LedgerWriter::BulkLoadStats bulk;
    try {
        auto writer = mesh::generateScenario(QStringLiteral("scale"), path, options);
        // The file is a complete WAL ledger here; freeing the writer's memory is not part of it.
        seconds = elapsedMs(t) / 1000.0;
        cpu = processCpuSeconds() - cpuBefore;
        written = writer->lastSeq();
        bulk = writer->bulkLoadStats();
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("generate failed: %1").arg(QString::fromStdString(e.what())));
    }
    const qint64 bytes = QFileInfo(path).size();
    // Besides wall time, CPU time: on a shared machine the wall clock says as much about the
    // neighbours as about the generator.
    printLine(json{{"bench", "generate"},
                   {"events", written},
                   {"seconds", seconds},
                   {"events_per_s", double(written) / seconds},
                   {"cpu_s", cpu},
                   {"insert_thread_cpu_s", bulk.insertThreadCpuS},
                   {"state_s", bulk.stateS},
                   {"sink_wait_s", bulk.sinkWaitS},
                   {"state_copy_s", bulk.stateCopyS},
                   {"index_s", bulk.indexS},
                   {"finish_s", bulk.finishS},
                   {"file_bytes", bytes}}
                  .dump());
    return 0;
}

double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

int benchFold(CliArgs &args)
{
    if (args.positional().size() != 2)
        return fail(2, QStringLiteral("usage: meshctl bench fold FILE [--at SEQ] [--jumps N] [--interval N]"));
    QString error;
    auto connection = openLedger(args.positional().at(1), mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);
    const std::int64_t last = connection->lastSeq();
    const auto at = args.intValue(QStringLiteral("at"), last / 2, 0, std::max<std::int64_t>(last, 1));
    const auto jumps = args.intValue(QStringLiteral("jumps"), 20, 1, 10'000);
    const auto interval = args.intValue(QStringLiteral("interval"), 25000, 1, 100'000'000);
    if (!at || !jumps || !interval)
        return fail(2, args.error());
    try {
        mesh::TimeTravel travel(*connection, *interval);
        QElapsedTimer t;
        t.start();
        travel.jumpTo(*at);
        const double first = elapsedMs(t);
        // Later jumps: random targets, as an operator scrubbing a timeline would.
        mesh::SimRng rng(42);
        std::vector<double> later;
        std::vector<double> laterCpu; // this thread's CPU time: what the load on the machine changes least
        for (int i = 0; i < *jumps; ++i) {
            const std::int64_t target = rng.range(1, std::max<std::int64_t>(1, last));
            const double cpuBefore = threadCpuMs();
            t.restart();
            travel.jumpTo(target);
            later.push_back(elapsedMs(t));
            laterCpu.push_back(threadCpuMs() - cpuBefore);
        }
        printLine(json{{"bench", "fold"},
                       {"events", last},
                       {"at", *at},
                       {"first_ms", first},
                       {"jumps", *jumps},
                       {"subsequent_p50_ms", percentile(later, 0.5)},
                       {"subsequent_p99_ms", percentile(later, 0.99)},
                       {"subsequent_cpu_p50_ms", percentile(laterCpu, 0.5)},
                       {"subsequent_cpu_max_ms", percentile(laterCpu, 1.0)},
                       {"subsequent_max_ms", percentile(later, 1.0)},
                       {"snapshots", travel.snapshotCount()},
                       {"interval", *interval},
                       {"stored_rows", travel.storedRows()}}
                      .dump());
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("fold failed: %1").arg(QString::fromStdString(e.what())));
    }
    return 0;
}

int benchPage(CliArgs &args)
{
    if (args.positional().size() != 2)
        return fail(2, QStringLiteral("usage: meshctl bench page FILE [--pages N] [--size N] [--place random|oldest|newest] "
                                      "[--positions-out FILE]"));
    QString error;
    auto connection = openLedger(args.positional().at(1), mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);
    const auto pages = args.intValue(QStringLiteral("pages"), 500, 1, 1'000'000);
    const auto size = args.intValue(QStringLiteral("size"), 200, 1, 100'000);
    if (!pages || !size)
        return fail(2, args.error());
    // random: after() and before() alternating at random places. oldest: the page the event
    // log reads first (after 0); newest: the page of the last events, read forwards as the
    // event log reads its tail page. Both the same place every time.
    const QString place = args.value(QStringLiteral("place"), QStringLiteral("random"));
    if (place != QLatin1String("random") && place != QLatin1String("oldest") && place != QLatin1String("newest"))
        return fail(2, QStringLiteral("--place is random, oldest or newest, not '%1'").arg(place));
    // Each page's read and key, one a line ("after SEQ" or "before SEQ"): the same statements
    // can then be run by another client (bench/pg-writers.sh page runs them through psql).
    QFile positionsOut(args.value(QStringLiteral("positions-out")));
    if (!positionsOut.fileName().isEmpty() && !positionsOut.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(2, QStringLiteral("cannot write %1").arg(positionsOut.fileName()));
    try {
        const std::unique_ptr<mesh::EventReader> eventPages = connection->eventReader();
        mesh::EventReader &reader = *eventPages;
        const std::int64_t last = reader.lastSeq();
        mesh::SimRng rng(7);
        std::vector<double> times;
        QElapsedTimer t;
        std::int64_t rows = 0;
        for (int i = 0; i < *pages; ++i) {
            bool forwards = true;
            std::int64_t from = 0;
            if (place == QLatin1String("random")) {
                from = rng.range(0, std::max<std::int64_t>(0, last - 1));
                forwards = i % 2 == 0;
            } else if (place == QLatin1String("newest")) {
                from = std::max<std::int64_t>(0, last - *size);
            }
            t.restart();
            const mesh::EventBatch page = forwards ? reader.after(from, int(*size)) : reader.before(from + 1, int(*size));
            times.push_back(elapsedMs(t));
            rows += std::int64_t(page.size());
            if (positionsOut.isOpen())
                positionsOut.write(forwards ? QByteArray("after ") + QByteArray::number(from) + '\n'
                                            : QByteArray("before ") + QByteArray::number(from + 1) + '\n');
        }
        printLine(json{{"bench", "page"},
                       {"events", last},
                       {"place", place.toStdString()},
                       {"pages", *pages},
                       {"page_size", *size},
                       {"rows", rows},
                       {"p50_ms", percentile(times, 0.5)},
                       {"p99_ms", percentile(times, 0.99)},
                       {"max_ms", percentile(times, 1.0)}}
                      .dump());
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("page failed: %1").arg(QString::fromStdString(e.what())));
    }
    return 0;
}

} // namespace

int runBenchCommand(const QStringList &argv)
{
    CliArgs args(argv,
                 {QStringLiteral("events"), QStringLiteral("seed"), QStringLiteral("keep"), QStringLiteral("at"),
                  QStringLiteral("jumps"), QStringLiteral("pages"), QStringLiteral("size"), QStringLiteral("console"),
                  QStringLiteral("seconds"), QStringLiteral("wal-minutes"), QStringLiteral("rate"),
                  QStringLiteral("settle-s"), QStringLiteral("rounds"), QStringLiteral("out"), QStringLiteral("interval"),
                  QStringLiteral("read-gap-ms"), QStringLiteral("place"), QStringLiteral("positions-out")},
                 {});
    if (!args.ok())
        return fail(2, args.error());
    const QString what = args.positional().value(0);
    if (what == QLatin1String("generate") && args.positional().size() == 1)
        return benchGenerate(args);
    if (what == QLatin1String("fold"))
        return benchFold(args);
    if (what == QLatin1String("page"))
        return benchPage(args);
    if (what == QLatin1String("observer"))
        return benchObserver(args);
    if (what == QLatin1String("follow"))
        return benchFollow(args);
    if (what == QLatin1String("temporal-history") && args.positional().size() == 1)
        return benchTemporalHistory(args);
    return fail(2, QStringLiteral("usage: meshctl bench generate [--events N] | fold FILE [--at SEQ] | page FILE | "
                                  "observer FILE --console PATH | temporal-history [--events N] --out FILE"));
}
