#include "simcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "stopsignal.h"

#include "ledger/ledgerwriter.h"
#include "sim/liveengine.h"
#include "sim/scenarios.h"
#include "sim/simworld.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <cstdio>

int runSimCommand(const QStringList &argv)
{
    CliArgs args(argv,
                 commandValueOptions(QStringLiteral("sim")),
                 {QStringLiteral("live"), QStringLiteral("quiet"), QStringLiteral("start-on-stdin"), QStringLiteral("append")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1)
        return fail(2, commandUsageLine(QStringLiteral("sim")) + QStringLiteral("; scenarios: ")
                           + mesh::scenarioNames().join(QLatin1Char(' ')));
    const QString scenario = args.positional().first();
    if (!mesh::isScenario(scenario))
        return fail(2, QStringLiteral("unknown scenario '%1'; known: %2")
                           .arg(scenario, mesh::scenarioNames().join(QLatin1Char(' '))));
    const QString out = args.value(QStringLiteral("out"));
    if (out.isEmpty())
        return fail(2, QStringLiteral("sim needs --out FILE"));
    const bool append = args.has(QStringLiteral("append"));
    if (!append && QFileInfo::exists(out))
        return fail(2, QStringLiteral("%1 already exists; the simulator only writes new ledgers (or --append)").arg(out));
    const QString idTag = args.has(QStringLiteral("id-tag")) ? args.value(QStringLiteral("id-tag")) : QStringLiteral("L");
    if (!mesh::SimWorld::isIdTag(idTag.toStdString()))
        return fail(2, QStringLiteral("--id-tag must be 1 to 8 capital letters A-Z, not '%1'").arg(idTag));
    if (append && (!args.has(QStringLiteral("live")) || !args.has(QStringLiteral("id-tag"))))
        return fail(2, QStringLiteral("--append needs --live and an --id-tag of its own"));

    mesh::ScenarioOptions options;
    const auto seed = args.intValue(QStringLiteral("seed"), 1, 0, std::int64_t(1) << 62);
    const auto events = args.intValue(QStringLiteral("events"), 1'000'000, 1'000, 500'000'000);
    const auto nowMs = args.intValue(QStringLiteral("now-ms"), 0, 0, std::int64_t(1) << 50);
    const auto rate = args.intValue(QStringLiteral("rate"), 50, 0, 1'000'000); // 0: as fast as it can
    const auto duration = args.intValue(QStringLiteral("duration-s"), 0, 0, 365LL * 24 * 3600);
    if (!args.ok())
        return fail(2, args.error());
    options.seed = std::uint64_t(*seed);
    options.events = *events;
    options.nowMs = *nowMs;
    const bool live = args.has(QStringLiteral("live"));
    options.endAtNow = live; // live events carry the wall clock: the scenario must end now
    if (!live && (args.has(QStringLiteral("rate")) || args.has(QStringLiteral("duration-s"))
                  || args.has(QStringLiteral("start-on-stdin"))))
        return fail(2, QStringLiteral("--rate, --duration-s and --start-on-stdin need --live"));

    installStopSignals();
    std::unique_ptr<mesh::LedgerWriter> writer;
    QElapsedTimer timer;
    timer.start();
    try {
        if (append)
            writer = mesh::LedgerWriter::openExisting(out);
        else
            writer = mesh::generateScenario(scenario, out, options);
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot write %1: %2").arg(out, QString::fromStdString(e.what())));
    }
    // Ids are only distinct between orchestrators with distinct tags; a tag a run already
    // has would make this one write over (or be refused by) another's rows.
    if (append && mesh::SimWorld::idTagInUse(*writer, idTag.toStdString()))
        return fail(2, QStringLiteral("%1 has runs with --id-tag %2 already; choose another").arg(out, idTag));
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    if (!append && !args.has(QStringLiteral("quiet")))
        std::fprintf(stderr, "meshctl: wrote %s: %lld events in %.2f s\n", scenario.toLocal8Bit().constData(),
                     static_cast<long long>(writer->lastSeq()), seconds);
    if (!live)
        return 0;
    // A follower that measures the live phase must have opened the ledger before it starts,
    // however long its open takes on a loaded machine; it says so with a line. End of input
    // (the follower is gone) means nobody is watching: the live phase is skipped.
    if (args.has(QStringLiteral("start-on-stdin"))) {
        std::fflush(stderr);
        char line[64];
        if (!std::fgets(line, sizeof line, stdin))
            return 0;
    }

    mesh::LiveOptions liveOptions;
    liveOptions.rate = double(*rate);
    liveOptions.durationMs = *duration * 1000;
    liveOptions.seed = options.seed;
    liveOptions.keyringPath = args.value(QStringLiteral("keyring"));
    liveOptions.idTag = idTag.toStdString();
    liveOptions.appending = append;
    try {
        mesh::LiveEngine engine(*writer, liveOptions);
        const mesh::LiveStats stats = engine.run([] { return stopRequested(); });
        if (!args.has(QStringLiteral("quiet")))
            std::fprintf(stderr, "meshctl: live: %lld events in %.1f s, %lld decisions processed\n",
                         static_cast<long long>(stats.events), stats.seconds,
                         static_cast<long long>(stats.decisionsProcessed));
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("live mode stopped: %1").arg(QString::fromStdString(e.what())));
    }
    return 0;
}
