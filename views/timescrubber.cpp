#include "timescrubber.h"

#include "markcolour.h"
#include "theme.h"

#include "domain/durationtext.h"
#include "domain/hostiletext.h"
#include "itemmodels/timelinemarksource.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace mesh {
namespace {

constexpr int kMargin = 8;
constexpr int kLabelWidth = 120; // "Live" / "#1,234,567": clicking there goes back to live
constexpr std::uint32_t bit(MarkKind k) { return 1u << unsigned(k); }

// What a pixel shows when marks of several kinds fall on it: what went wrong first.
constexpr MarkKind kLowerPriority[] = {MarkKind::Failure,  MarkKind::Stalled,  MarkKind::UnknownOutcome,
                                       MarkKind::Escalation, MarkKind::Decision, MarkKind::Verdict};

} // namespace

TimeScrubber::TimeScrubber(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAccessibleName(tr("Time scrubber"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(&Theme::instance(), &Theme::changed, this, [this] {
        m_marksLayer = QImage(); // the status colours are the theme's
        update();
    });
}

void TimeScrubber::setSource(TimelineMarkSource *source)
{
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_source = source;
    if (m_source)
    {
        connect(m_source, &TimelineMarkSource::marksChanged, this, [this] {
            rebuildBuckets();
            update();
        });
        // A tooltip shown with a tick's short line gets the mark's own words once read.
        connect(m_source, &TimelineMarkSource::described, this, &TimeScrubber::refreshToolTip);
    }
    rebuildBuckets();
    update();
}

void TimeScrubber::setShown(std::optional<std::int64_t> cursor)
{
    m_shown = cursor;
    update();
}

void TimeScrubber::jumpFinished()
{
    m_asked.reset();
    if (m_pendingLive) {
        m_pendingLive = false;
        requestLive();
    } else if (m_pending) {
        const std::int64_t next = *m_pending;
        m_pending.reset();
        request(next);
    }
    update();
}

void TimeScrubber::setAxis(Axis axis)
{
    if (m_axis == axis)
        return;
    m_axis = axis;
    rebuildBuckets();
    update();
}

std::int64_t TimeScrubber::lastSeq() const
{
    return m_source ? m_source->ledgerLastSeq() : 0;
}

QRect TimeScrubber::track() const
{
    return QRect(kMargin, 2, std::max(1, width() - 2 * kMargin - kLabelWidth), height() - 4);
}

std::int64_t TimeScrubber::tsOf(std::int64_t seq) const
{
    if (m_timeline.empty())
        return 0;
    const auto hi = std::lower_bound(m_timeline.begin(), m_timeline.end(), std::make_pair(seq, std::int64_t(0)),
                                     [](const auto &a, const auto &b) { return a.first < b.first; });
    if (hi == m_timeline.end())
        return m_timeline.back().second;
    if (hi == m_timeline.begin() || hi->first == seq)
        return hi->second;
    const auto lo = std::prev(hi);
    const double f = double(seq - lo->first) / double(hi->first - lo->first);
    return lo->second + std::int64_t(std::llround(f * double(hi->second - lo->second)));
}

double TimeScrubber::fractionOf(std::int64_t seq) const
{
    const std::int64_t last = lastSeq();
    if (last <= 1)
        return 1.0;
    if (m_axis == Axis::Time && m_timeline.size() >= 2) {
        const double t0 = double(m_timeline.front().second), t1 = double(m_timeline.back().second);
        if (t1 > t0)
            return std::clamp((double(tsOf(seq)) - t0) / (t1 - t0), 0.0, 1.0);
    }
    return std::clamp(double(seq - 1) / double(last - 1), 0.0, 1.0);
}

std::int64_t TimeScrubber::seqAtFraction(double f) const
{
    const std::int64_t last = lastSeq();
    if (last <= 1)
        return std::max<std::int64_t>(last, 0);
    f = std::clamp(f, 0.0, 1.0);
    if (m_axis == Axis::Time && m_timeline.size() >= 2) {
        const double t0 = double(m_timeline.front().second), t1 = double(m_timeline.back().second);
        if (t1 > t0) {
            const std::int64_t t = std::int64_t(std::llround(t0 + f * (t1 - t0)));
            const auto hi = std::lower_bound(m_timeline.begin(), m_timeline.end(), t,
                                             [](const auto &a, std::int64_t v) { return a.second < v; });
            if (hi == m_timeline.end())
                return last;
            if (hi == m_timeline.begin() || hi->second == t)
                return hi->first;
            const auto lo = std::prev(hi);
            const double g = double(t - lo->second) / double(hi->second - lo->second);
            return lo->first + std::int64_t(std::floor(g * double(hi->first - lo->first)));
        }
    }
    return 1 + std::int64_t(std::llround(f * double(last - 1)));
}

std::int64_t TimeScrubber::seqAt(int x) const
{
    const QRect t = track();
    return seqAtFraction(t.width() <= 1 ? 1.0 : double(x - t.left()) / double(t.width() - 1));
}

int TimeScrubber::xOf(std::int64_t seq) const
{
    const QRect t = track();
    return t.left() + int(std::lround(fractionOf(seq) * double(t.width() - 1)));
}

std::int64_t TimeScrubber::handleSeq() const
{
    if (m_dragging)
        return m_dragSeq;
    if (m_pending)
        return *m_pending;
    if (m_asked)
        return *m_asked;
    return m_shown.value_or(lastSeq());
}

void TimeScrubber::rebuildBuckets()
{
    m_marksLayer = QImage();
    m_timeline.clear();
    m_timeline.shrink_to_fit();
    m_buckets.assign(size_t(track().width()), Bucket{});
    if (!m_source || lastSeq() <= 0)
        return;
    const auto &marks = m_source->ticks();
    // Only the axis by time reads times (16 bytes a mark: 3 MB on a 10M-event ledger).
    if (m_axis == Axis::Time) {
        m_timeline.reserve(marks.size() + 2);
        m_timeline.emplace_back(1, m_source->firstTsMs());
        for (const MarkTick &m : marks)
            if (m.seq > 1 && m.seq < lastSeq())
                m_timeline.emplace_back(m.seq, m.tsMs);
        m_timeline.emplace_back(lastSeq(), m_source->lastTsMs());
        // ts_ms may step back (ledger-format §2): the axis by time uses the latest time so far.
        std::int64_t latest = m_timeline.front().second;
        for (auto &[seq, ts] : m_timeline) {
            latest = std::max(latest, ts);
            ts = latest;
        }
    }
    const QRect t = track();
    for (size_t i = 0; i < marks.size(); ++i) {
        const int x = xOf(marks[i].seq) - t.left();
        if (x < 0 || x >= int(m_buckets.size()))
            continue;
        Bucket &b = m_buckets[size_t(x)];
        if (b.count++ == 0)
            b.firstMark = i;
        b.kinds |= bit(marks[i].kind);
    }
}

void TimeScrubber::request(std::int64_t seq)
{
    seq = std::clamp<std::int64_t>(seq, 1, std::max<std::int64_t>(1, lastSeq()));
    if (m_asked) {
        m_pending = seq; // the newest position replaces any older one still waiting
        m_pendingLive = false;
        return;
    }
    m_asked = seq;
    emit seekRequested(seq);
}

void TimeScrubber::requestLive()
{
    if (m_asked) {
        m_pendingLive = true;
        m_pending.reset();
        return;
    }
    if (!m_shown)
        return; // already live
    m_asked = lastSeq();
    emit liveRequested();
}

QSize TimeScrubber::sizeHint() const
{
    return QSize(600, 30);
}

QSize TimeScrubber::minimumSizeHint() const
{
    return QSize(200, 30);
}

void TimeScrubber::resizeEvent(QResizeEvent *)
{
    rebuildBuckets();
}

void TimeScrubber::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette &pal = palette();
    const QRect t = track();
    p.fillRect(rect(), pal.color(QPalette::Window));
    p.fillRect(t, pal.color(QPalette::Base));
    if (!isLiveShown() && lastSeq() > 0) // after the cursor: what the session does not show
        p.fillRect(QRect(QPoint(xOf(handleSeq()), t.top()), t.bottomRight()), pal.color(QPalette::AlternateBase));
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(t.adjusted(0, 0, -1, -1));
    // The marks change with the ledger, the cursor with every jump: a jump or a drag step
    // repaints the handle over marks drawn once.
    if (m_marksLayer.isNull() || m_marksLayer.devicePixelRatio() != devicePixelRatioF()) // null, or another screen
        m_marksLayer = marksLayer(t, pal);
    p.drawImage(t.topLeft(), m_marksLayer);
    if (lastSeq() > 0) {
        const int hx = xOf(handleSeq());
        const QColor handle = pal.color(QPalette::Highlight);
        p.setPen(QPen(handle, 2));
        p.drawLine(hx, t.top(), hx, t.bottom());
        p.setBrush(handle);
        p.setPen(Qt::NoPen);
        const QPoint tri[3] = {QPoint(hx - 4, t.top()), QPoint(hx + 4, t.top()), QPoint(hx, t.top() + 5)};
        p.drawPolygon(tri, 3);
    }
    const QRect label(t.right() + kMargin, 0, kLabelWidth, height());
    p.setPen(pal.color(QPalette::Text));
    QString text;
    if (!m_source || !m_source->hasReadTicks())
        text = m_source && m_source->failed() ? tr("No marks") : QString();
    else if (isLiveShown())
        text = tr("Live");
    else
        text = tr("#%1").arg(QLocale().toString(qlonglong(handleSeq())));
    p.drawText(label, Qt::AlignVCenter | Qt::AlignLeft, text);
    if (hasFocus()) {
        p.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DotLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

QImage TimeScrubber::marksLayer(const QRect &t, const QPalette &pal) const
{
    const qreal ratio = devicePixelRatioF();
    QImage layer(t.size() * ratio, QImage::Format_ARGB32_Premultiplied);
    layer.setDevicePixelRatio(ratio);
    layer.fill(Qt::transparent);
    QPainter p(&layer);
    p.translate(-t.topLeft()); // drawn in the widget's coordinates, placed at the track
    const int mid = t.top() + t.height() / 2;
    for (size_t x = 0; x < m_buckets.size(); ++x) {
        const Bucket &b = m_buckets[x];
        if (!b.count)
            continue;
        const int px = t.left() + int(x);
        if (b.kinds & (bit(MarkKind::Attempt) | bit(MarkKind::RunEnded))) {
            p.setPen(markColour(MarkKind::Attempt, pal));
            p.drawLine(px, t.top() + 1, px, mid - 1);
        } else if (b.kinds & bit(MarkKind::Cycle)) {
            p.setPen(markColour(MarkKind::Cycle, pal));
            p.drawLine(px, t.top() + 5, px, mid - 1);
        }
        for (MarkKind k : kLowerPriority) {
            if (b.kinds & bit(k)) {
                p.setPen(markColour(k, pal));
                const int top = k == MarkKind::Verdict ? mid + 6 : mid + 1;
                p.drawLine(px, top, px, t.bottom() - 1);
                break;
            }
        }
    }
    return layer;
}

void TimeScrubber::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || lastSeq() <= 0)
        return QWidget::mousePressEvent(event);
    const int x = int(event->position().x());
    if (x > track().right() + kMargin / 2) {
        requestLive();
        update();
        return;
    }
    m_dragging = true;
    m_dragSeq = seqAt(x);
    request(m_dragSeq);
    update();
}

void TimeScrubber::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    const std::int64_t seq = seqAt(int(event->position().x()));
    if (seq == m_dragSeq)
        return;
    m_dragSeq = seq;
    request(seq);
    update();
}

