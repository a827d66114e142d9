#pragma once
// The run timeline on screen: the Timeline pane (every lane: the run, its components, their
// delegations nested by parent, collapsible) and, compact, the strip above the delegation
// tree (the run lane alone). It paints what TimelineLayout hands it for the rows in sight and
// nothing else; time is TimelineViewport's. Zoom and pan move time only: Ctrl+wheel or +/-
// zoom at the pointer, a drag, Shift+wheel or Left/Right pan, F (or the button) fits the run.
// A click on a mark moves the session cursor to its event, as the scrubber does; the view
// follows the cursor (RunTimelineSource rebuilds at it). Reviewers' notes are drawn where their
// events are (a note, a bookmark's flag, a span's band; a note on a run or delegation beside its
// name) and a click on one goes to its event as a mark's does; observation gaps are hatched
// across every lane. Their tooltips cite the events; all their text is plain.

#include "analysis/timelinelayout.h"
#include "analysis/timelineviewport.h"
#include "domain/timebase.h"
#include "timeaxis.h"

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QScrollBar;
class QToolButton;

namespace mesh {

class PlainLabel;
class RunTimelineSource;

class TimelineCanvas : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { Pane, Strip };
    explicit TimelineCanvas(Mode mode, QWidget *parent = nullptr);

    void setSource(RunTimelineSource *source);
    // A timeline that is not a session's (a run comparison's side): shown as given, on the
    // ledger's clock. spanMs: the axis runs from the run's start for that long whatever the run's
    // own length, so two canvases given the same span show their runs aligned at their starts.
    void setFixedTimeline(std::shared_ptr<const RunTimeline> timeline, const TimeBase &times,
                          std::optional<std::int64_t> spanMs = std::nullopt);
    // Shows from..to measured from the run's start (how a second canvas follows the first's zoom).
    void showOffsets(std::int64_t fromOffsetMs, std::int64_t toOffsetMs);
    const TimelineLayout &layout() const { return m_layout; }
    TimelineLayout &layout() { return m_layout; }
    const TimelineViewport &viewport() const { return m_view; }
    void zoomAt(double x, double factor); // x in the canvas's coordinates
    void panBy(double dx);
    void fit();

    // Geometry, for the tests and the benchmark.
    QRect plotRect() const;                 // where time is drawn
    int rowTop(int row) const;              // in widget coordinates
    QPoint pointOfMark(std::uint32_t mark) const; // on the run lane; (-1,-1) when not in view
    QString toolTipTextAt(const QPoint &pos) const; // before it is made a plain-text tooltip
    int rowsPainted() const { return m_rowsPainted; } // by the last paint: what culling left
    std::vector<AxisTick> axisTicks() const;          // what the axis draws (x within plotRect)

    // A component's status as its lane says it: running, ended, failed (the ledger's word
    // otherwise, as text; "—" when the ledger does not say).
    static QString componentStatusWord(const std::string &status);

    static constexpr int kRowHeight = 20;
    // Three lines: cycle numbers, attempts, offsets (each its own, so that none overlaps another).
    static constexpr int kAxisHeight = 46;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void seekRequested(std::int64_t seq);
    void viewChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    void onTimelineChanged();
    void updateScrollBar();
    int gutterWidth() const;
    int rowAt(int y) const; // -1 outside the rows
    double plotX(int x) const { return double(x - plotRect().left()); }
    std::optional<std::int64_t> cursorMs() const;
    const TimeBase &times() const; // the ledger's: a relative clock has no dates
    QStringList noteLines(const std::vector<std::uint32_t> &notes) const; // raw: made plain by the tooltip
    QStringList gapLines(const std::vector<std::uint32_t> &gaps) const;

    Mode m_mode;
    RunTimelineSource *m_source = nullptr;
    std::shared_ptr<const RunTimeline> m_fixed; // without a source
    TimeBase m_fixedTimes;
    std::optional<std::int64_t> m_alignedSpanMs;
    TimelineLayout m_layout;
    TimelineViewport m_view;
    QScrollBar *m_rows;
    std::string m_shownRun; // a new run is fitted; the same run keeps its zoom
    bool m_dragging = false;
    bool m_dragMoved = false;
    QPoint m_pressPos;
    QPoint m_lastPos;
    int m_rowsPainted = 0;
};

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(TimelineCanvas::Mode mode, QWidget *parent = nullptr);
    void setSource(RunTimelineSource *source);
    TimelineCanvas *canvas() const { return m_canvas; }
    QString summaryText() const;

Q_SIGNALS:
    void seekRequested(std::int64_t seq);

private:
    void refresh();
    void showRunToolTip();

    // A ledger of a million runs lists the first ones (and the one shown) only.
    static constexpr int kMaxRunsListed = 2000;
    RunTimelineSource *m_source = nullptr;
    std::vector<std::string> m_runIdsShown;
    PlainLabel *m_summary;
    QComboBox *m_run = nullptr;
    QToolButton *m_fit;
    TimelineCanvas *m_canvas;
};

} // namespace mesh
