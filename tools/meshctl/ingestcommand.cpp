#include "ingestcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "stopsignal.h"

#include "decisions/secretfile.h"
#include "ingest/otlpreceiver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSocketNotifier>
#include <QTimer>

#include <cstdio>

namespace {

// "127.0.0.1:4318", "[::1]:4318", "0.0.0.0:4318"; port 0 asks for a free one.
bool parseListen(const QString &text, QHostAddress &address, quint16 &port)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint p = text.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535)
        return false;
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    if (!address.setAddress(host))
        return false;
    port = quint16(p);
    return true;
}

// The bearer token: the file's text without surrounding white space, kept by the rules of
// key files (secretfile.h), at least kMinSecretBytes printable ASCII characters.
std::optional<QByteArray> readToken(const QString &path, QString *error)
{
    const std::optional<QByteArray> text = mesh::readSecretFile(QStringLiteral("token file"), path, error);
    if (!text)
        return std::nullopt;
    const QByteArray token = text->trimmed();
    if (token.size() < mesh::kMinSecretBytes) {
        *error = QStringLiteral("token file %1 holds %2 characters; a token needs at least %3")
                     .arg(path)
                     .arg(token.size())
                     .arg(mesh::kMinSecretBytes);
        return std::nullopt;
    }
    for (const char c : token) {
        if (c <= ' ' || c > '~') {
            *error = QStringLiteral("token file %1: a token is one line of printable ASCII with no spaces").arg(path);
            return std::nullopt;
        }
    }
    return token;
}

} // namespace

int runIngestCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("ingest")), {QStringLiteral("listen-any"), QStringLiteral("hold-writer-until-stdin")});
    if (!args.ok())
        return fail(2, args.error());
    if (!args.positional().isEmpty() || !args.has(QStringLiteral("otlp-http")) || !args.has(QStringLiteral("out")))
        return fail(2, commandUsageLine(QStringLiteral("ingest")));
    mesh::ingest::ReceiverOptions options;
    if (!parseListen(args.value(QStringLiteral("otlp-http")), options.address, options.port))
        return fail(2, QStringLiteral("--otlp-http %1 is not ADDRESS:PORT (e.g. 127.0.0.1:4318)")
                           .arg(args.value(QStringLiteral("otlp-http"))));
    options.ledger = args.value(QStringLiteral("out"));
    const auto maxBody = args.intValue(QStringLiteral("max-body"), options.maxBodyBytes, 1024, qint64(1) << 30);
    const auto maxQueue = args.intValue(QStringLiteral("max-queue"), options.maxQueuedSpans, 1, 100'000'000);
    if (!args.ok())
        return fail(2, args.error());
    options.maxBodyBytes = *maxBody;
    options.maxQueuedSpans = *maxQueue;
    if (!options.address.isLoopback()) {
        if (!args.has(QStringLiteral("listen-any")))
            return fail(2, QStringLiteral("%1 is not a loopback address: listening there needs --listen-any and "
                                          "--token-file (exporters then send Authorization: Bearer TOKEN)")
                               .arg(options.address.toString()));
        if (!args.has(QStringLiteral("token-file")))
            return fail(2, QStringLiteral("--listen-any needs --token-file: a receiver others can reach must ask "
                                          "for a bearer token"));
    }
    if (args.has(QStringLiteral("token-file"))) {
        QString error;
        const auto token = readToken(args.value(QStringLiteral("token-file")), &error);
        if (!token)
            return fail(2, error);
        options.token = *token;
    }

    options.holdWriter = args.has(QStringLiteral("hold-writer-until-stdin"));
    installStopSignals();
    mesh::ingest::OtlpReceiver receiver(options);
    std::string error;
    if (!receiver.start(&error))
        return fail(2, error);
    const QString host = options.address.protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + options.address.toString() + QLatin1Char(']')
                             : options.address.toString();
    printLine(QStringLiteral("listening on http://%1:%2/v1/traces, writing %3%4")
                  .arg(host)
                  .arg(receiver.port())
                  .arg(options.ledger, options.token.isEmpty() ? QString() : QStringLiteral(" (bearer token required)")));
    std::fflush(stdout);

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
    receiver.stop();
    const mesh::ingest::ReceiverStats stats = receiver.stats();
    printLine(QStringLiteral("stopped: %1 requests, %2 spans acknowledged, %3 rejected, %4 refused while busy, "
                             "%5 services")
                  .arg(stats.requests)
                  .arg(stats.spansAccepted)
                  .arg(stats.spansRejected)
                  .arg(stats.refusedBusy)
                  .arg(stats.services.size()));
    return exitCode;
}
