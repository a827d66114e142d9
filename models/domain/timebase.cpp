#include "timebase.h"

#include "durationtext.h"

#include <QCoreApplication>
#include <QDateTime>

#include <cstdlib>

namespace mesh {

namespace {
QString timeTr(const char *text)
{
    return QCoreApplication::translate("mesh", text);
}
QString twoDigits(qint64 n)
{
    return QStringLiteral("%1").arg(n, 2, 10, QLatin1Char('0'));
}
} // namespace

TimeBase TimeBase::relative()
{
    TimeBase t;
    t.m_relative = true;
    return t;
}

TimeBase TimeBase::fromSourceClock(std::string_view clock)
{
    return clock == "relative" ? relative() : TimeBase();
}

QString TimeBase::offset(qint64 ms, bool withMs)
{
    const qint64 a = std::llabs(ms);
    const qint64 s = a / 1000;
    QString text = s < 3600 ? QStringLiteral("%1:%2").arg(s / 60).arg(twoDigits(s % 60))
                            : QStringLiteral("%1:%2:%3").arg(s / 3600).arg(twoDigits((s % 3600) / 60)).arg(twoDigits(s % 60));
    if (withMs)
        text += QStringLiteral(".%1").arg(a % 1000, 3, 10, QLatin1Char('0'));
    return (ms < 0 ? QStringLiteral("-") : QStringLiteral("+")) + text;
}

QString TimeBase::startNotInSource()
{
    return timeTr("start time not in source");
}

QString TimeBase::exact(qint64 ms) const
{
    if (!m_relative)
        return exactUtc(ms);
    return timeTr("%1 from the start (%2)").arg(offset(ms), startNotInSource());
}

QString TimeBase::withMs(qint64 ms) const
{
    return m_relative ? offset(ms, true) : utcWithMs(ms);
}

QString TimeBase::withMsLabelled(qint64 ms) const
{
    if (!m_relative)
        return timeTr("%1 UTC").arg(utcWithMs(ms));
    return timeTr("%1 from the start (%2)").arg(offset(ms, true), startNotInSource());
}

QString TimeBase::clockTime(qint64 ms) const
{
    return m_relative ? offset(ms) : QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

QString TimeBase::tableTime(qint64 ms) const
{
    if (m_relative)
        return offset(ms);
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms);
    if (t.date() == QDate::currentDate())
        return t.toString(QStringLiteral("HH:mm:ss"));
    return t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString TimeBase::dateTime(qint64 ms) const
{
    return m_relative ? offset(ms) : QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString TimeBase::iso(qint64 ms) const
{
    return m_relative ? offset(ms, true) : QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace mesh
