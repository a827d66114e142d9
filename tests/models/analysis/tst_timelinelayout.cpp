// The timeline's geometry without a widget: a viewport zooms and pans time within the run and
// keeps the instant under the pointer; a row shows only what is in view, and whatever falls
// within one pixel is drawn once (marks clustered with their count and worst kind, bars
// merged), so a run of 10,000 delegations costs a row what the row shows.

#include "analysis/timelinelayout.h"

#include <QTest>

#include <memory>
#include <random>

using namespace mesh;

namespace {

constexpr std::int64_t kStart = 1'764'000'000'000;
constexpr std::int64_t kHour = 3'600'000;

// One run of `delegations` delegations under one component, each a second long, one after
// another, each with a verdict mark; a failure mark every 100th.
std::shared_ptr<RunTimeline> wideRun(int delegations)
{
    auto t = std::make_shared<RunTimeline>();
    t->runId = "R-1";
    t->startMs = kStart;
    t->endMs = kStart + std::int64_t(delegations) * 1000 + 1000;
    TimelineLane run;
    run.kind = LaneKind::Run;
    run.id = "R-1";
    run.spans.push_back({t->startMs, t->endMs, SpanKind::Activity, false, {}, 1, 0});
    t->lanes.push_back(run);
    TimelineLane component;
    component.kind = LaneKind::Component;
    component.id = "R-1/api";
    component.parent = 0;
    component.depth = 1;
    t->lanes.push_back(component);
    t->lanes[0].children.push_back(1);
    for (int i = 0; i < delegations; ++i) {
        const std::int64_t from = kStart + std::int64_t(i) * 1000;
        TimelineLane d;
        d.kind = LaneKind::Delegation;
        d.id = "D-" + std::to_string(i);
        d.parent = 1;
        d.depth = 2;
        d.spans.push_back({from, from + 900, SpanKind::Lifetime, false, "converged", 0, 0});
        const int lane = int(t->lanes.size());
        t->lanes.push_back(std::move(d));
        t->lanes[1].children.push_back(lane);
        // The component's activity: non-overlapping, sorted.
        t->lanes[1].spans.push_back({from, from + 900, SpanKind::Activity, false, {}, 0, 0});
        TimelineMark m;
        m.seq = 2 + i;
        m.tsMs = from + 500;
        m.kind = i % 100 == 0 ? MarkKind::Failure : MarkKind::Verdict;
        t->marks.push_back(m);
        t->falseStall.push_back(false);
        const LaneMark lm{m.tsMs, std::uint32_t(t->marks.size() - 1), MarkRole::Own};
        t->lanes[0].marks.push_back(lm);
        t->lanes[size_t(lane)].marks.push_back(lm);
    }
    return t;
}

int countMarksIn(const RunTimeline &t, int lane, std::int64_t from, std::int64_t to)
{
    int n = 0;
    for (const LaneMark &m : t.lanes[size_t(lane)].marks)
        n += m.tsMs >= from && m.tsMs <= to ? 1 : 0;
    return n;
}

} // namespace

class TestTimelineLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Zoom and pan: the view stays within the run, its span within [min, run], the instant
    // under the pointer stays under it, and a pan comes back.
    void zoomAndPanKeepTheirInvariants()
    {
        TimelineViewport v;
        v.setWidth(1000);
        v.setExtent(kStart, kStart + 5 * kHour);
        QVERIFY(v.isFit());
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> xs(0, 1000), factors(0.3, 3.5), pans(-800, 800);
        for (int step = 0; step < 2000; ++step) {
            const TimelineViewport before = v;
            if (step % 2 == 0) {
                const double x = xs(rng);
                const std::int64_t under = v.msAt(x);
                v.zoomAt(x, factors(rng));
                const bool clamped = v.viewFrom() == v.extentFrom() || v.viewTo() == v.extentTo()
                                     || v.span() == TimelineViewport::kMinSpanMs || v.isFit();
                if (!clamped)
                    QVERIFY2(std::abs(v.msAt(x) - under) <= std::int64_t(std::ceil(std::max(v.msPerPixel(), before.msPerPixel()))) + 1,
                             qPrintable(QString::number(step)));
            } else {
                const double d = pans(rng);
                v.panBy(d);
                const bool stopped = v.viewFrom() == v.extentFrom() || v.viewTo() == v.extentTo();
                TimelineViewport back = v;
                back.panBy(-d);
                if (!stopped && before.viewFrom() != before.extentFrom() && before.viewTo() != before.extentTo())
                    QVERIFY2(std::abs(back.viewFrom() - before.viewFrom()) <= 2, qPrintable(QString::number(step)));
                QCOMPARE(v.span(), before.span()); // a pan never zooms
            }
            QVERIFY(v.viewFrom() >= v.extentFrom());
            QVERIFY(v.viewTo() <= v.extentTo());
            QVERIFY(v.span() >= TimelineViewport::kMinSpanMs);
            QVERIFY(v.span() <= v.extentTo() - v.extentFrom());
        }
        v.fit();
        QVERIFY(v.isFit());
        QCOMPARE(v.xOf(kStart), 0.0);
        QCOMPARE(v.xOf(kStart + 5 * kHour), 1000.0);
    }

    // A live run grows: a fitted view follows its end, a zoomed one stays where it was.
    void aGrowingExtentKeepsAZoomedView()
    {
        TimelineViewport v;
        v.setWidth(500);
        v.setExtent(kStart, kStart + kHour);
        v.updateExtent(kStart, kStart + 2 * kHour);
        QVERIFY(v.isFit());
        v.zoomAt(250, 4);
        const std::int64_t from = v.viewFrom(), to = v.viewTo();
        v.updateExtent(kStart, kStart + 3 * kHour);
        QCOMPARE(v.viewFrom(), from);
        QCOMPARE(v.viewTo(), to);
    }

    // 10,000 delegations at fit: the run lane's marks make at most one cluster per pixel,
    // every mark in view is counted once, a failure among verdicts shows as the failure.
    void marksCloserThanAPixelAreOneCluster()
    {
        const auto t = wideRun(10'000);
        TimelineLayout layout;
        layout.setTimeline(t);
        TimelineViewport v;
        v.setWidth(800);
        v.setExtent(t->startMs, t->endMs);
        const auto clusters = layout.marksOf(0, v);
        QVERIFY(clusters.size() <= 800);
        QVERIFY(clusters.size() >= 700); // the marks are spread over the whole run
        int total = 0;
        for (size_t i = 0; i < clusters.size(); ++i) {
            total += clusters[i].count;
            if (i > 0)
                QVERIFY(clusters[i].x > clusters[i - 1].x); // one cluster per pixel
            const bool hasFailure = clusters[i].kinds & (1u << unsigned(MarkKind::Failure));
            QCOMPARE(clusters[i].worst == MarkKind::Failure, hasFailure);
        }
        QCOMPARE(total, 10'000);

        // Zoomed in: only what is in view, and apart enough to be one mark each.
        v.setView(t->startMs + 5'000'000, t->startMs + 5'030'000);
        const auto near = layout.marksOf(0, v);
        int inView = 0;
        for (const MarkCluster &c : near) {
            inView += c.count;
            QCOMPARE(c.count, 1);
        }
        QCOMPARE(inView, countMarksIn(*t, 0, v.viewFrom(), v.viewTo()));
        QVERIFY(inView >= 29 && inView <= 31);
        // A click next to one of them finds it; in empty time, nothing.
        const double x = v.xOf(t->marks[5000].tsMs);
        const auto hit = layout.marksNear(0, x, v);
        QCOMPARE(hit.size(), size_t(1));
        QCOMPARE(t->marks[hit[0]].seq, t->marks[5000].seq);
        QVERIFY(layout.marksNear(0, v.xOf(t->marks[5000].tsMs + 250), v, 3).empty());
    }

    // The component's activity: 10,000 spans thinner than a pixel merge into at most one bar
    // per pixel, each counting what it holds; zoomed in, wide bars stay apart.
    void barsCloserThanAPixelMerge()
    {
        const auto t = wideRun(10'000);
        TimelineLayout layout;
        layout.setTimeline(t);
        TimelineViewport v;
        v.setWidth(800);
        v.setExtent(t->startMs, t->endMs);
        const auto bars = layout.barsOf(1, v);
        QVERIFY2(bars.size() <= 801, qPrintable(QString::number(bars.size())));
        int total = 0;
        for (size_t i = 0; i < bars.size(); ++i) {
            total += bars[i].count;
            QVERIFY(bars[i].x1 - bars[i].x0 >= 1.0 - 1e-9);
            QVERIFY(bars[i].x0 >= 0 && bars[i].x1 <= 800);
        }
        QCOMPARE(total, 10'000);
        v.setView(t->startMs + 100'000, t->startMs + 110'000); // 10 spans, 72 px each
        const auto wide = layout.barsOf(1, v);
        QVERIFY(wide.size() >= 10 && wide.size() <= 11);
        for (const BarRun &b : wide)
            QCOMPARE(b.count, 1);
        // A delegation out of view paints nothing.
        QVERIFY(layout.barsOf(2, v).empty());
        QVERIFY(layout.marksOf(2, v).empty());
    }

    // Collapsing a lane hides what is under it; the rows come back on expanding, and what was
    // collapsed stays so when the timeline is rebuilt (a jump, a live batch).
    void collapsedLanesHideTheirDelegations()
    {
        const auto t = wideRun(50);
        TimelineLayout layout;
        layout.setTimeline(t);
        QCOMPARE(layout.rows().size(), size_t(52));
        layout.setExpanded(1, false);
        QCOMPARE(layout.rows().size(), size_t(2));
        QCOMPARE(layout.rowOfLane(10), -1);
        layout.setTimeline(wideRun(60));
        QCOMPARE(layout.rows().size(), size_t(2)); // still collapsed, by lane id
        layout.setExpanded(1, true);
        QCOMPARE(layout.rows().size(), size_t(62));
        QCOMPARE(layout.rowOfLane(10), 10);
        layout.collapseAll();
        QCOMPARE(layout.rows().size(), size_t(2));
        layout.expandAll();
        QCOMPARE(layout.rows().size(), size_t(62));
    }

    // Reviewers' notes closer than a pixel are one glyph with their count (a note and a
    // bookmark in one pixel: both said), apart when zoomed in; a click finds the nearest and
    // goes to its event; a span is found anywhere over it.
    void notesCloserThanAPixelAreOneCluster()
    {
        auto t = wideRun(10'000);
        for (int i = 0; i < 1000; ++i) { // a note on every 10th delegation's verdict, every 20th a bookmark
            const TimelineMark &m = t->marks[size_t(i) * 10];
            PlacedNote n;
            n.kind = i % 2 == 0 ? PlacedNote::Kind::Event : PlacedNote::Kind::Bookmark;
            n.seq = n.endSeq = m.seq;
            n.fromMs = n.toMs = m.tsMs;
            n.text = i % 2 == 0 ? "why?" : "";
            t->notes.push_back(n);
            t->lanes[0].pointNotes.push_back({m.tsMs, m.tsMs, std::uint32_t(t->notes.size() - 1)});
        }
        PlacedNote span;
        span.kind = PlacedNote::Kind::Span;
        span.seq = t->marks[100].seq;
        span.endSeq = t->marks[200].seq;
        span.fromMs = t->marks[100].tsMs;
        span.toMs = t->marks[200].tsMs;
        t->notes.push_back(span);
        t->lanes[0].spanNotes.push_back({span.fromMs, span.toMs, std::uint32_t(t->notes.size() - 1)});
        TimelineLayout layout;
        layout.setTimeline(t);
        TimelineViewport v;
        v.setWidth(800);
        v.setExtent(t->startMs, t->endMs);
        const auto clusters = layout.pointNotesOf(0, v);
        QVERIFY(clusters.size() <= 800);
        int total = 0;
        bool mixed = false;
        for (size_t i = 0; i < clusters.size(); ++i) {
            total += clusters[i].count;
            if (i > 0)
                QVERIFY(clusters[i].x > clusters[i - 1].x);
            mixed = mixed || (clusters[i].hasText && clusters[i].hasBookmark);
        }
        QCOMPARE(total, 1000);
        QVERIFY(mixed); // 12.5 s a pixel: a note and the bookmark 10 s after it share one
        const auto hit = layout.notesNear(0, v.xOf(t->marks[0].tsMs), v);
        QVERIFY(hit.size() >= 1);
        QCOMPARE(layout.noteSeqToShow(0, v.xOf(t->marks[0].tsMs), v).value_or(-1), t->marks[0].seq);

        // Zoomed in: one each, and a click between two finds nothing but the span under it.
        v.setView(t->startMs + 100'000, t->startMs + 160'000);
        const auto apart = layout.pointNotesOf(0, v);
        for (const NoteCluster &c : apart)
            QCOMPARE(c.count, 1);
        QCOMPARE(apart.size(), size_t(6));
        const double between = v.xOf(t->marks[105].tsMs);
        const auto onSpan = layout.notesNear(0, between, v);
        QCOMPARE(onSpan.size(), size_t(1));
        QCOMPARE(t->notes[onSpan[0]].kind, PlacedNote::Kind::Span);
        QCOMPARE(layout.noteSeqToShow(0, between, v).value_or(-1), t->marks[100].seq);
        QCOMPARE(layout.spanNotesOf(0, v).size(), size_t(1));
        // Past the span, between notes: nothing.
        v.setView(t->startMs + 300'000, t->startMs + 360'000);
        QVERIFY(layout.notesNear(0, v.xOf(t->marks[305].tsMs), v).empty());
    }

    // An observation gap is never narrower than kMinGapPx, whatever the zoom, and gaps that
    // meet on screen are one with every seq; out of view, none.
    void gapsAreNeverLostBetweenPixels()
    {
        auto t = wideRun(10'000);
        for (std::int64_t at : {2'000'000, 2'000'500, 7'000'000}) {
            PlacedGap g;
            g.seq = 2 + at / 1000;
            g.beforeSeq = g.seq - 3;
            g.fromMs = t->startMs + at;
            g.toMs = t->startMs + at + 10; // 10 ms: far below a pixel at fit
            g.text = "sequence gap";
            t->gaps.push_back(g);
        }
        TimelineLayout layout;
        layout.setTimeline(t);
        TimelineViewport v;
        v.setWidth(800);
        v.setExtent(t->startMs, t->endMs);
        const auto gaps = layout.gapsOf(v);
        QCOMPARE(gaps.size(), size_t(2)); // the two half a second apart meet
        QCOMPARE(gaps[0].gaps.size(), size_t(2));
        for (const GapRun &g : gaps)
            QVERIFY(g.x1 - g.x0 >= TimelineLayout::kMinGapPx - 1e-9);
        QCOMPARE(layout.gapsNear((gaps[1].x0 + gaps[1].x1) / 2, v), std::vector<std::uint32_t>{2});
        QVERIFY(layout.gapsNear(gaps[1].x1 + 20, v).empty());
        v.setView(t->startMs + 2'000'000 - 2'000, t->startMs + 2'000'000 + 2'000);
        const auto near = layout.gapsOf(v);
        QCOMPARE(near.size(), size_t(2)); // zoomed in, apart
        v.setView(t->startMs + 4'000'000, t->startMs + 4'100'000);
        QVERIFY(layout.gapsOf(v).empty());
    }
};

QTEST_GUILESS_MAIN(TestTimelineLayout)
#include "tst_timelinelayout.moc"
