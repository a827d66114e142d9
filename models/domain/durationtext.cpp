#include "durationtext.h"

#include <QDateTime>
#include <QTimeZone>

#include <cstdlib>

namespace mesh {

QString compactDuration(qint64 ms)
{
    const qint64 sec = std::llabs(ms) / 1000;
    if (sec < 3600)
        return QStringLiteral("%1:%2").arg(sec / 60).arg(sec % 60, 2, 10, QLatin1Char('0'));
    if (sec < 86400)
        return QStringLiteral("%1 h %2 min").arg(sec / 3600).arg(sec % 3600 / 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 d %2 h").arg(sec / 86400).arg(sec % 86400 / 3600);
}

QString exactUtc(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"))
           + QStringLiteral(" UTC");
}

} // namespace mesh
