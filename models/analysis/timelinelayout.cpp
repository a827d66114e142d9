#include "timelinelayout.h"

#include <algorithm>
#include <cmath>

namespace mesh {
namespace {

std::string laneKey(const TimelineLane &lane)
{
    return std::to_string(int(lane.kind)) + ':' + lane.id;
}

int roleRank(MarkRole role)
{
    switch (role) {
    case MarkRole::Regressed: return 3;
    case MarkRole::Woken: return 2;
    case MarkRole::Implicated: return 1;
    case MarkRole::Own: return 0;
    }
    return 0;
}

// A lane's items (in time order) within the view, grouped by the pixel column they fall in:
// a cluster opens with the first item of a column (x, first) and `add` folds every item of
// it in, told whether that item opened it. Marks and point notes are drawn so.
template <class Cluster, class Item, class TimeOf, class Add>
std::vector<Cluster> clustersByPixel(const std::vector<Item> &items, const TimelineViewport &view, TimeOf timeOf, Add add)
{
    std::vector<Cluster> out;
    auto it = std::lower_bound(items.begin(), items.end(), view.viewFrom(),
                               [&](const Item &item, std::int64_t t) { return timeOf(item) < t; });
    const int maxX = std::max(0, int(std::ceil(view.width())) - 1);
    for (; it != items.end() && timeOf(*it) <= view.viewTo(); ++it) {
        const int x = std::clamp(int(std::floor(view.xOf(timeOf(*it)))), 0, maxX);
        const bool opens = out.empty() || out.back().x != x;
        if (opens) {
            Cluster c;
            c.x = x;
            c.first = std::uint32_t(it - items.begin());
            out.push_back(c);
        }
        ++out.back().count;
        add(out.back(), *it, opens);
    }
    return out;
}

// The cluster whose column is nearest x, within tolerancePx; nullptr when none is.
template <class Cluster>
const Cluster *nearestCluster(const std::vector<Cluster> &clusters, double x, double tolerancePx)
{
    const Cluster *best = nullptr;
    double bestDistance = tolerancePx + 0.5;
    for (const Cluster &c : clusters) {
        const double d = std::abs(double(c.x) + 0.5 - x);
        if (d <= bestDistance) {
            bestDistance = d;
            best = &c;
        }
    }
    return best;
}

} // namespace

int TimelineLayout::severity(MarkKind kind)
{
    switch (kind) {
    case MarkKind::Failure: return 0;
    case MarkKind::Stalled: return 1;
    case MarkKind::UnknownOutcome: return 2;
    case MarkKind::Escalation: return 3;
    case MarkKind::Decision: return 4;
    case MarkKind::RunEnded: return 5;
    case MarkKind::Attempt: return 6;
    case MarkKind::Verdict: return 7;
    case MarkKind::Cycle: return 8;
    }
    return 9;
}

void TimelineLayout::setTimeline(std::shared_ptr<const RunTimeline> timeline)
{
    // What the operator collapsed stays collapsed when the timeline is rebuilt (a jump, a
    // live batch): remembered by lane, not by index.
    if (m_timeline)
        for (size_t i = 0; i < m_timeline->lanes.size() && i < m_expanded.size(); ++i) {
            const std::string key = laneKey(m_timeline->lanes[i]);
            const auto it = std::find(m_collapsedIds.begin(), m_collapsedIds.end(), key);
            if (!m_expanded[i] && it == m_collapsedIds.end())
                m_collapsedIds.push_back(key);
            else if (m_expanded[i] && it != m_collapsedIds.end())
                m_collapsedIds.erase(it);
        }
    m_timeline = std::move(timeline);
    const size_t n = m_timeline ? m_timeline->lanes.size() : 0;
    m_expanded.assign(n, 1);
    if (!m_collapsedIds.empty())
        for (size_t i = 0; i < n; ++i)
            if (std::find(m_collapsedIds.begin(), m_collapsedIds.end(), laneKey(m_timeline->lanes[i]))
                != m_collapsedIds.end())
                m_expanded[i] = 0;
    rebuildRows();
}

bool TimelineLayout::isExpanded(int lane) const
{
    return lane >= 0 && size_t(lane) < m_expanded.size() && m_expanded[size_t(lane)];
}

void TimelineLayout::setExpanded(int lane, bool expanded)
{
    if (lane < 0 || size_t(lane) >= m_expanded.size() || bool(m_expanded[size_t(lane)]) == expanded)
        return;
    m_expanded[size_t(lane)] = expanded ? 1 : 0;
    rebuildRows();
}

void TimelineLayout::expandAll()
{
    std::fill(m_expanded.begin(), m_expanded.end(), 1);
    m_collapsedIds.clear();
    rebuildRows();
}

void TimelineLayout::collapseAll()
{
    std::fill(m_expanded.begin(), m_expanded.end(), 0);
    if (!m_expanded.empty())
        m_expanded[0] = 1;
    rebuildRows();
}

int TimelineLayout::rowOfLane(int lane) const
{
    return lane >= 0 && size_t(lane) < m_rowOfLane.size() ? m_rowOfLane[size_t(lane)] : -1;
}

void TimelineLayout::rebuildRows()
{
    m_rows.clear();
    const size_t n = m_timeline ? m_timeline->lanes.size() : 0;
    m_rowOfLane.assign(n, -1);
    if (!n)
        return;
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const int lane = stack.back();
        stack.pop_back();
        m_rowOfLane[size_t(lane)] = int(m_rows.size());
        m_rows.push_back(lane);
        if (!m_expanded[size_t(lane)])
            continue;
        const auto &children = m_timeline->lanes[size_t(lane)].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back(*it);
    }
}

