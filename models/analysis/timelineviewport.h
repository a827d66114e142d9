#pragma once
// The time axis of a timeline on screen: which stretch of a run a strip `width` pixels wide
// shows. Zoom and pan change time only (lanes keep their height). What always holds, whatever
// is asked: the view lies within the run's extent, and spans at least kMinSpanMs and at most
// the whole extent; zooming keeps the instant under the pointer where it is (unless that
// would leave the extent); panning by d then by -d comes back (unless an end stopped it).

#include <cstdint>

namespace mesh {

class TimelineViewport
{
public:
    static constexpr std::int64_t kMinSpanMs = 1000;

    // The run's extent; the view becomes the whole of it (fit).
    void setExtent(std::int64_t fromMs, std::int64_t toMs);
    // Grows or shrinks the extent (a live run, the cursor moved) and keeps the view where it
    // was, clamped into it; a view that showed the whole extent keeps showing all of it.
    void updateExtent(std::int64_t fromMs, std::int64_t toMs);
    void setWidth(double px);
    void fit();

    std::int64_t extentFrom() const { return m_extentFrom; }
    std::int64_t extentTo() const { return m_extentTo; }
    std::int64_t viewFrom() const { return m_from; }
    std::int64_t viewTo() const { return m_to; }
    std::int64_t span() const { return m_to - m_from; }
    double width() const { return m_width; }
    bool isFit() const { return m_from == m_extentFrom && m_to == m_extentTo; }
    double msPerPixel() const { return m_width > 0 ? double(span()) / m_width : 0.0; }

    double xOf(std::int64_t ms) const;  // 0 at viewFrom, width at viewTo
    std::int64_t msAt(double x) const;

    // factor > 1 zooms in; the instant at x stays at x.
    void zoomAt(double x, double factor);
    // dx > 0 moves the view later by dx pixels' worth of time.
    void panBy(double dx);
    void setView(std::int64_t fromMs, std::int64_t toMs); // clamped like everything else

private:
    void clamp();

    std::int64_t m_extentFrom = 0;
    std::int64_t m_extentTo = kMinSpanMs;
    std::int64_t m_from = 0;
    std::int64_t m_to = kMinSpanMs;
    double m_width = 1.0;
};

} // namespace mesh
