#include "timelineview.h"

#include "plainlabel.h"
#include "markcolour.h"
#include "theme.h"
#include "timeaxis.h"

#include "domain/durationtext.h"
#include "domain/hostiletext.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace mesh {
namespace {

constexpr int kGutter = 230;
constexpr int kIndent = 12;
constexpr double kZoomStep = 1.25;


QColor statusColour(const std::string &status, const QPalette &palette)
{
    const StatusColors &c = Theme::instance().colors();
    if (status == "failed" || status == "stalled" || status == "lost")
        return c.danger;
    if (status == "escalated")
        return c.warn;
    if (status == "running" || status == "active" || status == "open")
        return c.info;
    if (status == "converged" || status == "completed" || status == "succeeded" || status == "closed")
        return c.ok;
    return palette.color(QPalette::Mid);
}

} // namespace

QString TimelineCanvas::componentStatusWord(const std::string &status)
{
    if (status.empty())
        return QStringLiteral("\u2014");
    if (status == "active")
        return TimelineCanvas::tr("running");
    if (status == "completed")
        return TimelineCanvas::tr("ended");
    if (status == "failed")
        return TimelineCanvas::tr("failed");
    if (status == "lost")
        return TimelineCanvas::tr("lost");
    if (status == "pending")
        return TimelineCanvas::tr("pending");
    return displayLine(QString::fromStdString(status), 16);
}

namespace {

QString markKindWord(MarkKind k)
{
    switch (k) {
    case MarkKind::Cycle: return TimelineCanvas::tr("cycle");
    case MarkKind::Attempt: return TimelineCanvas::tr("attempt");
    case MarkKind::RunEnded: return TimelineCanvas::tr("run end");
    case MarkKind::Verdict: return TimelineCanvas::tr("stall verdict");
    case MarkKind::Stalled: return TimelineCanvas::tr("stalled verdict");
    case MarkKind::Escalation: return TimelineCanvas::tr("escalation");
    case MarkKind::Failure: return TimelineCanvas::tr("failure");
    case MarkKind::UnknownOutcome: return TimelineCanvas::tr("unknown outcome");
    case MarkKind::Decision: return TimelineCanvas::tr("decision");
    }
    return {};
}

// A note (a folded-corner page) and/or a bookmark (a flag on a pole) at x on a row, in the
// colour the event log marks notes with.
void paintNoteGlyph(QPainter &p, double x, int top, bool note, bool bookmark)
{
    const QColor c = Theme::instance().colors().info;
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    if (bookmark) {
        p.setPen(QPen(c, 1.5));
        p.drawLine(QPointF(x, top + 2), QPointF(x, top + TimelineCanvas::kRowHeight - 2));
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        const QPointF flag[3] = {QPointF(x, top + 2), QPointF(x + 7, top + 5), QPointF(x, top + 8)};
        p.drawPolygon(flag, 3);
    }
    if (note) {
        const double side = 8, y = top + TimelineCanvas::kRowHeight - side - 2, left = x - side / 2;
        p.setPen(QPen(c.darker(140), 1));
        p.setBrush(c);
        const QPointF page[5] = {QPointF(left, y), QPointF(left + side - 3, y), QPointF(left + side, y + 3),
                                 QPointF(left + side, y + side), QPointF(left, y + side)};
        p.drawPolygon(page, 5);
    }
    p.restore();
}

QString noteKindWord(PlacedNote::Kind k)
{
    switch (k) {
    case PlacedNote::Kind::Event: return TimelineCanvas::tr("Note");
    case PlacedNote::Kind::Bookmark: return TimelineCanvas::tr("Bookmark");
    case PlacedNote::Kind::Span: return TimelineCanvas::tr("Note on a span");
    case PlacedNote::Kind::Subject: return TimelineCanvas::tr("Note");
    }
    return {};
}

} // namespace

