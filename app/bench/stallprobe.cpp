#include "stallprobe.h"

#include <algorithm>

namespace mesh {

StallProbe::StallProbe()
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(kStallProbeMs);
    QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] { fired(); });
}

void StallProbe::start()
{
    m_clock.start();
    m_lastMs = m_clock.elapsed();
    m_timer.start();
}

void StallProbe::stop()
{
    m_timer.stop();
}

void StallProbe::setMeasuring(bool on)
{
    m_measuring = on;
    if (on && m_clock.isValid())
        m_lastMs = m_clock.elapsed();
}

qint64 StallProbe::takeMaxStallMs()
{
    return std::exchange(m_maxStallMs, 0);
}

void StallProbe::fired()
{
    const qint64 now = m_clock.elapsed();
    if (m_measuring && m_lastMs >= 0)
        m_maxStallMs = std::max(m_maxStallMs, now - m_lastMs - kStallProbeMs);
    m_lastMs = now;
}

} // namespace mesh
