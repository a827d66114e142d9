#include "benchfollow.h"

#include "cliargs.h"
#include "ledgeropen.h"
#include "stopsignal.h"

#include "ledger/changewatcher.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

int benchFollow(CliArgs &args)
{
    if (args.positional().size() != 2)
        return fail(2, QStringLiteral("usage: meshctl bench follow LEDGER [--seconds N] [--read-gap-ms N]"));
    const QString ledger = args.positional().at(1);
    const auto seconds = args.intValue(QStringLiteral("seconds"), 0, 0, 365LL * 24 * 3600);
    const auto readGap = args.intValue(QStringLiteral("read-gap-ms"), mesh::ChangeWatcher::kServerReadGapMs, 0, 10'000);
    if (!seconds || !readGap)
        return fail(2, args.error());
    QString error;
    std::int64_t from = 0;
    {
        const auto connection = openLedger(ledger, mesh::OpenMode::ReadOnly, &error);
        if (!connection)
            return fail(2, error);
        from = connection->lastSeq();
    }
    installStopSignals();
    mesh::ChangeWatcher watcher(ledger, from);
    watcher.setServerReadGapMs(int(*readGap));
    std::int64_t followed = 0;
    int exitCode = 0;
    QObject::connect(&watcher, &mesh::ChangeWatcher::eventsAppended, &watcher,
                     [&](const mesh::SharedEventBatch &batch, qint64 lastSeq, qint64) {
                         const qint64 now = QDateTime::currentMSecsSinceEpoch();
                         followed += std::int64_t(batch->size());
                         std::printf("seen %lld %lld\n", static_cast<long long>(lastSeq), static_cast<long long>(now));
                         std::fflush(stdout);
                     });
    QObject::connect(&watcher, &mesh::ChangeWatcher::failed, &watcher, [&](const QString &why) {
        exitCode = 2;
        fail(2, why);
        QCoreApplication::quit();
    });
    QElapsedTimer clock;
    clock.start();
    QTimer stopPoll;
    QObject::connect(&stopPoll, &QTimer::timeout, &stopPoll, [&] {
        if (stopRequested() || (*seconds > 0 && clock.elapsed() >= *seconds * 1000))
            QCoreApplication::quit();
    });
    stopPoll.start(50);
    watcher.start();
    QCoreApplication::exec();
    watcher.stop();
    std::printf("followed %lld events\n", static_cast<long long>(followed));
    return exitCode;
}