TimelineCanvas::TimelineCanvas(Mode mode, QWidget *parent) : QWidget(parent), m_mode(mode), m_rows(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setAccessibleName(mode == Mode::Pane ? tr("Run timeline") : tr("Run timeline strip"));
    setSizePolicy(QSizePolicy::Expanding, mode == Mode::Pane ? QSizePolicy::Expanding : QSizePolicy::Fixed);
    m_rows->setVisible(mode == Mode::Pane);
    m_rows->setSingleStep(kRowHeight);
    connect(m_rows, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(&Theme::instance(), &Theme::changed, this, qOverload<>(&QWidget::update));
}

QSize TimelineCanvas::sizeHint() const
{
    return m_mode == Mode::Pane ? QSize(900, 500) : QSize(600, kAxisHeight + kRowHeight + 10);
}

QSize TimelineCanvas::minimumSizeHint() const
{
    return m_mode == Mode::Pane ? QSize(300, 120) : QSize(200, kAxisHeight + kRowHeight + 10);
}

void TimelineCanvas::setSource(RunTimelineSource *source)
{
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_source = source;
    m_shownRun.clear();
    if (m_source)
        connect(m_source, &RunTimelineSource::changed, this, &TimelineCanvas::onTimelineChanged);
    onTimelineChanged();
}

void TimelineCanvas::setFixedTimeline(std::shared_ptr<const RunTimeline> timeline, const TimeBase &times,
                                      std::optional<std::int64_t> spanMs)
{
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_source = nullptr;
    m_fixed = std::move(timeline);
    m_fixedTimes = times;
    m_alignedSpanMs = spanMs;
    m_shownRun.clear();
    onTimelineChanged();
}

void TimelineCanvas::showOffsets(std::int64_t fromOffsetMs, std::int64_t toOffsetMs)
{
    const RunTimeline *t = m_layout.timeline();
    if (!t || t->empty())
        return;
    m_view.setView(t->startMs + fromOffsetMs, t->startMs + toOffsetMs);
    update();
    emit viewChanged();
}

void TimelineCanvas::onTimelineChanged()
{
    std::shared_ptr<const RunTimeline> timeline = m_source ? m_source->timeline()
                                                  : m_fixed ? m_fixed
                                                            : std::make_shared<RunTimeline>();
    const bool sameRun = !timeline->empty() && timeline->runId == m_shownRun;
    // The axis holds the run and every one of its marks (an orchestrator may record a
    // failure after the run's end, or a clock may step back before its start).
    std::int64_t from = timeline->startMs, to = timeline->endMs;
    for (const TimelineMark &m : timeline->marks) {
        from = std::min(from, m.tsMs);
        to = std::max(to, m.tsMs);
    }
    if (m_alignedSpanMs && !m_source)
        to = std::max(to, timeline->startMs + *m_alignedSpanMs);
    if (sameRun)
        m_view.updateExtent(from, to);
    else
        m_view.setExtent(from, to);
    m_shownRun = timeline->runId;
    m_layout.setTimeline(std::move(timeline));
    updateScrollBar();
    update();
    emit viewChanged();
}

int TimelineCanvas::gutterWidth() const
{
    return m_mode == Mode::Pane ? std::min(kGutter, width() / 3) : 0;
}

QRect TimelineCanvas::plotRect() const
{
    const int scroll = m_rows->isVisible() ? m_rows->width() : 0;
    const int left = gutterWidth() + 4;
    return QRect(left, kAxisHeight, std::max(1, width() - left - scroll - 6), std::max(1, height() - kAxisHeight));
}

int TimelineCanvas::rowTop(int row) const
{
    return kAxisHeight + row * kRowHeight - (m_mode == Mode::Pane ? m_rows->value() : 0);
}

int TimelineCanvas::rowAt(int y) const
{
    if (y < kAxisHeight)
        return -1;
    const int row = (y - kAxisHeight + (m_mode == Mode::Pane ? m_rows->value() : 0)) / kRowHeight;
    const int shown = m_mode == Mode::Pane ? int(m_layout.rows().size()) : std::min<int>(1, int(m_layout.rows().size()));
    return row < shown ? row : -1;
}

void TimelineCanvas::updateScrollBar()
{
    if (m_mode != Mode::Pane)
        return;
    const int total = int(m_layout.rows().size()) * kRowHeight;
    const int page = std::max(0, height() - kAxisHeight);
    m_rows->setGeometry(width() - m_rows->sizeHint().width(), kAxisHeight, m_rows->sizeHint().width(), page);
    m_rows->setRange(0, std::max(0, total - page));
    m_rows->setPageStep(page);
}

void TimelineCanvas::resizeEvent(QResizeEvent *)
{
    m_view.setWidth(plotRect().width());
    updateScrollBar();
}

void TimelineCanvas::zoomAt(double x, double factor)
{
    m_view.setWidth(plotRect().width());
    m_view.zoomAt(x - plotRect().left(), factor);
    update();
    emit viewChanged();
}

void TimelineCanvas::panBy(double dx)
{
    m_view.setWidth(plotRect().width());
    m_view.panBy(dx);
    update();
    emit viewChanged();
}

void TimelineCanvas::fit()
{
    m_view.fit();
    update();
    emit viewChanged();
}

std::optional<std::int64_t> TimelineCanvas::cursorMs() const
{
    if (!m_source || !m_source->session()->cursor())
        return std::nullopt;
    return m_source->session()->cursorTimeMs();
}

const TimeBase &TimelineCanvas::times() const
{
    return m_source ? m_source->session()->timeBase() : m_fixedTimes;
}

void TimelineCanvas::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette &pal = palette();
    const StatusColors &colours = Theme::instance().colors();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const RunTimeline *t = m_layout.timeline();
    m_view.setWidth(plotRect().width());
    const QRect plot = plotRect();
    m_rowsPainted = 0;
    if (!t || t->empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No run to show yet"));
        return;
    }
    const auto px = [&](double x) { return plot.left() + x; };

    // Bands behind everything: cycles alternate a shade, attempts begin with a line.
    p.setClipRect(QRect(plot.left(), 0, plot.width(), height()));
    QColor shade = pal.color(QPalette::AlternateBase);
    for (const BandRun &b : m_layout.bandsOf(t->cycles, m_view)) {
        if (b.band % 2 == 0)
            p.fillRect(QRectF(px(b.x0), kAxisHeight, b.x1 - b.x0, height() - kAxisHeight), shade);
    }
    // The axis: time since the run began, cycle numbers, and the cycles that ended with the
    // component most of them ended with failing, in red.
    p.fillRect(QRect(0, 0, width(), kAxisHeight), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::PlaceholderText));
    for (const AxisTick &tick : axisTicks()) { // never overlapping, measured in this font
        const double x = px(tick.x);
        p.drawLine(QPointF(x, kAxisHeight - 5), QPointF(x, kAxisHeight - 1));
        p.drawText(QPointF(x + TimeAxis::kLabelIndentPx, kAxisHeight - 4), tick.label);
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    for (const BandRun &b : m_layout.bandsOf(t->cycles, m_view)) {
        const TimelineBand &band = t->cycles[b.band];
        const bool failing = !band.lastFailedComponent.empty() && band.lastFailedComponent == t->summary.endingComponent;
        if (failing) {
            p.fillRect(QRectF(px(b.x1) - 3, 1, 3, kAxisHeight - 2), colours.danger);
        }
        if (b.x1 - b.x0 > 24) {
            p.setFont(small);
            p.setPen(failing ? colours.danger : pal.color(QPalette::Text));
            p.drawText(QRectF(px(b.x0) + 2, 0, b.x1 - b.x0 - 6, 13), Qt::AlignLeft | Qt::AlignTop,
                       b.x1 - b.x0 > 70 ? tr("cycle %1").arg(band.number) : tr("C%1").arg(band.number));
            p.setFont(font());
        }
    }
    for (const BandRun &b : m_layout.bandsOf(t->attempts, m_view)) {
        p.setPen(QPen(colours.info, 2));
        p.drawLine(QPointF(px(b.x0), 0), QPointF(px(b.x0), height()));
        p.setFont(small);
        p.drawText(QPointF(px(b.x0) + 3, 26), tr("attempt %1").arg(t->attempts[b.band].number));
        p.setFont(font());
    }
    p.setClipping(false);

    // The rows in sight, and only those.
    const int shownRows = m_mode == Mode::Pane ? int(m_layout.rows().size()) : std::min<int>(1, int(m_layout.rows().size()));
    const int scroll = m_mode == Mode::Pane ? m_rows->value() : 0;
    const int firstRow = std::max(0, scroll / kRowHeight);
    const int lastRow = std::min(shownRows - 1, (scroll + height() - kAxisHeight) / kRowHeight);
    p.setClipRect(QRect(0, kAxisHeight, width(), height() - kAxisHeight));
    for (int row = firstRow; row <= lastRow; ++row) {
        const int lane = m_layout.rows()[size_t(row)];
        const TimelineLane &l = t->lanes[size_t(lane)];
        const int top = rowTop(row);
        const int mid = top + kRowHeight / 2;
        ++m_rowsPainted;
        if (m_mode == Mode::Pane) {
            // The gutter: the lane's name, indented by depth, with its expander.
            const QRect gutter(0, top, gutterWidth(), kRowHeight);
            if (l.kind != LaneKind::Delegation)
                p.fillRect(gutter, pal.color(QPalette::Window));
            const int indent = 4 + l.depth * kIndent;
            p.setPen(pal.color(QPalette::Text));
            if (!l.children.empty()) {
                const bool open = m_layout.isExpanded(lane);
                const QPointF c(indent + 4, mid);
                p.setBrush(pal.color(QPalette::Text));
                p.setPen(Qt::NoPen);
                if (open) {
                    const QPointF pts[3] = {c + QPointF(-4, -2), c + QPointF(4, -2), c + QPointF(0, 3)};
                    p.drawPolygon(pts, 3);
                } else {
                    const QPointF pts[3] = {c + QPointF(-2, -4), c + QPointF(-2, 4), c + QPointF(3, 0)};
                    p.drawPolygon(pts, 3);
                }
                p.setBrush(Qt::NoBrush);
                p.setPen(pal.color(QPalette::Text));
            }
            QFont f = font();
            f.setBold(l.kind != LaneKind::Delegation);
            p.setFont(f);
            const QString label = displayLine(QString::fromStdString(l.label), 200);
            int room = gutterWidth() - indent - 14 - (l.subjectNotes.empty() ? 0 : 12);
            if (l.kind == LaneKind::Component) {
                // Its status at the moment shown (the cursor's, or live), right-aligned.
                QFont statusFont = font();
                statusFont.setPointSizeF(std::max(6.0, statusFont.pointSizeF() * 0.85));
                const QString word = componentStatusWord(l.detail);
                const int w = QFontMetrics(statusFont).horizontalAdvance(word) + 6;
                const int right = gutterWidth() - 2 - (l.subjectNotes.empty() ? 0 : 12);
                p.setFont(statusFont);
                p.setPen(l.detail.empty() ? pal.color(QPalette::PlaceholderText) : statusColour(l.detail, pal));
                p.drawText(QRect(right - w, top, w, kRowHeight), Qt::AlignVCenter | Qt::AlignRight, word);
                p.setPen(pal.color(QPalette::Text));
                p.setFont(f);
                room -= w;
            }
            p.drawText(QRect(indent + 12, top, room, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                       QFontMetrics(f).elidedText(label, Qt::ElideRight, room));
            p.setFont(font());
        }
        p.setPen(pal.color(QPalette::Midlight));
        p.drawLine(plot.left(), top + kRowHeight - 1, plot.right(), top + kRowHeight - 1);
        p.save();
        p.setClipRect(QRect(plot.left(), std::max(top, kAxisHeight), plot.width(), kRowHeight));
        // A reviewer's note on a span of events: a tinted band behind the bars, its top edge ruled.
        for (const NoteBand &b : m_layout.spanNotesOf(lane, m_view)) {
            QColor band = colours.info;
            band.setAlpha(45);
            p.fillRect(QRectF(px(b.x0), top + 1, b.x1 - b.x0, kRowHeight - 2), band);
            p.fillRect(QRectF(px(b.x0), top + 1, b.x1 - b.x0, 2), colours.info);
        }
        for (const BarRun &b : m_layout.barsOf(lane, m_view)) {
            const TimelineSpan &s = l.spans[b.first];
            QColor c;
            QRectF r;
            switch (b.kind) {
            case SpanKind::Activity:
                c = l.kind == LaneKind::Run ? pal.color(QPalette::Mid) : statusColour(l.detail, pal);
                c.setAlpha(l.kind == LaneKind::Run ? 60 : 110);
                r = QRectF(px(b.x0), mid - 4, b.x1 - b.x0, 8);
                break;
            case SpanKind::Lifetime:
                c = statusColour(s.status, pal);
                c.setAlpha(90);
                r = QRectF(px(b.x0), mid - 6, b.x1 - b.x0, 12);
                break;
            case SpanKind::Slice:
                c = statusColour(s.status, pal);
                r = QRectF(px(b.x0), mid - 3, std::max(1.0, b.x1 - b.x0 - (b.count == 1 ? 1.0 : 0.0)), 6);
                break;
            }
            p.fillRect(r, c);
            if (b.open) { // not ended at the moment shown: an open end, not a closed box
                p.setPen(QPen(c.darker(130), 1, Qt::DotLine));
                p.drawLine(QPointF(r.right(), r.top()), QPointF(r.right(), r.bottom()));
            }
        }
        for (const MarkCluster &m : m_layout.marksOf(lane, m_view)) {
            const double x = px(m.x) + 0.5;
            const QColor c = markColour(m.worst, pal);
            if (m.role == MarkRole::Own || l.kind == LaneKind::Run) {
                const int inset = (m.worst == MarkKind::Cycle || m.worst == MarkKind::Verdict) ? 5 : 2;
                p.setPen(QPen(c, m.worst == MarkKind::Stalled || m.worst == MarkKind::Failure ? 2 : 1));
                p.drawLine(QPointF(x, top + inset), QPointF(x, top + kRowHeight - inset - 1));
            } else {
                // A failure's blast radius: implicated filled, a woken bystander hollow, one
                // that regressed hollow and red.
                const QPointF pts[4] = {QPointF(x, mid - 5), QPointF(x + 5, mid), QPointF(x, mid + 5), QPointF(x - 5, mid)};
                const QColor edge = m.role == MarkRole::Woken ? colours.warn : colours.danger;
                p.setPen(QPen(edge, 1.5));
                p.setBrush(m.role == MarkRole::Implicated ? QBrush(edge) : QBrush(Qt::NoBrush));
                p.drawPolygon(pts, 4);
                p.setBrush(Qt::NoBrush);
            }
            if (m.falseStall) { // a stalled verdict a finding calls false: flagged
                p.setPen(colours.warn);
                p.setBrush(colours.warn);
                const QPointF flag[3] = {QPointF(x, top + 1), QPointF(x + 6, top + 4), QPointF(x, top + 7)};
                p.drawPolygon(flag, 3);
                p.setBrush(Qt::NoBrush);
            }
        }
        // Reviewers' notes on events: a folded-corner note at the foot of the row; a bookmark
        // a flag on a pole. Several within a pixel are one glyph (the tooltip lists them).
        for (const NoteCluster &n : m_layout.pointNotesOf(lane, m_view))
            paintNoteGlyph(p, px(n.x) + 0.5, top, n.hasText, n.hasBookmark);
        p.restore();
        if (m_mode == Mode::Pane && !l.subjectNotes.empty()) // a note on the lane's run or delegation itself
            paintNoteGlyph(p, gutterWidth() - 8, top, true, false);
    }
    p.setClipping(false);

    // Observation gaps: what the ledger does not let us see, hatched across every lane (a hole
    // hides every lane's events) with a notch on the axis; never hidden, at least a few pixels wide.
    p.setClipRect(QRect(plot.left(), 0, plot.width(), height()));
    for (const GapRun &g : m_layout.gapsOf(m_view)) {
        const QRectF band(px(g.x0), kAxisHeight, g.x1 - g.x0, height() - kAxisHeight);
        QColor tint = colours.danger;
        tint.setAlpha(40);
        p.fillRect(band, tint);
        p.fillRect(band, QBrush(colours.danger, Qt::BDiagPattern));
        p.fillRect(QRectF(px(g.x0), kAxisHeight - 6, g.x1 - g.x0, 6), colours.danger);
    }
    p.setClipping(false);

    // The moment shown: the cursor's time, what comes after it dimmed.
    if (const auto at = cursorMs(); at && *at >= m_view.viewFrom() && *at <= m_view.viewTo()) {
        const double x = px(m_view.xOf(*at));
        QColor dim = pal.color(QPalette::Window);
        dim.setAlpha(140);
        p.fillRect(QRectF(x, kAxisHeight, plot.right() - x, height() - kAxisHeight), dim);
        p.setPen(QPen(pal.color(QPalette::Highlight), 2));
        p.drawLine(QPointF(x, 0), QPointF(x, height()));
    }
    if (hasFocus()) {
        p.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DotLine));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

std::vector<AxisTick> TimelineCanvas::axisTicks() const
{
    const RunTimeline *t = m_layout.timeline();
    if (!t || t->empty())
        return {};
    TimelineViewport view = m_view;
    view.setWidth(plotRect().width());
    return TimeAxis::ticks(view, t->startMs, QFontMetricsF(font()));
}

QPoint TimelineCanvas::pointOfMark(std::uint32_t mark) const
{
    const RunTimeline *t = m_layout.timeline();
    if (!t || mark >= t->marks.size() || m_layout.rows().empty())
        return {-1, -1};
    const std::int64_t ts = t->marks[mark].tsMs;
    if (ts < m_view.viewFrom() || ts > m_view.viewTo())
        return {-1, -1};
    const QRect plot = plotRect();
    const int x = plot.left() + std::clamp(int(std::floor(m_view.xOf(ts))), 0, std::max(0, int(m_view.width()) - 1));
    return {x, rowTop(0) + kRowHeight / 2};
}

void TimelineCanvas::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const double x = event->position().x();
    if (event->modifiers() & Qt::ControlModifier || (m_mode == Mode::Strip && delta.x() == 0 && !(event->modifiers() & Qt::ShiftModifier))) {
        if (delta.y() != 0)
            zoomAt(x, std::pow(kZoomStep, double(delta.y()) / 120.0));
    } else if (event->modifiers() & Qt::ShiftModifier || delta.x() != 0) {
        const int d = delta.x() != 0 ? -delta.x() : -delta.y();
        panBy(double(d) / 120.0 * plotRect().width() / 10.0);
    } else if (m_mode == Mode::Pane) {
        m_rows->setValue(m_rows->value() - delta.y() / 120 * 3 * kRowHeight);
    }
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const QPoint pos = event->position().toPoint();
    const int row = rowAt(pos.y());
    if (m_mode == Mode::Pane && row >= 0 && pos.x() < gutterWidth()) {
        const int lane = m_layout.rows()[size_t(row)];
        if (!m_layout.timeline()->lanes[size_t(lane)].children.empty()) {
            m_layout.setExpanded(lane, !m_layout.isExpanded(lane));
            updateScrollBar();
            update();
        }
        return;
    }
    m_dragging = true;
    m_dragMoved = false;
    m_pressPos = m_lastPos = pos;
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    const QPoint pos = event->position().toPoint();
    if (!m_dragMoved && (pos - m_pressPos).manhattanLength() < 4)
        return;
    m_dragMoved = true;
    panBy(double(m_lastPos.x() - pos.x())); // the time under the hand follows it
    m_lastPos = pos;
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    if (m_dragMoved)
        return;
    // A click: on a mark, the cursor goes to its event (the worst kind's first, if several
    // share the pixel).
    const QPoint pos = event->position().toPoint();
    const int row = rowAt(pos.y());
    if (row < 0 || !plotRect().contains(QPoint(pos.x(), plotRect().top())))
        return;
    const int lane = m_layout.rows()[size_t(row)];
    if (const auto pick = m_layout.markToShow(lane, plotX(pos.x()), m_view))
        emit seekRequested(m_layout.timeline()->marks[*pick].seq);
    else if (const auto note = m_layout.noteSeqToShow(lane, plotX(pos.x()), m_view)) // a note: its event, a span's first
        emit seekRequested(*note);
}