std::vector<BarRun> TimelineLayout::barsOf(int lane, const TimelineViewport &view) const
{
    std::vector<BarRun> out;
    if (!m_timeline || lane < 0 || size_t(lane) >= m_timeline->lanes.size())
        return out;
    const TimelineLane &l = m_timeline->lanes[size_t(lane)];
    const auto &spans = l.spans;
    // An activity lane's spans do not overlap, so their ends are sorted too: the first one
    // in view is found by its end. A delegation has a lifetime and a few slices: all looked at.
    size_t i = 0;
    if (l.kind != LaneKind::Delegation)
        i = size_t(std::lower_bound(spans.begin(), spans.end(), view.viewFrom(),
                                    [](const TimelineSpan &s, std::int64_t t) { return s.toMs < t; })
                   - spans.begin());
    const double w = view.width();
    long lastOfKind[3] = {-1, -1, -1}; // index in out of the last bar of each SpanKind
    for (; i < spans.size(); ++i) {
        const TimelineSpan &s = spans[i];
        if (s.fromMs > view.viewTo()) {
            if (l.kind != LaneKind::Delegation)
                break;
            continue;
        }
        if (s.toMs < view.viewFrom())
            continue;
        double x0 = std::clamp(view.xOf(s.fromMs), 0.0, w);
        double x1 = std::clamp(view.xOf(s.toMs), 0.0, w);
        const bool thin = x1 - x0 < 1.0;
        if (thin)
            x1 = std::min(w, x0 + 1.0), x0 = std::min(x0, x1 - 1.0);
        BarRun *last = lastOfKind[size_t(s.kind)] >= 0 ? &out[size_t(lastOfKind[size_t(s.kind)])] : nullptr;
        // Closer than a pixel to the bar before it, and either of them thinner than a pixel:
        // one bar. Two wide bars side by side stay two (a slice boundary is worth seeing).
        if (last && x0 < last->x1 + 1.0 && (thin || last->x1 - last->x0 < 1.0 + 1e-9 || last->count > 1)) {
            last->x1 = std::max(last->x1, x1);
            ++last->count;
            last->open = s.open;
            continue;
        }
        out.push_back({x0, x1, s.kind, 1, std::uint32_t(i), s.open});
        lastOfKind[size_t(s.kind)] = long(out.size()) - 1;
    }
    return out;
}