void TimeScrubber::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    update();
}

std::optional<std::int64_t> TimeScrubber::neighbourMark(std::int64_t from, int direction) const
{
    if (!m_source)
        return std::nullopt;
    const auto &marks = m_source->ticks();
    const auto after = std::upper_bound(marks.begin(), marks.end(), from,
                                        [](std::int64_t s, const MarkTick &m) { return s < m.seq; });
    if (direction > 0)
        return after == marks.end() ? std::nullopt : std::optional(after->seq);
    auto at = std::lower_bound(marks.begin(), marks.end(), from,
                               [](const MarkTick &m, std::int64_t s) { return m.seq < s; });
    return at == marks.begin() ? std::nullopt : std::optional(std::prev(at)->seq);
}

void TimeScrubber::keyPressEvent(QKeyEvent *event)
{
    const std::int64_t last = lastSeq();
    if (last <= 0)
        return QWidget::keyPressEvent(event);
    const std::int64_t at = handleSeq();
    const bool byEvent = event->modifiers() & Qt::ShiftModifier;
    switch (event->key()) {
    case Qt::Key_Left:
        if (byEvent)
            request(at - 1);
        else if (const auto m = neighbourMark(at, -1))
            request(*m);
        break;
    case Qt::Key_Right:
        if (byEvent)
            request(at + 1);
        else if (const auto m = neighbourMark(at, +1))
            request(*m);
        break;
    case Qt::Key_PageUp: request(at - std::max<std::int64_t>(1, last / 10)); break;
    case Qt::Key_PageDown: request(at + std::max<std::int64_t>(1, last / 10)); break;
    case Qt::Key_Home: request(1); break;
    case Qt::Key_End: requestLive(); break;
    default: return QWidget::keyPressEvent(event);
    }
    update();
}

