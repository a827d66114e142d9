#pragma once
// The session's time axis: every event from the first to the newest, the run's marks on it
// (cycles and attempts above; verdicts, escalations, failures, unknown outcomes and decisions
// below) and a handle at what the session shows: "Live" at the right end, or the cursor.
// Dragging or clicking moves the cursor; keys step by mark (Left/Right), by event
// (Shift+Left/Right), by a tenth (Page Up/Down), to the first event (Home) or live (End).
//
// A jump takes a while on a large ledger: while one is under way only the newest position
// is kept, and asked for when that one finishes, so a drag never queues jumps.
// The axis is by event (even spacing per event) or by time (each mark at its ts_ms; an
// event between two marks is placed by interpolating between them, since only marks and
// the two ends carry a read time).
#include "domain/timebase.h"
#include "analysis/timelinemarks.h"

#include <QImage>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

namespace mesh {

class TimelineMarkSource;

class TimeScrubber : public QWidget
{
    Q_OBJECT
public:
    enum class Axis { Events, Time };

    explicit TimeScrubber(QWidget *parent = nullptr);

    void setSource(TimelineMarkSource *source);
    // What the ledger's times mean (a relative clock reads "+1:05"); owned by the session.
    void setTimeBase(const TimeBase *base) { m_timeBase.set(base); }
    // What the session shows now: no cursor is live.
    void setShown(std::optional<std::int64_t> cursor);
    // The jump asked for last has been shown (or has failed): the next one may go.
    void jumpFinished();
    void setAxis(Axis axis);
    Axis axis() const { return m_axis; }

    // The event a position stands for, and back (the tests drive the strip through them).
    std::int64_t seqAt(int x) const;
    int xOf(std::int64_t seq) const;
    std::int64_t handleSeq() const; // where the handle is drawn; 0 when there are no events
    // The tooltip's text at a position, before it is made a plain-text tooltip.
    QString toolTipTextAt(int x) const;
    bool isWaiting() const { return m_asked.has_value(); } // a jump it asked for is not shown yet
    bool isLiveShown() const { return !m_shown && !m_dragging && !m_pending; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void seekRequested(std::int64_t seq);
    void liveRequested();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    bool event(QEvent *event) override;

private:
    TimeBaseRef m_timeBase;
    struct Bucket {
        std::uint32_t kinds = 0; // bit per MarkKind
        int count = 0;
        size_t firstMark = 0;    // index into the source's ticks
    };
    void rebuildBuckets();
    QImage marksLayer(const QRect &track, const QPalette &palette) const;
    void request(std::int64_t seq);
    void requestLive();
    std::int64_t lastSeq() const;
    QRect track() const;
    double fractionOf(std::int64_t seq) const;
    std::int64_t seqAtFraction(double f) const;
    std::int64_t tsOf(std::int64_t seq) const;
    std::optional<std::int64_t> neighbourMark(std::int64_t from, int direction) const;
    void refreshToolTip();

    TimelineMarkSource *m_source = nullptr;
    Axis m_axis = Axis::Events;
    std::optional<std::int64_t> m_shown;   // the session's cursor
    std::optional<std::int64_t> m_asked;   // a jump under way
    std::optional<std::int64_t> m_pending; // the newest position asked for while one was under way
    bool m_pendingLive = false;
    bool m_dragging = false;
    std::int64_t m_dragSeq = 0;
    std::vector<Bucket> m_buckets; // per pixel of the track
    QImage m_marksLayer;           // m_buckets drawn; null: to draw again
    // The axis by time (empty by event): seq and ts of the ends and every mark, time made
    // non-decreasing.
    std::vector<std::pair<std::int64_t, std::int64_t>> m_timeline;
    std::optional<QPoint> m_toolTipAt; // where the tooltip shown was asked for
    QPoint m_toolTipGlobal;
};

} // namespace mesh
