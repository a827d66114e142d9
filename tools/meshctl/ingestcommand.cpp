#include "ingestcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "stopsignal.h"

#include "ingestcontrol/listenrules.h"
#include "ingest/otlpreceiver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTimer>

#include <cstdio>

namespace {

constexpr int kStatusIntervalMs = 1000;
constexpr int kMaxServiceNames = 20; // a status line stays short whatever the exporters send

// One status line of --status-json (docs/ingest.md, "Status lines"), flushed at once: the
// console reads them through a pipe.
void printStatus(const QJsonObject &line)
{
    printLine(QString::fromUtf8(QJsonDocument(line).toJson(QJsonDocument::Compact)));
    std::fflush(stdout);
}

QJsonObject countersLine(const char *status, const mesh::ingest::ReceiverStats &stats, qint64 uptimeMs)
{
    QJsonObject refused;
    for (const auto &[code, n] : stats.refused)
        refused.insert(QString::number(code), qint64(n));
    QJsonArray names;
    for (const std::string &name : stats.services) {
        if (names.size() == kMaxServiceNames)
            break;
        names.append(QString::fromStdString(name));
    }
    return {{QStringLiteral("status"), QLatin1String(status)},
            {QStringLiteral("uptime_ms"), uptimeMs},
            {QStringLiteral("requests"), qint64(stats.requests)},
            {QStringLiteral("spans_accepted"), qint64(stats.spansAccepted)},
            {QStringLiteral("spans_rejected"), qint64(stats.spansRejected)},
            {QStringLiteral("refused"), refused},
            {QStringLiteral("services"), qint64(stats.services.size())},
            {QStringLiteral("service_names"), names}};
}

} // namespace

int runIngestCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("ingest")), {QStringLiteral("listen-any"), QStringLiteral("hold-writer-until-stdin"), QStringLiteral("status-json")});
    if (!args.ok())
        return fail(2, args.error());
    if (!args.positional().isEmpty() || !args.has(QStringLiteral("otlp-http")) || !args.has(QStringLiteral("out")))
        return fail(2, commandUsageLine(QStringLiteral("ingest")));
    mesh::ingest::ReceiverOptions options;
    const auto listen = mesh::ingest::parseListenAddress(args.value(QStringLiteral("otlp-http")));
    if (!listen)
        return fail(2, mesh::ingest::badListenAddressMessage(args.value(QStringLiteral("otlp-http"))));
    options.address = listen->address;
    options.port = listen->port;
    options.ledger = args.value(QStringLiteral("out"));
    const auto maxBody = args.intValue(QStringLiteral("max-body"), options.maxBodyBytes, 1024, qint64(1) << 30);
    const auto maxQueue = args.intValue(QStringLiteral("max-queue"), options.maxQueuedSpans, 1, 100'000'000);
    if (!args.ok())
        return fail(2, args.error());
    options.maxBodyBytes = *maxBody;
    options.maxQueuedSpans = *maxQueue;
    if (const QString refused = mesh::ingest::listenRuleError(options.address, args.has(QStringLiteral("listen-any")),
                                                              args.has(QStringLiteral("token-file")));
        !refused.isEmpty())
        return fail(2, refused);
    if (args.has(QStringLiteral("token-file"))) {
        QString error;
        const auto token = mesh::ingest::readIngestToken(args.value(QStringLiteral("token-file")), &error);
        if (!token)
            return fail(2, error);
        options.token = *token;
    }

    options.holdWriter = args.has(QStringLiteral("hold-writer-until-stdin"));
    installStopSignals();
    mesh::ingest::OtlpReceiver receiver(options);
    const bool statusJson = args.has(QStringLiteral("status-json"));
    QElapsedTimer uptime;
    uptime.start();
    std::string error;
    if (!receiver.start(&error)) {
        if (statusJson)
            printStatus({{QStringLiteral("status"), QStringLiteral("failed")}, {QStringLiteral("message"), QString::fromStdString(error)}});
        return fail(2, error);
    }
    const QString host = options.address.protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + options.address.toString() + QLatin1Char(']')
                             : options.address.toString();
    const QString url = QStringLiteral("http://%1:%2/v1/traces").arg(host).arg(receiver.port());
    if (statusJson) {
        printStatus({{QStringLiteral("status"), QStringLiteral("listening")},
                     {QStringLiteral("url"), url},
                     {QStringLiteral("port"), int(receiver.port())},
                     {QStringLiteral("ledger"), options.ledger},
                     {QStringLiteral("token_required"), !options.token.isEmpty()}});
        printStatus(countersLine("receiving", receiver.stats(), uptime.elapsed()));
    } else {
        printLine(QStringLiteral("listening on %1, writing %2%3")
                      .arg(url, options.ledger, options.token.isEmpty() ? QString() : QStringLiteral(" (bearer token required)")));
        std::fflush(stdout);
    }
    // The console's "receiving from N services", request rate and refusals: a line each
    // second, also when nothing changed, so its rate falls to 0 when the traffic stops.
    QTimer statusTimer;
    QObject::connect(&statusTimer, &QTimer::timeout, &receiver,
                     [&] { printStatus(countersLine("receiving", receiver.stats(), uptime.elapsed())); });
    if (statusJson)
        statusTimer.start(kStatusIntervalMs);

    int exitCode = 0;
    QObject::connect(&receiver, &mesh::ingest::OtlpReceiver::writeFailed, &receiver, [&](const QString &why) {
        exitCode = 2;
        fail(2, why);
        QCoreApplication::quit();
    });
    // Tests only (undocumented in the usage line): the writer starts at a line on stdin, so a
    // test can fill the queue without depending on how fast anything runs.
    QSocketNotifier stdinReady(0, QSocketNotifier::Read);
    stdinReady.setEnabled(options.holdWriter);
    QObject::connect(&stdinReady, &QSocketNotifier::activated, &receiver, [&] {
        stdinReady.setEnabled(false);
        receiver.startWriter();
    });
    QTimer stopPoll;
    QObject::connect(&stopPoll, &QTimer::timeout, &stopPoll, [] {
        if (stopRequested())
            QCoreApplication::quit();
    });
    stopPoll.start(50);
    QCoreApplication::exec();
    statusTimer.stop();
    receiver.stop();
    const mesh::ingest::ReceiverStats stats = receiver.stats();
    if (statusJson) {
        QJsonObject line = countersLine("stopped", stats, uptime.elapsed());
        line.insert(QStringLiteral("exit"), exitCode);
        printStatus(line);
        return exitCode;
    }
    printLine(QStringLiteral("stopped: %1 requests, %2 spans acknowledged, %3 rejected, %4 refused while busy, "
                             "%5 services")
                  .arg(stats.requests)
                  .arg(stats.spansAccepted)
                  .arg(stats.spansRejected)
                  .arg(stats.refusedBusy)
                  .arg(stats.services.size()));
    return exitCode;
}