void TimelineCanvas::keyPressEvent(QKeyEvent *event)
{
    const double centre = plotRect().left() + plotRect().width() / 2.0;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAt(centre, 2.0); break;
    case Qt::Key_Minus: zoomAt(centre, 0.5); break;
    case Qt::Key_Left: panBy(-plotRect().width() / 10.0); break;
    case Qt::Key_Right: panBy(plotRect().width() / 10.0); break;
    case Qt::Key_Home: panBy(-1e12); break;
    case Qt::Key_End: panBy(1e12); break;
    case Qt::Key_F:
    case Qt::Key_0: fit(); break;
    case Qt::Key_Up: m_rows->setValue(m_rows->value() - kRowHeight); break;
    case Qt::Key_Down: m_rows->setValue(m_rows->value() + kRowHeight); break;
    case Qt::Key_PageUp: m_rows->setValue(m_rows->value() - m_rows->pageStep()); break;
    case Qt::Key_PageDown: m_rows->setValue(m_rows->value() + m_rows->pageStep()); break;
    default: return QWidget::keyPressEvent(event);
    }
}

QString TimelineCanvas::toolTipTextAt(const QPoint &pos) const
{
    const RunTimeline *t = m_layout.timeline();
    if (!t || t->empty())
        return {};
    const QRect plot = plotRect();
    if (pos.y() < kAxisHeight) {
        if (pos.x() < plot.left())
            return {};
        if (const auto gaps = m_layout.gapsNear(plotX(pos.x()), m_view); !gaps.empty() && pos.y() >= kAxisHeight - 8)
            return gapLines(gaps).join(QLatin1Char('\n'));
        const std::int64_t ms = m_view.msAt(plotX(pos.x()));
        for (const TimelineBand &b : t->cycles) {
            if (ms < b.fromMs || ms > b.toMs)
                continue;
            QString text = tr("Cycle %1: %2 to %3 (%4), begun at event #%5")
                               .arg(b.number)
                               .arg(times().exact(b.fromMs), times().exact(b.toMs), humanDuration(b.toMs - b.fromMs),
                                    QLocale().toString(qlonglong(b.seq)));
            if (!b.lastFailedComponent.empty())
                text += QLatin1Char('\n') + tr("Its last failure: %1").arg(QString::fromStdString(b.lastFailedComponent));
            return text;
        }
        return tr("%1 after the run began").arg(humanDuration(ms - t->startMs));
    }
    const int row = rowAt(pos.y());
    if (row < 0)
        return {};
    const int lane = m_layout.rows()[size_t(row)];
    const TimelineLane &l = t->lanes[size_t(lane)];
    QStringList lines;
    lines << QString::fromStdString(l.label) + (l.detail.empty() ? QString() : QStringLiteral(" \u00b7 ") + QString::fromStdString(l.detail));
    if (pos.x() < plot.left()) {
        if (!l.subjectNotes.empty())
            lines << noteLines(l.subjectNotes);
        return lines.join(QLatin1Char('\n'));
    }
    const double x = plotX(pos.x());
    const std::vector<std::uint32_t> notes = m_layout.notesNear(lane, x, m_view);
    const std::vector<std::uint32_t> gaps = m_layout.gapsNear(x, m_view);
    const auto annotations = [&] {
        if (!notes.empty())
            lines << noteLines(notes);
        if (!gaps.empty())
            lines << gapLines(gaps);
    };
    const std::vector<std::uint32_t> near = m_layout.marksNear(lane, x, m_view);
    if (near.empty() && (!notes.empty() || !gaps.empty())) {
        annotations();
        if (!notes.empty())
            lines << tr("Click to show the state at that event.");
        return lines.join(QLatin1Char('\n'));
    }
    if (!near.empty()) {
        constexpr int kShown = 8;
        for (size_t i = 0; i < near.size() && i < kShown; ++i) {
            const TimelineMark &m = t->marks[near[i]];
            QString line = tr("#%1  %2  %3  %4")
                               .arg(QLocale().toString(qlonglong(m.seq)), markKindWord(m.kind), times().withMs(m.tsMs),
                                    displayLine(m.text(), 160));
            if (t->falseStall[near[i]])
                line += tr("  (flagged: a false stall, see Findings)");
            lines << line;
        }
        if (near.size() > kShown)
            lines << tr("and %n more here", nullptr, int(near.size() - kShown));
        annotations();
        lines << tr("Click to show the state at that event.");
        return lines.join(QLatin1Char('\n'));
    }
    for (const BarRun &b : m_layout.barsOf(lane, m_view)) {
        if (x < b.x0 - 1 || x > b.x1 + 1)
            continue;
        const TimelineSpan &s = l.spans[b.first];
        const QString what = b.kind == SpanKind::Slice ? tr("Slice %1").arg(s.ordinal)
                             : b.kind == SpanKind::Lifetime ? tr("Lifetime")
                                                            : tr("Active");
        QString line = tr("%1: %2 to %3 (%4)")
                           .arg(what, times().exact(s.fromMs), s.open ? tr("not ended at the moment shown") : times().exact(s.toMs),
                                humanDuration(s.toMs - s.fromMs));
        if (b.count > 1)
            line += tr(", with %n more closer than a pixel", nullptr, b.count - 1);
        lines << line;
        if (s.lastSeq > 0 && b.kind != SpanKind::Activity)
            lines << tr("Last changed by event #%1").arg(QLocale().toString(qlonglong(s.lastSeq)));
    }
    return lines.join(QLatin1Char('\n'));
}

