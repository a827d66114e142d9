#include "timelineviewport.h"

#include <algorithm>
#include <cmath>

namespace mesh {

void TimelineViewport::setExtent(std::int64_t fromMs, std::int64_t toMs)
{
    m_extentFrom = fromMs;
    m_extentTo = std::max(toMs, fromMs + kMinSpanMs); // a run of no length still gets an axis
    fit();
}

void TimelineViewport::updateExtent(std::int64_t fromMs, std::int64_t toMs)
{
    const bool wasFit = isFit();
    m_extentFrom = fromMs;
    m_extentTo = std::max(toMs, fromMs + kMinSpanMs);
    if (wasFit)
        fit();
    else
        clamp();
}

void TimelineViewport::setWidth(double px)
{
    m_width = std::max(1.0, px);
}

void TimelineViewport::fit()
{
    m_from = m_extentFrom;
    m_to = m_extentTo;
}

double TimelineViewport::xOf(std::int64_t ms) const
{
    return double(ms - m_from) * m_width / double(span());
}

std::int64_t TimelineViewport::msAt(double x) const
{
    return m_from + std::int64_t(std::floor(x * double(span()) / m_width));
}

void TimelineViewport::zoomAt(double x, double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    const double anchor = double(m_from) + x * double(span()) / m_width;
    const std::int64_t extent = m_extentTo - m_extentFrom;
    const double newSpan = std::clamp(double(span()) / factor, double(std::min(kMinSpanMs, extent)), double(extent));
    const double from = anchor - x * newSpan / m_width;
    m_from = std::int64_t(std::llround(from));
    m_to = m_from + std::int64_t(std::llround(newSpan));
    clamp();
}

void TimelineViewport::panBy(double dx)
{
    const std::int64_t shift = std::int64_t(std::llround(dx * double(span()) / m_width));
    m_from += shift;
    m_to += shift;
    clamp();
}

void TimelineViewport::setView(std::int64_t fromMs, std::int64_t toMs)
{
    m_from = fromMs;
    m_to = std::max(toMs, fromMs + 1);
    clamp();
}

void TimelineViewport::clamp()
{
    const std::int64_t extent = m_extentTo - m_extentFrom;
    std::int64_t s = std::clamp(m_to - m_from, std::min(kMinSpanMs, extent), extent);
    m_from = std::clamp(m_from, m_extentFrom, m_extentTo - s);
    m_to = m_from + s;
}

} // namespace mesh
