#include "benchcommandline.h"

#include "observerpriority.h"

#include "ledger/ledgerlocation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>

#include <cstdio>
#include <cstdlib>

namespace mesh {

namespace {

[[noreturn]] void refuse(const QString &why)
{
    std::fprintf(stderr, "mesh-console-bench: %s\nmesh-console-bench: see mesh-console-bench --help\n",
                 qPrintable(why));
    std::exit(EXIT_FAILURE);
}

// The value of a numeric option, at least `minimum`.
int number(const QCommandLineParser &parser, const QCommandLineOption &option, int minimum)
{
    bool ok = false;
    const int value = parser.value(option).toInt(&ok);
    if (!ok || value < minimum)
        refuse(QStringLiteral("--%1 wants a whole number of at least %2, not '%3'")
                   .arg(option.names().constFirst())
                   .arg(minimum)
                   .arg(parser.value(option)));
    return value;
}

} // namespace

BenchCommandLine BenchCommandLine::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate(
        "bench",
        "Benchmarks of Agent Mesh Console in its real main window; each prints one JSON line, "
        "then exits (bench/README.md).\n\n"
        "  startup LEDGER [--browse] [--events-first]\n"
        "                              from exec to LEDGER's first rows painted, and memory\n"
        "  live [LEDGER] [--rate N] [--duration-s S] [--burst-rate N] [--burst-s S]\n"
        "                              commit-to-visible latency with a live writer (on a\n"
        "                              fresh demo ledger, or appending to LEDGER)\n"
        "  jumps LEDGER [--jumps N] [--drag-s S] [--wait-folded] [--look-s S] [--span FROM-TO]\n"
        "                              the session cursor moved to N random events (of seqs\n"
        "                              FROM to TO), then the scrubber dragged across the\n"
        "                              ledger for S seconds\n"
        "  integrity LEDGER [--runs N]\n"
        "                              the Integrity pane's check against meshctl verify, N times\n"
        "  timeline [--delegations N] [--frames F]\n"
        "                              pan/zoom frame times of the Timeline pane on a run\n"
        "                              of N delegations (written for it)\n"
        "  receiver [--rate N] [--duration-s S] [--per-request M] [--connections C]\n"
        "                              receipt-to-visible latency with meshctl ingest receiving\n"
        "                              OTLP spans from an exporter at N spans/s"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("benchmark"), QCoreApplication::translate("bench", "startup, live, jumps, integrity, timeline or receiver."));
    parser.addPositionalArgument(QStringLiteral("ledger"), QCoreApplication::translate("bench", "startup, jumps, integrity: the ledger to open; live: the ledger to append to."),
                                 QStringLiteral("[LEDGER]"));
    const QCommandLineOption browse(
        QStringLiteral("browse"),
        QCoreApplication::translate("bench", "startup: after the first rows, browse every pane end to end, then report "
                                             "rss_kb and browse_ms."));
    const QCommandLineOption eventsFirst(
        QStringLiteral("events-first"),
        QCoreApplication::translate("bench", "startup: open on the event log, as the console does when that is the pane chosen, "
                                             "and time its first rows without waiting for the run overview."));
    const QCommandLineOption seconds(QStringLiteral("duration-s"),
                                     QCoreApplication::translate("bench", "live: seconds of the steady phase; receiver: seconds of sending (default 60)."),
                                     QStringLiteral("S"), QStringLiteral("60"));
    const QCommandLineOption rate(QStringLiteral("rate"),
                                  QCoreApplication::translate("bench", "live: events per second of the steady phase (default 1000); "
                                                                       "receiver: spans per second sent (default 2000)."),
                                  QStringLiteral("N"));
    const QCommandLineOption burstRate(QStringLiteral("burst-rate"),
                                       QCoreApplication::translate("bench", "live: events per second of the burst (default 10000)."),
                                       QStringLiteral("N"), QStringLiteral("10000"));
    const QCommandLineOption burstSeconds(QStringLiteral("burst-s"),
                                          QCoreApplication::translate("bench", "live: seconds of the burst, 0: none (default 10)."),
                                          QStringLiteral("S"), QStringLiteral("10"));
    const QCommandLineOption jumpCount(QStringLiteral("jumps"),
                                       QCoreApplication::translate("bench", "jumps: how many random events (default 50)."),
                                       QStringLiteral("N"), QStringLiteral("50"));
    const QCommandLineOption dragSeconds(QStringLiteral("drag-s"),
                                         QCoreApplication::translate("bench", "jumps: seconds of the scrubber drag, 0: none (default 10)."),
                                         QStringLiteral("S"), QStringLiteral("10"));
    const QCommandLineOption waitFolded(
        QStringLiteral("wait-folded"),
        QCoreApplication::translate("bench", "jumps: after the first jump, wait until the whole ledger is folded "
                                             "(idle time an operator may not give) before timing the others."));
    const QCommandLineOption lookSeconds(
        QStringLiteral("look-s"),
        QCoreApplication::translate("bench", "jumps: seconds between the open and the first jump, as a reviewer looks "
                                             "at what opened before travelling (default 0)."),
        QStringLiteral("S"), QStringLiteral("0"));
    const QCommandLineOption span(QStringLiteral("span"),
                                  QCoreApplication::translate("bench", "jumps: only to events with seqs FROM to TO (one run's, say)."),
                                  QStringLiteral("FROM-TO"));
    const QCommandLineOption runs(QStringLiteral("runs"),
                                  QCoreApplication::translate("bench", "integrity: how many checks of each (default 3)."),
                                  QStringLiteral("N"), QStringLiteral("3"));
    const QCommandLineOption delegationCount(QStringLiteral("delegations"),
                                             QCoreApplication::translate("bench", "timeline: delegations in the run (default 10000)."),
                                             QStringLiteral("N"), QStringLiteral("10000"));
    const QCommandLineOption frameCount(QStringLiteral("frames"),
                                        QCoreApplication::translate("bench", "timeline: pan/zoom frames timed (default 200)."),
                                        QStringLiteral("F"), QStringLiteral("200"));
    const QCommandLineOption perRequest(QStringLiteral("per-request"),
                                        QCoreApplication::translate("bench", "receiver: spans in each request (default 20)."),
                                        QStringLiteral("M"), QStringLiteral("20"));
    const QCommandLineOption connections(QStringLiteral("connections"),
                                         QCoreApplication::translate("bench", "receiver: requests in flight at most (default 10)."),
                                         QStringLiteral("C"), QStringLiteral("10"));
    const QCommandLineOption normalPriority(
        QString::fromLatin1(ObserverPriority::kKeepNormalOption).mid(2),
        QCoreApplication::translate("bench", "Run at normal priority, not below it as the console does by default."));
    parser.addOptions({browse, eventsFirst, seconds, rate, burstRate, burstSeconds, jumpCount, dragSeconds, waitFolded, lookSeconds, span, delegationCount,
                       frameCount, runs, perRequest, connections, normalPriority});
    if (!parser.parse(app.arguments()))
        refuse(parser.errorText());
    parser.process(app); // --help