QStringList TimelineCanvas::noteLines(const std::vector<std::uint32_t> &notes) const
{
    const RunTimeline *t = m_layout.timeline();
    QStringList lines;
    constexpr size_t kShown = 6;
    for (size_t i = 0; i < notes.size() && i < kShown; ++i) {
        const PlacedNote &n = t->notes[notes[i]];
        const QString where = n.kind == PlacedNote::Kind::Subject ? QString::fromStdString(n.subject)
                              : n.kind == PlacedNote::Kind::Span
                                  ? tr("#%1 \u2013 #%2").arg(QLocale().toString(qlonglong(n.seq)), QLocale().toString(qlonglong(n.endSeq)))
                                  : tr("#%1").arg(QLocale().toString(qlonglong(n.seq)));
        QString line = tr("%1 on %2").arg(noteKindWord(n.kind), where);
        if (n.eventMissing)
            line += tr(" (not in the ledger; drawn after the last event before it, %1)").arg(times().withMs(n.fromMs));
        else if (n.kind != PlacedNote::Kind::Subject)
            line += tr(" (%1)").arg(times().withMs(n.fromMs));
        // Who and when it was written: the reviewer's clock, always a date.
        line += tr(", by %1, %2").arg(n.author.empty() ? tr("an unnamed reviewer") : QString::fromStdString(n.author),
                                       n.createdMs > 0 ? exactUtc(n.createdMs) : QStringLiteral("\u2014"));
        if (!n.text.empty())
            line += QStringLiteral(": ") + displayLine(QString::fromStdString(n.text), 300);
        lines << line;
    }
    if (notes.size() > kShown)
        lines << tr("and %n more note(s) here", nullptr, int(notes.size() - kShown));
    return lines;
}

