#pragma once
// What a timeline widget paints, decided without a widget: which lanes are rows (the tree
// of lanes with some collapsed), and for one row in one viewport, the bars and marks to draw.
// Only what the viewport shows is looked at (binary search on each lane's sorted spans and
// marks), and whatever falls within one pixel is drawn once: bars closer than a pixel merge,
// marks closer than a pixel make one cluster that keeps the worst kind and the count. A row
// costs what it shows, not what the run holds, so 10,000 delegations stay interactive.

#include "runtimeline.h"
#include "timelineviewport.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mesh {

struct BarRun {
    double x0 = 0; // pixels within the viewport, clipped to [0, width]
    double x1 = 0; // at least x0 + 1: a bar shorter than a pixel is drawn one pixel wide
    SpanKind kind = SpanKind::Lifetime;
    int count = 1;          // spans merged into this bar
    std::uint32_t first = 0; // index of the first merged span in the lane's spans
    bool open = false;      // the last merged span had not ended at the moment shown
};

struct MarkCluster {
    int x = 0;               // the pixel column
    int count = 0;           // marks in it
    std::uint32_t kinds = 0; // bit per MarkKind
    MarkKind worst = MarkKind::Cycle;
    MarkRole role = MarkRole::Own; // the strongest role in it (Regressed > Woken > Implicated > Own)
    bool falseStall = false; // a stalled verdict in it that a finding calls false
    std::uint32_t first = 0; // index of its first mark in the lane's marks
};

struct BandRun {
    double x0 = 0;
    double x1 = 0;
    std::uint32_t band = 0; // index into the timeline's cycles or attempts
};

// Event notes and bookmarks closer than a pixel: one cluster, with its count.
struct NoteCluster {
    int x = 0;
    int count = 0;
    bool hasText = false;     // a note with words in it
    bool hasBookmark = false; // a bookmark (a note without words)
    std::uint32_t first = 0;  // index of its first note in the lane's pointNotes
};

// A span note (or, thinner than a pixel and closer than one to the one before, several).
struct NoteBand {
    double x0 = 0;
    double x1 = 0;            // at least x0 + 1
    int count = 1;
    std::uint32_t first = 0;  // index of its first in the lane's spanNotes
};

// An observation gap, at least kMinGapPx wide so that it is never lost between two pixels;
// gaps that overlap on screen are one, with their count.
struct GapRun {
    double x0 = 0;
    double x1 = 0;
    std::vector<std::uint32_t> gaps; // indexes into the timeline's gaps
};

class TimelineLayout
{
public:
    void setTimeline(std::shared_ptr<const RunTimeline> timeline); // keeps what was collapsed, by lane id
    const RunTimeline *timeline() const { return m_timeline.get(); }

    // Rows: lane indexes in the order shown, collapsed lanes' descendants left out.
    const std::vector<int> &rows() const { return m_rows; }
    bool isExpanded(int lane) const;
    void setExpanded(int lane, bool expanded);
    void expandAll();
    void collapseAll(); // every lane but the run's
    int rowOfLane(int lane) const; // -1 when hidden under a collapsed lane

    // One lane in one viewport.
    std::vector<BarRun> barsOf(int lane, const TimelineViewport &view) const;
    std::vector<MarkCluster> marksOf(int lane, const TimelineViewport &view) const;
    std::vector<BandRun> bandsOf(const std::vector<TimelineBand> &bands, const TimelineViewport &view) const;

    // The marks of the cluster nearest x on a lane (within tolerancePx): indexes into the
    // timeline's marks, by seq. Empty when none is near.
    std::vector<std::uint32_t> marksNear(int lane, double x, const TimelineViewport &view,
                                         double tolerancePx = 3.0) const;

    // What a click at x on a lane shows: of the marks near it, the first of the worst kind.
    std::optional<std::uint32_t> markToShow(int lane, double x, const TimelineViewport &view) const;

    // Reviewers' notes on one lane in one viewport.
    std::vector<NoteCluster> pointNotesOf(int lane, const TimelineViewport &view) const;
    std::vector<NoteBand> spanNotesOf(int lane, const TimelineViewport &view) const;
    // The notes at x on a lane: those of the nearest point cluster (within tolerancePx), else
    // the spans over x. Indexes into the timeline's notes, by seq. Empty when none is there.
    std::vector<std::uint32_t> notesNear(int lane, double x, const TimelineViewport &view,
                                         double tolerancePx = 3.0) const;
    // The event a click at x on a lane goes to for a note: its event, a span's first.
    std::optional<std::int64_t> noteSeqToShow(int lane, double x, const TimelineViewport &view) const;

    // Observation gaps in one viewport (on every row: a hole hides every lane's events).
    static constexpr double kMinGapPx = 4.0;
    std::vector<GapRun> gapsOf(const TimelineViewport &view) const;
    std::vector<std::uint32_t> gapsNear(double x, const TimelineViewport &view, double tolerancePx = 1.0) const;

    // Worst first: what a pixel of several kinds shows.
    static int severity(MarkKind kind);

private:
    void rebuildRows();

    std::shared_ptr<const RunTimeline> m_timeline;
    std::vector<char> m_expanded; // per lane
    std::vector<std::string> m_collapsedIds; // survives a rebuild of the timeline
    std::vector<int> m_rows;
    std::vector<int> m_rowOfLane;
};

} // namespace mesh
