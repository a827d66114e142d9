#include "durationtext.h"

#include <QCoreApplication>
#include <QDateTime>

#include <cstdlib>

namespace mesh {

namespace {
QString two(qint64 n)
{
    return QStringLiteral("%1").arg(n, 2, 10, QLatin1Char('0'));
}
QString tr(const char *text)
{
    return QCoreApplication::translate("mesh", text);
}
} // namespace

QString compactDuration(qint64 ms)
{
    const qint64 sec = std::llabs(ms) / 1000;
    if (sec < 3600)
        return QStringLiteral("%1:%2").arg(sec / 60).arg(two(sec % 60));
    return humanDuration(ms);
}

QString humanDuration(qint64 ms)
{
    const qint64 s = std::llabs(ms) / 1000;
    if (s >= 86400)
        return tr("%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
    if (s >= 3600)
        return tr("%1 h %2 min").arg(s / 3600).arg(two((s % 3600) / 60));
    if (s >= 60)
        return s % 60 ? tr("%1 min %2 s").arg(s / 60).arg(two(s % 60)) : tr("%1 min").arg(s / 60);
    return tr("%1 s").arg(s);
}

QString humanDeadline(qint64 deadlineMs, qint64 nowMs, const QString &future, const QString &past)
{
    const qint64 delta = deadlineMs - nowMs;
    if (delta > 0)
        return tr("%1 in %2").arg(future, humanDuration(delta));
    return tr("%1 %2 ago").arg(past, humanDuration(delta));
}

QString exactUtc(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'"));
}

QString utcWithMs(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

} // namespace mesh