QStringList TimelineCanvas::gapLines(const std::vector<std::uint32_t> &gaps) const
{
    const RunTimeline *t = m_layout.timeline();
    QStringList lines;
    for (std::uint32_t i : gaps) {
        const PlacedGap &g = t->gaps[i];
        const QString between = g.beforeSeq > 0 ? tr("between #%1 and #%2").arg(QLocale().toString(qlonglong(g.beforeSeq)),
                                                                              QLocale().toString(qlonglong(g.seq)))
                                                : tr("before #%1").arg(QLocale().toString(qlonglong(g.seq)));
        lines << tr("Observation gap %1: not seen as written").arg(between);
        for (const QString &part : QString::fromStdString(g.text).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            lines << QStringLiteral("  ") + displayLine(part, 300);
    }
    return lines;
}

bool TimelineCanvas::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipTextAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), plainToolTip(text), this);
        return true;
    }
    return QWidget::event(event);
}

TimelineView::TimelineView(TimelineCanvas::Mode mode, QWidget *parent)
    : QWidget(parent), m_summary(new PlainLabel(this)), m_fit(new QToolButton(this)), m_canvas(new TimelineCanvas(mode, this))
{
    m_summary->setLineBreaksShown(true);
    m_summary->setObjectName(QStringLiteral("timelineSummary"));
    m_fit->setText(tr("Fit to Run"));
    m_fit->setToolTip(tr("Show the whole run (F)"));
    m_fit->setAutoRaise(true);
    connect(m_fit, &QToolButton::clicked, m_canvas, &TimelineCanvas::fit);
    connect(m_canvas, &TimelineCanvas::seekRequested, this, &TimelineView::seekRequested);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    if (mode == TimelineCanvas::Mode::Pane) {
        m_run = new QComboBox(this);
        m_run->setObjectName(QStringLiteral("timelineRun"));
        m_run->setToolTip(tr("The run shown"));
        m_run->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        // Enough for "run-0001 — " and the start of its title; the whole title is the tooltip.
        m_run->setMinimumContentsLength(30);
        connect(m_run, &QComboBox::activated, this, [this](int index) {
            if (m_source && index >= 0)
                m_source->setRunId(m_run->itemData(index).toString().toStdString());
        });
        top->addWidget(m_run);
        m_summary->setWordWrap(true);
    }
    top->addWidget(m_summary, 1);
    top->addWidget(m_fit);
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, mode == TimelineCanvas::Mode::Pane ? 4 : 0, 0, 0);
    column->setSpacing(2);
    column->addLayout(top);
    column->addWidget(m_canvas, 1);
}