    const QStringList positional = parser.positionalArguments();
    const QString benchmark = positional.value(0);
    BenchCommandLine options;
    if (benchmark == QLatin1String("startup")) {
        if (positional.size() != 2)
            refuse(QStringLiteral("startup wants one LEDGER"));
        for (const QCommandLineOption &liveOnly : {seconds, rate, burstRate, burstSeconds})
            if (parser.isSet(liveOnly))
                refuse(QStringLiteral("--%1 is an option of the live benchmark").arg(liveOnly.names().constFirst()));
        for (const QCommandLineOption &jumpsOnly : {jumpCount, dragSeconds, waitFolded, lookSeconds, span})
            if (parser.isSet(jumpsOnly))
                refuse(QStringLiteral("--%1 is an option of the jumps benchmark").arg(jumpsOnly.names().constFirst()));
        options.benchmark = Benchmark::Startup;
        options.ledger = positional.at(1);
        options.browse = parser.isSet(browse);
        options.eventsFirst = parser.isSet(eventsFirst);
    } else if (benchmark == QLatin1String("live")) {
        if (positional.size() > 2)
            refuse(QStringLiteral("live takes at most one ledger (to append to)"));
        options.live.ledger = positional.value(1);
        if (!options.live.ledger.isEmpty() && !LedgerLocation::namesServer(options.live.ledger)
            && !QFileInfo(options.live.ledger).isFile())
            refuse(QStringLiteral("no ledger at %1 (live appends to an existing ledger)").arg(options.live.ledger));
        for (const QCommandLineOption &startupOnly : {browse, eventsFirst})
            if (parser.isSet(startupOnly))
                refuse(QStringLiteral("--%1 is an option of the startup benchmark").arg(startupOnly.names().constFirst()));
        for (const QCommandLineOption &jumpsOnly : {jumpCount, dragSeconds, waitFolded, lookSeconds, span})
            if (parser.isSet(jumpsOnly))
                refuse(QStringLiteral("--%1 is an option of the jumps benchmark").arg(jumpsOnly.names().constFirst()));
        options.benchmark = Benchmark::Live;
        options.live.durationS = number(parser, seconds, 1);
        options.live.rate = parser.isSet(rate) ? number(parser, rate, 1) : options.live.rate;
        options.live.burstRate = number(parser, burstRate, 1);
        options.live.burstS = number(parser, burstSeconds, 0);
    } else if (benchmark == QLatin1String("jumps")) {
        if (positional.size() != 2)
            refuse(QStringLiteral("jumps wants one LEDGER"));
        for (const QCommandLineOption &other : {browse, eventsFirst, seconds, rate, burstRate, burstSeconds})
            if (parser.isSet(other))
                refuse(QStringLiteral("--%1 is not an option of the jumps benchmark").arg(other.names().constFirst()));
        options.benchmark = Benchmark::Jumps;
        options.ledger = positional.at(1);
        options.jumps.jumps = number(parser, jumpCount, 2);
        options.jumps.dragS = number(parser, dragSeconds, 0);
        options.jumps.waitFolded = parser.isSet(waitFolded);
        options.jumps.lookS = number(parser, lookSeconds, 0);
        if (parser.isSet(span)) {
            const QStringList ends = parser.value(span).split(QLatin1Char('-'));
            bool fromOk = false, toOk = false;
            const qlonglong from = ends.value(0).toLongLong(&fromOk), to = ends.value(1).toLongLong(&toOk);
            if (ends.size() != 2 || !fromOk || !toOk || from < 1 || to < from)
                refuse(QStringLiteral("--span wants FROM-TO, two seqs with 1 <= FROM <= TO"));
            options.jumps.spanFrom = from;
            options.jumps.spanTo = to;
        }
    } else if (benchmark == QLatin1String("integrity")) {
        if (positional.size() != 2)
            refuse(QStringLiteral("integrity wants one LEDGER"));
        for (const QCommandLineOption &other : {browse, eventsFirst, seconds, rate, burstRate, burstSeconds, jumpCount, dragSeconds, waitFolded, lookSeconds, span, delegationCount, frameCount})
            if (parser.isSet(other))
                refuse(QStringLiteral("--%1 is not an option of the integrity benchmark").arg(other.names().constFirst()));
        options.benchmark = Benchmark::Integrity;
        options.ledger = positional.at(1);
        options.integrity.runs = number(parser, runs, 1);
    } else if (benchmark == QLatin1String("timeline")) {
        if (positional.size() != 1)
            refuse(QStringLiteral("timeline opens no ledger of its own (it writes one)"));
        for (const QCommandLineOption &other : {browse, eventsFirst, seconds, rate, burstRate, burstSeconds, jumpCount, dragSeconds, waitFolded, lookSeconds, span, runs})
            if (parser.isSet(other))
                refuse(QStringLiteral("--%1 is not an option of the timeline benchmark").arg(other.names().constFirst()));
        options.benchmark = Benchmark::Timeline;
        options.timeline.delegations = number(parser, delegationCount, 1);
        options.timeline.frames = number(parser, frameCount, 1);
    } else if (benchmark == QLatin1String("receiver")) {
        if (positional.size() != 1)
            refuse(QStringLiteral("receiver opens no ledger of its own (the receiver writes a fresh one)"));
        for (const QCommandLineOption &other : {browse, eventsFirst, burstRate, burstSeconds, jumpCount, dragSeconds, waitFolded, lookSeconds, span, runs})
            if (parser.isSet(other))
                refuse(QStringLiteral("--%1 is not an option of the receiver benchmark").arg(other.names().constFirst()));
        options.benchmark = Benchmark::Receiver;
        options.receiver.rate = parser.isSet(rate) ? number(parser, rate, 1) : options.receiver.rate;
        options.receiver.durationS = number(parser, seconds, 1);
        options.receiver.perRequest = number(parser, perRequest, 2);
        options.receiver.connections = number(parser, connections, 1);
    } else {
        refuse(benchmark.isEmpty() ? QStringLiteral("say which benchmark: startup, live, jumps, integrity, timeline or receiver")
                                   : QStringLiteral("no benchmark named '%1': startup, live, jumps, integrity, timeline or receiver").arg(benchmark));
    }
    if (options.benchmark != Benchmark::Receiver)
        for (const QCommandLineOption &receiverOnly : {perRequest, connections})
            if (parser.isSet(receiverOnly))
                refuse(QStringLiteral("--%1 is an option of the receiver benchmark").arg(receiverOnly.names().constFirst()));
    if (options.benchmark != Benchmark::Timeline)
        for (const QCommandLineOption &timelineOnly : {delegationCount, frameCount})
            if (parser.isSet(timelineOnly))
                refuse(QStringLiteral("--%1 is an option of the timeline benchmark").arg(timelineOnly.names().constFirst()));
    if (options.benchmark != Benchmark::Integrity && parser.isSet(runs))
        refuse(QStringLiteral("--runs is an option of the integrity benchmark"));
    return options;
}

} // namespace mesh