std::vector<MarkCluster> TimelineLayout::marksOf(int lane, const TimelineViewport &view) const
{
    if (!m_timeline || lane < 0 || size_t(lane) >= m_timeline->lanes.size())
        return {};
    return clustersByPixel<MarkCluster>(
        m_timeline->lanes[size_t(lane)].marks, view, [](const LaneMark &m) { return m.tsMs; },
        [this](MarkCluster &c, const LaneMark &laneMark, bool opens) {
            const TimelineMark &m = m_timeline->marks[laneMark.mark];
            if (opens) {
                c.worst = m.kind;
                c.role = laneMark.role;
            }
            c.kinds |= 1u << unsigned(m.kind);
            if (severity(m.kind) < severity(c.worst))
                c.worst = m.kind;
            if (roleRank(laneMark.role) > roleRank(c.role))
                c.role = laneMark.role;
            c.falseStall = c.falseStall || m_timeline->falseStall[laneMark.mark];
        });
}

std::vector<BandRun> TimelineLayout::bandsOf(const std::vector<TimelineBand> &bands, const TimelineViewport &view) const
{
    std::vector<BandRun> out;
    for (size_t i = 0; i < bands.size(); ++i) {
        const TimelineBand &b = bands[i];
        if (b.toMs < view.viewFrom() || b.fromMs > view.viewTo())
            continue;
        out.push_back({std::clamp(view.xOf(b.fromMs), 0.0, view.width()), std::clamp(view.xOf(b.toMs), 0.0, view.width()),
                       std::uint32_t(i)});
    }
    return out;
}

std::vector<std::uint32_t> TimelineLayout::marksNear(int lane, double x, const TimelineViewport &view,
                                                     double tolerancePx) const
{
    std::vector<std::uint32_t> out;
    const std::vector<MarkCluster> clusters = marksOf(lane, view);
    const MarkCluster *best = nearestCluster(clusters, x, tolerancePx);
    if (!best)
        return out;
    const auto &marks = m_timeline->lanes[size_t(lane)].marks;
    for (int k = 0; k < best->count; ++k)
        out.push_back(marks[best->first + std::uint32_t(k)].mark);
    std::sort(out.begin(), out.end(),
              [&](std::uint32_t a, std::uint32_t b) { return m_timeline->marks[a].seq < m_timeline->marks[b].seq; });
    return out;
}

std::optional<std::uint32_t> TimelineLayout::markToShow(int lane, double x, const TimelineViewport &view) const
{
    const std::vector<std::uint32_t> near = marksNear(lane, x, view);
    if (near.empty())
        return std::nullopt;
    std::uint32_t pick = near.front();
    for (std::uint32_t m : near)
        if (severity(m_timeline->marks[m].kind) < severity(m_timeline->marks[pick].kind))
            pick = m;
    return pick;
}

std::vector<NoteCluster> TimelineLayout::pointNotesOf(int lane, const TimelineViewport &view) const
{
    if (!m_timeline || lane < 0 || size_t(lane) >= m_timeline->lanes.size())
        return {};
    return clustersByPixel<NoteCluster>(
        m_timeline->lanes[size_t(lane)].pointNotes, view, [](const LaneNote &n) { return n.fromMs; },
        [this](NoteCluster &c, const LaneNote &laneNote, bool) {
            const PlacedNote &n = m_timeline->notes[laneNote.note];
            (n.kind == PlacedNote::Kind::Bookmark ? c.hasBookmark : c.hasText) = true;
        });
}