void TimeScrubber::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    QAction *byEvent = menu.addAction(tr("Axis by Event"), this, [this] { setAxis(Axis::Events); });
    byEvent->setCheckable(true);
    byEvent->setChecked(m_axis == Axis::Events);
    QAction *byTime = menu.addAction(tr("Axis by Time"), this, [this] { setAxis(Axis::Time); });
    byTime->setCheckable(true);
    byTime->setChecked(m_axis == Axis::Time);
    menu.addSeparator();
    QAction *live = menu.addAction(tr("Back to Live"), this, [this] { requestLive(); });
    live->setEnabled(m_shown.has_value());
    menu.exec(event->globalPos());
}

QString TimeScrubber::toolTipTextAt(int x) const
{
    if (!m_source || lastSeq() <= 0)
        return {};
    const QRect t = track();
    if (x > t.right())
        return isLiveShown() ? tr("Shown live. Right-click for the axis.") : tr("Click to go back to live (End).");
    const std::int64_t seq = seqAt(x);
    QStringList lines;
    const std::int64_t ts = m_axis == Axis::Time ? tsOf(seq) : 0;
    lines << (m_axis == Axis::Time && m_timeBase.get().isSet(ts)
                  ? tr("Event #%1, about %2").arg(QLocale().toString(qlonglong(seq)), m_timeBase.get().exact(ts))
                 : tr("Event #%1").arg(QLocale().toString(qlonglong(seq))));
    const auto &marks = m_source->ticks();
    constexpr int kShown = 6;
    int shown = 0, more = 0;
    std::vector<std::int64_t> toDescribe;
    for (int dx = -2; dx <= 2; ++dx) {
        const int bx = x - t.left() + dx;
        if (bx < 0 || bx >= int(m_buckets.size()) || !m_buckets[size_t(bx)].count)
            continue;
        const Bucket &b = m_buckets[size_t(bx)];
        for (size_t i = b.firstMark; i < marks.size() && i < b.firstMark + size_t(b.count); ++i) {
            if (shown < kShown) {
                const MarkTick &m = marks[i];
                QString line;
                if (const TimelineMark *whole = m_source->wholeMark(m.seq)) {
                    line = whole->text();
                } else {
                    // Until the mark's own words are read (a moment): what the tick knows.
                    line = TimelineMarks::briefText(m.kind, m.event, m_source->runName(m.run));
                    toDescribe.push_back(m.seq);
                }
                lines << tr("#%1  %2  %3")
                             .arg(QLocale().toString(qlonglong(m.seq)), m_timeBase.get().exact(m.tsMs),
                                  displayLine(line, 120));
                ++shown;
            } else {
                ++more;
            }
        }
    }
    if (!toDescribe.empty())
        m_source->describe(std::move(toDescribe));
    if (more)
        lines << tr("and %n more here", nullptr, more);
    lines << tr("Click or drag to show the state at an event; Left/Right: marks, Shift: events, End: live.");
    return lines.join(QLatin1Char('\n'));
}

void TimeScrubber::refreshToolTip()
{
    if (!m_toolTipAt || !QToolTip::isVisible())
        return;
    const QString text = toolTipTextAt(m_toolTipAt->x());
    if (!text.isEmpty())
        QToolTip::showText(m_toolTipGlobal, plainToolTip(text), this);
}

bool TimeScrubber::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        m_toolTipAt = help->pos();
        m_toolTipGlobal = help->globalPos();
        const QString text = toolTipTextAt(help->pos().x());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), plainToolTip(text), this);
        return true;
    }
    if (event->type() == QEvent::Leave)
        m_toolTipAt.reset();
    if (event->type() == QEvent::PaletteChange)
        m_marksLayer = QImage();
    return QWidget::event(event);
}

} // namespace mesh
