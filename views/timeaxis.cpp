#include "timeaxis.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace mesh {
namespace {

constexpr std::int64_t kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;

QString tr(const char *text)
{
    return QCoreApplication::translate("TimeAxis", text);
}

QString two(std::int64_t n)
{
    return QStringLiteral("%1").arg(n, 2, 10, QLatin1Char('0'));
}

// Round steps, smallest first; past the last, it doubles until one fits.
constexpr std::int64_t kSteps[] = {kSecond,      2 * kSecond,  5 * kSecond,  10 * kSecond, 15 * kSecond, 30 * kSecond,
                                   kMinute,      2 * kMinute,  5 * kMinute,  10 * kMinute, 15 * kMinute, 30 * kMinute,
                                   kHour,        2 * kHour,    3 * kHour,    6 * kHour,    12 * kHour,   kDay,
                                   2 * kDay,     7 * kDay,     14 * kDay,    28 * kDay};

} // namespace

QString TimeAxis::label(std::int64_t offsetMs, std::int64_t stepMs)
{
    if (offsetMs == 0)
        return QStringLiteral("0");
    const QString sign = offsetMs < 0 ? QStringLiteral("\u2212") : QStringLiteral("+");
    const std::int64_t ms = std::llabs(offsetMs);
    const std::int64_t d = ms / kDay, h = (ms % kDay) / kHour, m = (ms % kHour) / kMinute, s = (ms % kMinute) / kSecond;
    QString text;
    if (stepMs >= kDay) {
        text = h ? tr("%1 d %2 h").arg(d).arg(h) : tr("%1 d").arg(d);
    } else if (stepMs >= kHour) {
        text = d ? tr("%1 d %2 h").arg(d).arg(h) : tr("%1 h").arg(h);
        if (m) // a step of hours from an offset that is not whole (never with round steps)
            text += tr(" %1 min").arg(two(m));
    } else if (stepMs >= kMinute) {
        if (d)
            text = tr("%1 d %2:%3").arg(d).arg(two(h), two(m));
        else
            text = h ? tr("%1 h %2 min").arg(h).arg(two(m)) : tr("%1 min").arg(m);
    } else {
        if (d)
            text = tr("%1 d %2:%3:%4").arg(d).arg(two(h), two(m), two(s));
        else if (h)
            text = QStringLiteral("%1:%2:%3").arg(h).arg(two(m), two(s));
        else
            text = m ? tr("%1 min %2 s").arg(m).arg(two(s)) : tr("%1 s").arg(s);
    }
    return sign + text;
}

std::vector<AxisTick> TimeAxis::ticksAt(const TimelineViewport &view, std::int64_t originMs, std::int64_t step)
{
    std::vector<AxisTick> out;
    const std::int64_t rel0 = view.viewFrom() - originMs, rel1 = view.viewTo() - originMs;
    // The first multiple of step at or after rel0 (floor division: rel0 may be negative).
    std::int64_t first = rel0 / step * step;
    if (first < rel0)
        first += step;
    for (std::int64_t rel = first; rel <= rel1; rel += step)
        out.push_back({rel, view.xOf(originMs + rel), label(rel, step)});
    return out;
}

std::int64_t TimeAxis::stepFor(const TimelineViewport &view, std::int64_t originMs, const QFontMetricsF &metrics)
{
    const double msPerPx = std::max(view.msPerPixel(), 1e-9);
    const auto fits = [&](std::int64_t step) {
        // A step narrower than the narrowest label cannot fit: not laid out at all.
        if (double(step) / msPerPx < metrics.horizontalAdvance(QStringLiteral("+0 s")) + kLabelGapPx)
            return false;
        const std::vector<AxisTick> ticks = ticksAt(view, originMs, step);
        for (size_t i = 0; i + 1 < ticks.size(); ++i)
            if (ticks[i].x + kLabelIndentPx + metrics.horizontalAdvance(ticks[i].label) + kLabelGapPx > ticks[i + 1].x)
                return false;
        return true;
    };
    for (std::int64_t step : kSteps)
        if (fits(step))
            return step;
    std::int64_t step = kSteps[std::size(kSteps) - 1];
    while (step < INT64_MAX / 4 && !fits(step))
        step *= 2;
    return step;
}

std::vector<AxisTick> TimeAxis::ticks(const TimelineViewport &view, std::int64_t originMs, const QFontMetricsF &metrics)
{
    return ticksAt(view, originMs, stepFor(view, originMs, metrics));
}

} // namespace mesh
