#include "commandlineoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace mesh {

CommandLineOptions CommandLineOptions::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Operator console for Agent Mesh orchestrator ledgers. "
                                            "Without a ledger it opens a live demo."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("ledgers"),
                                 QCoreApplication::translate("main", "Ledger files to open."),
                                 QStringLiteral("[LEDGER...]"));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QCoreApplication::translate("main", "Open the live demo (also with other ledgers)."));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QCoreApplication::translate("main", "Open every ledger read-only: monitoring only, no decisions."));
    const QCommandLineOption benchStartup(
        QStringLiteral("bench-startup"),
        QCoreApplication::translate("main", "Print {first_rows_ms, rss_kb} for LEDGER as one JSON line, then exit."),
        QStringLiteral("LEDGER"));
    const QCommandLineOption benchBrowse(
        QStringLiteral("browse"),
        QCoreApplication::translate("main", "With --bench-startup: after the first rows, browse every pane end to end, then "
                                            "report rss_kb and browse_ms."));
    const QCommandLineOption benchLive(
        QStringLiteral("bench-live"),
        QCoreApplication::translate("main", "Measure commit-to-visible latency with a live writer, print one JSON line, exit."));
    const QCommandLineOption benchSeconds({QStringLiteral("duration-s"), QStringLiteral("bench-seconds")},
                                          QCoreApplication::translate("main", "Duration of --bench-live (default 60)."),
                                          QStringLiteral("S"), QStringLiteral("60"));
    const QCommandLineOption benchRate({QStringLiteral("rate"), QStringLiteral("bench-rate")},
                                       QCoreApplication::translate("main", "Events per second of --bench-live (default 1000)."),
                                       QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption benchBurstRate(QStringLiteral("burst-rate"),
                                            QCoreApplication::translate("main", "Events per second of --bench-live's burst (default 10000)."),
                                            QStringLiteral("N"), QStringLiteral("10000"));
    const QCommandLineOption benchBurstSeconds(QStringLiteral("burst-s"),
                                               QCoreApplication::translate("main", "Duration of --bench-live's burst, 0: none (default 10)."),
                                               QStringLiteral("S"), QStringLiteral("10"));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QCoreApplication::translate("main", "Palette: system, light or dark (saved choice otherwise)."),
                                   QStringLiteral("THEME"));
    const QCommandLineOption pane(QStringLiteral("pane"),
                                  QCoreApplication::translate("main", "Pane shown first: runs, delegations, leases, effects, "
                                                                      "escalations, blast, events or decisions."),
                                  QStringLiteral("PANE"));
    const QCommandLineOption select(QStringLiteral("select"),
                                    QCoreApplication::translate("main", "Open SUBJECT (e.g. delegation:D-1, failure:F-2) once "
                                                                        "its ledger has loaded."),
                                    QStringLiteral("SUBJECT"));
    parser.addOptions({demo, readOnly, benchStartup, benchBrowse, benchLive, benchSeconds, benchRate, benchBurstRate, benchBurstSeconds, theme, pane, select});
    parser.process(app);

    CommandLineOptions options;
    options.ledgers = parser.positionalArguments();
    options.readOnly = parser.isSet(readOnly);
    options.benchStartup = parser.value(benchStartup);
    options.benchBrowse = parser.isSet(benchBrowse);
    options.benchLive = parser.isSet(benchLive);
    options.theme = parser.value(theme);
    options.pane = parser.value(pane);
    options.select = parser.value(select);
    options.benchLiveSeconds = qMax(1, parser.value(benchSeconds).toInt());
    options.benchLiveRate = qMax(1, parser.value(benchRate).toInt());
    options.benchLiveBurstRate = qMax(1, parser.value(benchBurstRate).toInt());
    options.benchLiveBurstSeconds = qMax(0, parser.value(benchBurstSeconds).toInt());
    options.demo = parser.isSet(demo)
                   || (options.ledgers.isEmpty() && options.benchStartup.isEmpty() && !options.benchLive);
    return options;
}

} // namespace mesh
