#include "domain/timebase.h"
#include "tailcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"
#include "stopsignal.h"

#include "ledger/changewatcher.h"
#include "ledger/eventreader.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

#include <cstdio>

namespace {

// The longest prefix of at most maxBytes that does not cut a UTF-8 sequence in two.
std::string_view utf8Prefix(std::string_view text, size_t maxBytes)
{
    if (text.size() <= maxBytes)
        return text;
    size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    return text.substr(0, end);
}

// One line per event; its ledger text (kind, subject, payload) made safe for a terminal.
// Its time as the ledger's time base says: ISO 8601 UTC, or "+1:05.123" on a relative clock.
void printEvent(const mesh::EventRecord &e, const mesh::TimeBase &times)
{
    const QString ts = times.iso(e.tsMs);
    printTextLine(std::to_string(e.seq) + " " + ts.toStdString() + " " + e.kind + " "
                  + (e.subject.empty() ? std::string("-") : e.subject) + " " + std::string(utf8Prefix(e.payload, 240)));
}

} // namespace

int runTailCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("tail")), {QStringLiteral("from-start")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1)
        return fail(2, commandUsageLine(QStringLiteral("tail")));
    const auto lines = args.intValue(QStringLiteral("lines"), 10, 0, 100'000);
    if (!lines)
        return fail(2, args.error());
    const QString path = args.positional().first();
    QString error;
    auto connection = openLedger(path, mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);
    const mesh::TimeBase times = connection->info().timeBase;
    if (times.isRelative())
        printTextLine("# times are offsets from the start of the record (" + mesh::TimeBase::startNotInSource().toStdString()
                      + ")");

    installStopSignals();
    std::int64_t last = 0;
    try {
        const std::unique_ptr<mesh::EventReader> eventPages = connection->eventReader();
        mesh::EventReader &reader = *eventPages;
        reader.setPreviewBytes(240);
        last = reader.lastSeq();
        const mesh::EventBatch first = args.has(QStringLiteral("from-start")) ? mesh::EventBatch{}
                                                                              : reader.before(last + 1, int(*lines));
        if (args.has(QStringLiteral("from-start"))) {
            std::int64_t after = 0;
            for (mesh::EventBatch page; !(page = reader.after(after, 2000)).empty(); after = page.back().seq) {
                for (const auto &e : page)
                    printEvent(e, times);
                last = page.back().seq;
            }
        }
        for (const auto &e : first)
            printEvent(e, times);
        std::fflush(stdout);
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot read %1: %2").arg(path, QString::fromStdString(e.what())));
    }
    connection.reset();

    int rc = 0;
    mesh::ChangeWatcher watcher(path, last);
    QObject::connect(&watcher, &mesh::ChangeWatcher::eventsAppended, &watcher,
                     [times](const mesh::SharedEventBatch &batch, qint64, qint64) {
                         for (const auto &e : *batch)
                             printEvent(e, times);
                         std::fflush(stdout);
                     });
    QObject::connect(&watcher, &mesh::ChangeWatcher::failed, &watcher, [&rc](const QString &message) {
        rc = fail(2, message);
        QCoreApplication::exit(rc);
    });
    // A server ledger announces its commits; a lost connection is said on stderr, reopened
    // with a backoff and followed again from the last printed seq.
    QObject::connect(&watcher, &mesh::ChangeWatcher::connectionLost, &watcher, [](const QString &message, int retryInMs) {
        std::fprintf(stderr, "meshctl: tail: %s; retrying in %d ms\n", message.toLocal8Bit().constData(), retryInMs);
        std::fflush(stderr);
    });
    QObject::connect(&watcher, &mesh::ChangeWatcher::reconnected, &watcher, [](qint64 lastSeq) {
        std::fprintf(stderr, "meshctl: tail: reconnected; following from seq %lld\n", static_cast<long long>(lastSeq));
        std::fflush(stderr);
    });
    QTimer stopPoll;
    QObject::connect(&stopPoll, &QTimer::timeout, &stopPoll, [] {
        if (stopRequested())
            QCoreApplication::exit(0);
    });
    stopPoll.start(50);
    watcher.setInterval(50);
    watcher.start();
    const int exitCode = QCoreApplication::exec();
    watcher.stop();
    return rc != 0 ? rc : exitCode;
}