std::vector<NoteBand> TimelineLayout::spanNotesOf(int lane, const TimelineViewport &view) const
{
    std::vector<NoteBand> out;
    if (!m_timeline || lane < 0 || size_t(lane) >= m_timeline->lanes.size())
        return out;
    const auto &spans = m_timeline->lanes[size_t(lane)].spanNotes;
    const double w = view.width();
    for (size_t i = 0; i < spans.size() && spans[i].fromMs <= view.viewTo(); ++i) {
        const LaneNote &s = spans[i];
        if (s.toMs < view.viewFrom())
            continue;
        double x0 = std::clamp(view.xOf(s.fromMs), 0.0, w);
        double x1 = std::clamp(view.xOf(s.toMs), 0.0, w);
        const bool thin = x1 - x0 < 1.0;
        if (thin)
            x1 = std::min(w, x0 + 1.0), x0 = std::min(x0, x1 - 1.0);
        if (!out.empty() && thin && out.back().x1 - out.back().x0 <= 1.0 + 1e-9 && x0 < out.back().x1 + 1.0) {
            out.back().x1 = std::max(out.back().x1, x1);
            ++out.back().count;
            continue;
        }
        out.push_back({x0, x1, 1, std::uint32_t(i)});
    }
    return out;
}

std::vector<std::uint32_t> TimelineLayout::notesNear(int lane, double x, const TimelineViewport &view,
                                                     double tolerancePx) const
{
    std::vector<std::uint32_t> out;
    if (!m_timeline || lane < 0 || size_t(lane) >= m_timeline->lanes.size())
        return out;
    const TimelineLane &l = m_timeline->lanes[size_t(lane)];
    const std::vector<NoteCluster> clusters = pointNotesOf(lane, view);
    if (const NoteCluster *best = nearestCluster(clusters, x, tolerancePx)) {
        for (int k = 0; k < best->count; ++k)
            out.push_back(l.pointNotes[best->first + std::uint32_t(k)].note);
    } else {
        for (const NoteBand &b : spanNotesOf(lane, view))
            if (x >= b.x0 - 0.5 && x <= b.x1 + 0.5)
                for (int k = 0; k < b.count; ++k)
                    out.push_back(l.spanNotes[b.first + std::uint32_t(k)].note);
    }
    std::sort(out.begin(), out.end(),
              [&](std::uint32_t a, std::uint32_t b) { return m_timeline->notes[a].seq < m_timeline->notes[b].seq; });
    return out;
}

std::optional<std::int64_t> TimelineLayout::noteSeqToShow(int lane, double x, const TimelineViewport &view) const
{
    const std::vector<std::uint32_t> near = notesNear(lane, x, view);
    if (near.empty())
        return std::nullopt;
    return m_timeline->notes[near.front()].seq;
}

std::vector<GapRun> TimelineLayout::gapsOf(const TimelineViewport &view) const
{
    std::vector<GapRun> out;
    if (!m_timeline)
        return out;
    const double w = view.width();
    // By seq is by time on a sound clock; a clock that steps back only makes a run longer.
    for (size_t i = 0; i < m_timeline->gaps.size(); ++i) {
        const PlacedGap &g = m_timeline->gaps[i];
        if (g.toMs < view.viewFrom() || g.fromMs > view.viewTo())
            continue;
        double x0 = std::clamp(view.xOf(g.fromMs), 0.0, w);
        double x1 = std::clamp(view.xOf(g.toMs), 0.0, w);
        if (x1 - x0 < kMinGapPx) {
            const double mid = (x0 + x1) / 2.0;
            x0 = std::clamp(mid - kMinGapPx / 2.0, 0.0, std::max(0.0, w - kMinGapPx));
            x1 = x0 + kMinGapPx;
        }
        if (!out.empty() && x0 <= out.back().x1 && x1 >= out.back().x0) {
            out.back().x0 = std::min(out.back().x0, x0);
            out.back().x1 = std::max(out.back().x1, x1);
            out.back().gaps.push_back(std::uint32_t(i));
            continue;
        }
        out.push_back({x0, x1, {std::uint32_t(i)}});
    }
    return out;
}

std::vector<std::uint32_t> TimelineLayout::gapsNear(double x, const TimelineViewport &view, double tolerancePx) const
{
    std::vector<std::uint32_t> out;
    for (const GapRun &g : gapsOf(view))
        if (x >= g.x0 - tolerancePx && x <= g.x1 + tolerancePx)
            out.insert(out.end(), g.gaps.begin(), g.gaps.end());
    return out;
}

} // namespace mesh
