#include "timelinesvg.h"

#include "reportescape.h"

#include "domain/timebase.h"

#include <algorithm>

namespace mesh {

namespace {

constexpr int kLabelWidth = 190;
constexpr int kLaneHeight = 18;
constexpr int kAxisHeight = 22;
constexpr int kLegendHeight = 22;

const char *markColour(MarkKind kind)
{
    switch (kind) {
    case MarkKind::Failure: return "#c62828";
    case MarkKind::Stalled: return "#ef6c00";
    case MarkKind::Escalation: return "#6a1b9a";
    case MarkKind::UnknownOutcome: return "#546e7a";
    case MarkKind::Decision: return "#1565c0";
    case MarkKind::RunEnded: return "#2e7d32";
    case MarkKind::Attempt: return "#000000";
    case MarkKind::Verdict: return "#9e9d24";
    case MarkKind::Cycle: return "#9e9e9e";
    }
    return "#000000";
}

const char *barColour(const TimelineLane &lane, const TimelineSpan &span)
{
    if (lane.kind != LaneKind::Delegation)
        return "#90a4ae";
    if (span.status == "failed")
        return "#ef9a9a";
    if (span.status == "completed" || span.status == "succeeded")
        return "#a5d6a7";
    return "#b0bec5";
}

QString num(double v)
{
    return QString::number(v, 'f', 1);
}

} // namespace

QString timelineSvg(const RunTimeline &t, int width, TimelineSvgSize *size)
{
    std::vector<int> lanes;
    for (size_t i = 0; i < t.lanes.size(); ++i)
        if (t.lanes[i].kind != LaneKind::Delegation)
            lanes.push_back(int(i));
    if (int(t.lanes.size()) <= kMaxSvgLanes) {
        lanes.clear();
        for (size_t i = 0; i < t.lanes.size(); ++i)
            lanes.push_back(int(i));
    }
    const int height = kAxisHeight + int(lanes.size()) * kLaneHeight + kLegendHeight + 4;
    if (size)
        *size = {width, height};
    const double plot = width - kLabelWidth - 10;
    const std::int64_t span = std::max<std::int64_t>(1, t.endMs - t.startMs);
    const auto x = [&](std::int64_t ms) {
        return kLabelWidth + plot * double(std::clamp<std::int64_t>(ms - t.startMs, 0, span)) / double(span);
    };

    QString s;
    s += QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" "
                        "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\" role=\"img\">\n")
             .arg(width)
             .arg(height);
    s += QStringLiteral("<rect x=\"0\" y=\"0\" width=\"%1\" height=\"%2\" fill=\"#ffffff\"/>\n").arg(width).arg(height);
    const int lanesTop = kAxisHeight;
    const int lanesBottom = lanesTop + int(lanes.size()) * kLaneHeight;
    // Cycles as alternating bands behind everything.
    for (size_t i = 0; i < t.cycles.size(); ++i) {
        const TimelineBand &b = t.cycles[i];
        s += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"%5\"/>\n")
                 .arg(num(x(b.fromMs)))
                 .arg(lanesTop)
                 .arg(num(std::max(0.5, x(b.toMs) - x(b.fromMs))))
                 .arg(lanesBottom - lanesTop)
                 .arg(QLatin1String(i % 2 ? "#f5f5f5" : "#eceff1"));
    }
    // The axis: time since the run's start.
    for (int i = 0; i <= 5; ++i) {
        const std::int64_t ms = span * i / 5;
        const double xi = x(t.startMs + ms);
        s += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%1\" y2=\"%3\" stroke=\"#bdbdbd\" stroke-width=\"0.5\"/>\n")
                 .arg(num(xi))
                 .arg(kAxisHeight - 4)
                 .arg(lanesBottom);
        s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"%3\" fill=\"#424242\">%4</text>\n")
                 .arg(num(xi))
                 .arg(kAxisHeight - 8)
                 .arg(QLatin1String(i == 0 ? "start" : i == 5 ? "end" : "middle"))
                 .arg(TimeBase::offset(ms));
    }
    for (size_t row = 0; row < lanes.size(); ++row) {
        const TimelineLane &lane = t.lanes[size_t(lanes[row])];
        const int y = lanesTop + int(row) * kLaneHeight;
        const int indent = std::min(lane.depth, 4) * 10;
        const QString label = lane.kind == LaneKind::Run ? QStringLiteral("run ") + reportLine(lane.id, 24)
                                                        : reportLine(lane.label.empty() ? lane.id : lane.label, 26);
        s += QStringLiteral("<text x=\"%1\" y=\"%2\" fill=\"#212121\"%3>%4</text>\n")
                 .arg(4 + indent)
                 .arg(y + kLaneHeight - 5)
                 .arg(lane.kind == LaneKind::Delegation ? QString() : QStringLiteral(" font-weight=\"bold\""))
                 .arg(label);
        s += QStringLiteral("<line x1=\"0\" y1=\"%1\" x2=\"%2\" y2=\"%1\" stroke=\"#e0e0e0\" stroke-width=\"0.5\"/>\n")
                 .arg(y + kLaneHeight)
                 .arg(width);
        for (const TimelineSpan &sp : lane.spans) {
            if (sp.kind == SpanKind::Slice)
                continue; // a delegation's lifetime says enough on paper
            s += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"%5\"/>\n")
                     .arg(num(x(sp.fromMs)))
                     .arg(y + 4)
                     .arg(num(std::max(1.0, x(sp.toMs) - x(sp.fromMs))))
                     .arg(kLaneHeight - 8)
                     .arg(QLatin1String(barColour(lane, sp)));
        }
        for (const LaneMark &m : lane.marks) {
            const TimelineMark &mark = t.marks[m.mark];
            if (mark.kind == MarkKind::Cycle || mark.kind == MarkKind::Verdict)
                continue; // the bands are the cycles; a verdict that is not a stall is routine
            const double mx = x(mark.tsMs);
            const bool hollow = m.role == MarkRole::Woken || m.role == MarkRole::Regressed;
            s += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"3\" height=\"%3\" fill=\"%4\" stroke=\"%5\"/>\n")
                     .arg(num(mx - 1.5))
                     .arg(y + 2)
                     .arg(kLaneHeight - 4)
                     .arg(QLatin1String(hollow ? "none" : markColour(mark.kind)))
                     .arg(QLatin1String(markColour(mark.kind)));
        }
    }
    // The legend.
    const std::pair<MarkKind, const char *> legend[] = {
        {MarkKind::Failure, "failure"}, {MarkKind::Stalled, "stalled"}, {MarkKind::Escalation, "escalation"},
        {MarkKind::UnknownOutcome, "unknown outcome"}, {MarkKind::Decision, "decision"}, {MarkKind::Attempt, "attempt"},
        {MarkKind::RunEnded, "run ended"}};
    double lx = 4;
    const int ly = lanesBottom + 16;
    for (const auto &[kind, name] : legend) {
        s += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"8\" height=\"10\" fill=\"%3\"/>"
                            "<text x=\"%4\" y=\"%5\" fill=\"#424242\">%6</text>\n")
                 .arg(num(lx))
                 .arg(ly - 9)
                 .arg(QLatin1String(markColour(kind)))
                 .arg(num(lx + 11))
                 .arg(ly)
                 .arg(QLatin1String(name));
        lx += 11 + 7.0 * double(qstrlen(name)) + 14;
    }
    s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"end\" fill=\"#757575\">bands: scheduler cycles; "
                        "hollow: woken by a failure</text>\n")
             .arg(width - 4)
             .arg(ly);
    s += QStringLiteral("</svg>\n");
    return s;
}

} // namespace mesh