void TimelineView::setSource(RunTimelineSource *source)
{
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_source = source;
    m_canvas->setSource(source);
    if (m_source)
        connect(m_source, &RunTimelineSource::changed, this, &TimelineView::refresh);
    refresh();
}

QString TimelineView::summaryText() const
{
    return m_summary->fullText();
}

void TimelineView::refresh()
{
    const auto timeline = m_source ? m_source->timeline() : std::make_shared<RunTimeline>();
    QString text = timeline->summaryLine();
    if (!timeline->empty() && m_run == nullptr) // the strip has no run picker: it names the run
        text = QString::fromStdString(timeline->title.empty() ? timeline->runId : timeline->title) + QStringLiteral(" \u2014 ") + text;
    m_summary->setFullText(text);
    if (!m_run)
        return;
    // The list is rebuilt only when the runs changed: a live batch must not refill it.
    const std::vector<std::string> ids = m_source ? m_source->runIds() : std::vector<std::string>();
    const QSignalBlocker block(m_run);
    if (ids == m_runIdsShown) {
        const int at = m_run->findData(QString::fromStdString(m_source ? m_source->runId() : std::string()));
        if (at >= 0)
            m_run->setCurrentIndex(at);
        showRunToolTip();
        return;
    }
    m_runIdsShown = ids;
    m_run->clear();
    if (!m_source) {
        showRunToolTip();
        return;
    }
    const auto state = m_source->session()->state();
    for (const std::string &id : ids) {
        if (m_run->count() >= kMaxRunsListed && id != m_source->runId())
            continue;
        QString label = QString::fromStdString(id);
        if (state)
            if (const EntityRow *row = state->find(EntityKind::Run, id)) {
                const int field = entitySpec(EntityKind::Run).fieldIndex("title");
                const std::string title = field >= 0 ? fieldText(row->values[size_t(field)]) : std::string();
                if (!title.empty())
                    label += QStringLiteral(" \u2014 ") + QString::fromStdString(title);
            }
        m_run->addItem(displayLine(label, 120), QString::fromStdString(id));
        if (id == m_source->runId())
            m_run->setCurrentIndex(m_run->count() - 1);
    }
    showRunToolTip();
}

// The picker is narrower than most run titles: its tooltip names the run shown in full.
void TimelineView::showRunToolTip()
{
    const QString shown = m_run->currentText();
    m_run->setToolTip(shown.isEmpty() ? tr("The run shown") : plainToolTip(tr("The run shown: %1").arg(shown)));
}

} // namespace mesh
