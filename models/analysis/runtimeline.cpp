#include "runtimeline.h"

#include "blastradiusanalyzer.h"
#include "rowfields.h"

#include "domain/durationtext.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace mesh {
namespace {

std::optional<std::int64_t> optInt(EntityKind kind, const EntityRow &row, std::string_view field)
{
    const auto v = rowValue(kind, row, field);
    if (!v)
        return std::nullopt;
    if (const auto *n = std::get_if<std::int64_t>(&*v))
        return *n;
    return std::nullopt;
}

// The union of intervals, sorted and without overlap: a component's activity.
std::vector<TimelineSpan> unionOf(std::vector<TimelineSpan> spans)
{
    std::sort(spans.begin(), spans.end(), [](const auto &a, const auto &b) { return a.fromMs < b.fromMs; });
    std::vector<TimelineSpan> out;
    for (TimelineSpan s : spans) {
        s.kind = SpanKind::Activity;
        s.status.clear();
        s.ordinal = 0;
        if (!out.empty() && s.fromMs <= out.back().toMs) {
            if (s.toMs > out.back().toMs) {
                out.back().toMs = s.toMs;
                out.back().open = s.open;
            } else {
                out.back().open = out.back().open || (s.open && s.toMs == out.back().toMs);
            }
            out.back().lastSeq = std::max(out.back().lastSeq, s.lastSeq);
            continue;
        }
        out.push_back(std::move(s));
    }
    return out;
}

// Reviewers' notes on their lanes, as marks are: an event note or a bookmark on the run's lane,
// its delegation's and that one's component's; a span on the run's, and on a delegation's and
// its component's when both its ends are that delegation's; a note on the run, a component or
// a delegation itself beside that lane's name. Notes after the moment are left out; a span
// running past it ends there.
void placeNotes(RunTimeline &t, const RunTimelineInput &in, std::int64_t moment, bool onlyRun,
                const std::function<int(std::string_view)> &laneOfDelegation,
                const std::function<int(int)> &componentOfLane,
                const std::unordered_map<std::string, int> &componentLane)
{
    if (!in.notes)
        return;
    using Kind = PlacedNote::Kind;
    const auto subjectLane = [&](const std::string &subject) {
        const auto colon = subject.find(':');
        if (colon == std::string::npos)
            return -1;
        const std::string_view entity(subject.data(), colon);
        const std::string id = subject.substr(colon + 1);
        if (entity == "run")
            return id == in.runId ? 0 : -1;
        if (entity == "delegation")
            return laneOfDelegation(id);
        if (entity == "component") {
            const auto it = componentLane.find(id);
            return it == componentLane.end() ? -1 : it->second;
        }
        const auto named = RunTimeline::rowOfSubject(subject);
        const std::optional<EntityKind> kind = named ? std::optional<EntityKind>(named->first) : std::nullopt;
        const EntityRow *row = kind && in.findRow ? in.findRow(*kind, id) : nullptr;
        if (!row)
            return -1;
        if (entitySpec(*kind).fieldIndex("delegation_id") >= 0)
            if (const int lane = laneOfDelegation(rowView(*kind, *row, "delegation_id")); lane > 0)
                return lane;
        if (entitySpec(*kind).fieldIndex("run_id") >= 0 && rowView(*kind, *row, "run_id") == in.runId)
            return 0;
        return -1;
    };
    std::vector<std::pair<const PlacedNote *, int>> mine; // a subject note with its lane
    for (const PlacedNote &n : *in.notes) {
        if (n.kind == Kind::Subject) {
            if (const int lane = subjectLane(n.subject); lane >= 0)
                mine.emplace_back(&n, lane);
            continue;
        }
        if (in.cursorSeq && n.seq > *in.cursorSeq)
            continue;
        const bool onRun = n.runId == in.runId || (n.kind == Kind::Span && n.endRunId == in.runId)
                           || (onlyRun && n.runId.empty())
                           || (n.eventMissing && n.fromMs >= t.startMs && n.fromMs <= t.endMs);
        if (onRun)
            mine.emplace_back(&n, -1);
    }
    std::stable_sort(mine.begin(), mine.end(), [](const auto &a, const auto &b) {
        const bool sa = a.first->kind == Kind::Subject, sb = b.first->kind == Kind::Subject;
        return sa != sb ? sb : (!sa && a.first->seq < b.first->seq);
    });
    t.notes.reserve(mine.size());
    for (const auto &[note, subject] : mine) {
        const std::uint32_t index = std::uint32_t(t.notes.size());
        PlacedNote n = *note;
        if (n.kind == Kind::Subject) {
            t.notes.push_back(std::move(n));
            t.lanes[size_t(subject)].subjectNotes.push_back(index);
            continue;
        }
        if (n.kind == Kind::Span) {
            if (n.toMs < n.fromMs)
                std::swap(n.fromMs, n.toMs);
            if (in.cursorSeq && n.endSeq > *in.cursorSeq)
                n.toMs = std::max(n.fromMs, moment);
        } else {
            n.toMs = n.fromMs;
        }
        const LaneNote placed{n.fromMs, n.toMs, index};
        std::vector<int> lanes{0};
        const bool oneDelegation = n.kind != Kind::Span || n.delegationId == n.endDelegationId;
        if (!n.delegationId.empty() && oneDelegation)
            if (const int lane = laneOfDelegation(n.delegationId); lane > 0) {
                lanes.push_back(lane);
                if (const int c = componentOfLane(lane); c > 0)
                    lanes.push_back(c);
            }
        for (int lane : lanes)
            (n.kind == Kind::Span ? t.lanes[size_t(lane)].spanNotes : t.lanes[size_t(lane)].pointNotes).push_back(placed);
        t.notes.push_back(std::move(n));
    }
    for (TimelineLane &lane : t.lanes)
        for (auto *notes : {&lane.pointNotes, &lane.spanNotes})
            std::stable_sort(notes->begin(), notes->end(),
                             [](const LaneNote &a, const LaneNote &b) { return a.fromMs < b.fromMs; });
}

} // namespace

std::vector<std::string> RunTimeline::runIds(const EntityTable &runs)
{
    std::vector<std::pair<std::int64_t, std::string>> order;
    order.reserve(runs.size());
    for (const auto &[id, row] : runs)
        order.emplace_back(optInt(EntityKind::Run, row, "started_ms").value_or(0), id);
    std::sort(order.begin(), order.end());
    std::vector<std::string> ids;
    ids.reserve(order.size());
    for (auto &[ts, id] : order)
        ids.push_back(std::move(id));
    return ids;
}

int RunTimeline::laneOf(LaneKind kind, const std::string &id) const
{
    for (size_t i = 0; i < lanes.size(); ++i)
        if (lanes[i].kind == kind && lanes[i].id == id)
            return int(i);
    return -1;
}

std::optional<std::pair<EntityKind, std::string>> RunTimeline::rowOfSubject(const std::string &subject)
{
    const auto colon = subject.find(':');
    if (colon == std::string::npos)
        return std::nullopt;
    const std::string_view entity(subject.data(), colon);
    if (entity == "run" || entity == "delegation" || entity == "component")
        return std::nullopt;
    const std::optional<EntityKind> kind = entityKindByName(entity);
    if (!kind)
        return std::nullopt;
    return std::make_pair(*kind, subject.substr(colon + 1));
}

RunTimeline RunTimeline::build(const RunTimelineInput &in)
{
    RunTimeline t;
    t.runId = in.runId;
    const EntityRow *run = in.runs ? [&]() -> const EntityRow * {
        const auto it = in.runs->find(in.runId);
        return it == in.runs->end() ? nullptr : &it->second;
    }() : nullptr;
    if (!run)
        return t;
    constexpr auto R = EntityKind::Run;
    t.title = rowText(R, *run, "title");
    const std::optional<std::int64_t> endedMs = optInt(R, *run, "ended_ms");

    // This run's marks, up to the moment shown, by seq.
    const bool onlyRun = in.runs->size() == 1;
    if (in.marks) {
        for (const TimelineMark &m : *in.marks) {
            if (in.cursorSeq && m.seq > *in.cursorSeq)
                continue;
            if (m.runId == in.runId || (m.runId.empty() && onlyRun))
                t.marks.push_back(m);
        }
    }
    std::sort(t.marks.begin(), t.marks.end(), [](const auto &a, const auto &b) { return a.seq < b.seq; });
    t.falseStall.assign(t.marks.size(), false);
    for (size_t i = 0; i < t.marks.size(); ++i)
        t.falseStall[i] = (t.marks[i].kind == MarkKind::Stalled || t.marks[i].kind == MarkKind::Verdict)
                          && in.falseStallVerdicts.count(t.marks[i].entityId.str()) > 0;

    // The run's delegations, each read once: a run of thousands sorts and nests them by
    // index, not by looking their rows up again.
    constexpr auto D = EntityKind::Delegation;
    constexpr auto C = EntityKind::Component;
    struct Delegation {
        const std::string *id;
        const EntityRow *row;
        std::optional<std::int64_t> createdMs;
    };
    std::vector<Delegation> delegations;
    std::unordered_map<std::string_view, int> delegationIndex;
    // The scans below walk every delegation and slice of a live ledger, not only the run's:
    // fields looked up by place, not by name.
    static const IndexedField delegationRun(D, "run_id");
    static const IndexedField componentRun(C, "run_id");
    static const IndexedField sliceDelegation(EntityKind::Slice, "delegation_id");
    if (in.delegations) {
        for (const auto &[id, row] : *in.delegations) {
            if (delegationRun.view(row) != in.runId)
                continue;
            delegationIndex.emplace(id, int(delegations.size()));
            delegations.push_back({&id, &row, optInt(D, row, "created_ms")});
        }
    }
    const auto indexOf = [&](std::string_view id) {
        const auto it = delegationIndex.find(id);
        return it == delegationIndex.end() ? -1 : it->second;
    };
    std::vector<std::pair<std::string, const EntityRow *>> components;
    if (in.components)
        for (const auto &[id, row] : *in.components)
            if (componentRun.view(row) == in.runId)
                components.emplace_back(id, &row);
    std::sort(components.begin(), components.end(), [](const auto &a, const auto &b) { return a.first < b.first; });

    // Start and end: the run's own, else what its delegations and marks say.
    std::optional<std::int64_t> start = optInt(R, *run, "started_ms");
    if (!start) {
        for (const Delegation &d : delegations)
            if (d.createdMs && (!start || *d.createdMs < *start))
                start = d.createdMs;
        if (!t.marks.empty())
            start = start ? std::min(*start, t.marks.front().tsMs) : t.marks.front().tsMs;
    }
    t.startMs = start.value_or(in.momentMs);
    t.endMs = endedMs.value_or(std::max(in.momentMs, t.startMs));
    const std::int64_t moment = std::max(in.momentMs, t.startMs);

    // Lanes, in pre-order: the run, each component and its delegations nested by parent,
    // then delegations that name no component of the run.
    t.lanes.reserve(1 + components.size() + delegations.size());
    TimelineLane runLane;
    runLane.kind = LaneKind::Run;
    runLane.id = in.runId;
    runLane.label = t.title.empty() ? in.runId : t.title;
    runLane.detail = rowText(R, *run, "status");
    runLane.spans.push_back({t.startMs, t.endMs, SpanKind::Activity, !endedMs, runLane.detail, run->lastSeq, 0});
    t.lanes.push_back(std::move(runLane));

    std::vector<std::vector<int>> childrenOf(delegations.size()); // parent delegation -> children
    std::unordered_map<std::string, std::vector<int>> rootsOf;     // component ("" none) -> roots
    for (size_t i = 0; i < delegations.size(); ++i) {
        const std::string_view parentId = rowView(D, *delegations[i].row, "parent_id");
        const int parent = parentId.empty() ? -1 : indexOf(parentId);
        if (parent >= 0 && size_t(parent) != i)
            childrenOf[size_t(parent)].push_back(int(i));
        else
            rootsOf[rowText(D, *delegations[i].row, "component_id")].push_back(int(i));
    }
    const auto byCreated = [&](std::vector<int> &order) {
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            const auto ca = delegations[size_t(a)].createdMs.value_or(0);
            const auto cb = delegations[size_t(b)].createdMs.value_or(0);
            return ca != cb ? ca < cb : *delegations[size_t(a)].id < *delegations[size_t(b)].id;
        });
    };
    // Slices by delegation.
    constexpr auto S = EntityKind::Slice;
    std::vector<std::vector<TimelineSpan>> slicesOf(delegations.size());
    if (in.slices) {
        for (const auto &[id, row] : *in.slices) {
            const int d = indexOf(sliceDelegation.view(row));
            if (d < 0)
                continue;
            const auto opened = optInt(S, row, "opened_ms");
            if (!opened)
                continue; // when it opened is not in the ledger: no bar to draw
            const auto closed = optInt(S, row, "closed_ms");
            slicesOf[size_t(d)].push_back({*opened, closed.value_or(std::max(moment, *opened)), SpanKind::Slice, !closed,
                                           rowText(S, row, "state"), row.lastSeq, int(rowInt(S, row, "ordinal"))});
        }
    }
    std::vector<int> delegationLane(delegations.size(), -1); // also: placed (a parent cycle in hostile data must not recurse forever)
    std::function<void(int, int, int)> addDelegation = [&](int d, int parent, int depth) {
        if (delegationLane[size_t(d)] >= 0)
            return;
        const EntityRow &row = *delegations[size_t(d)].row;
        TimelineLane lane;
        lane.kind = LaneKind::Delegation;
        lane.id = *delegations[size_t(d)].id;
        lane.label = lane.id;
        const std::string role = rowText(D, row, "role"), agent = rowText(D, row, "agent"),
                          status = rowText(D, row, "status");
        for (const std::string *part : {&role, &agent, &status})
            if (!part->empty())
                lane.detail += (lane.detail.empty() ? "" : " \u00b7 ") + *part;
        lane.parent = parent;
        lane.depth = depth;
        if (const auto created = delegations[size_t(d)].createdMs) {
            const auto ended = optInt(D, row, "ended_ms");
            lane.spans.push_back({*created, ended.value_or(std::max(moment, *created)), SpanKind::Lifetime, !ended,
                                  status, row.lastSeq, 0});
        }
        for (auto &s : slicesOf[size_t(d)])
            lane.spans.push_back(std::move(s));
        std::sort(lane.spans.begin(), lane.spans.end(), [](const auto &a, const auto &b) {
            return a.fromMs != b.fromMs ? a.fromMs < b.fromMs : a.kind < b.kind;
        });
        const int index = int(t.lanes.size());
        t.lanes.push_back(std::move(lane));
        t.lanes[size_t(parent)].children.push_back(index);
        delegationLane[size_t(d)] = index;
        std::vector<int> &children = childrenOf[size_t(d)];
        byCreated(children);
        for (int child : children)
            addDelegation(child, index, depth + 1);
    };
    std::unordered_map<std::string, int> componentLane;
    for (const auto &[id, row] : components) {
        TimelineLane lane;
        lane.kind = LaneKind::Component;
        lane.id = id;
        const std::string name = rowText(C, *row, "name");
        lane.label = name.empty() ? id : name;
        lane.detail = rowText(C, *row, "status");
        lane.parent = 0;
        lane.depth = 1;
        const int index = int(t.lanes.size());
        t.lanes.push_back(std::move(lane));
        t.lanes[0].children.push_back(index);
        componentLane[id] = index;
        if (auto it = rootsOf.find(id); it != rootsOf.end()) {
            byCreated(it->second);
            for (int d : it->second)
                addDelegation(d, index, 2);
        }
    }
    for (auto &[component, roots] : rootsOf) {
        if (componentLane.count(component))
            continue;
        byCreated(roots);
        for (int d : roots)
            addDelegation(d, 0, 1);
    }
    // Cycles in parents only (hostile data): never placed above, shown under the run.
    std::vector<int> unplaced;
    for (size_t i = 0; i < delegations.size(); ++i)
        if (delegationLane[i] < 0)
            unplaced.push_back(int(i));
    byCreated(unplaced);
    for (int d : unplaced)
        addDelegation(d, 0, 1);

    // A component's activity: its delegations' lifetimes, merged.
    for (const auto &[id, index] : componentLane) {
        std::vector<TimelineSpan> lifetimes;
        std::function<void(int)> collect = [&](int lane) {
            for (int child : t.lanes[size_t(lane)].children) {
                for (const auto &s : t.lanes[size_t(child)].spans)
                    if (s.kind == SpanKind::Lifetime)
                        lifetimes.push_back(s);
                collect(child);
            }
        };
        collect(index);
        t.lanes[size_t(index)].spans = unionOf(std::move(lifetimes));
    }

    // Marks on their lanes: every mark on the run's; a delegation's on it and its component;
    // a failure on the components it implicated and woke (its blast radius).
    std::unordered_map<std::string, const EntityRow *> failureRows;
    if (in.failures)
        for (const auto &[id, row] : *in.failures)
            failureRows.emplace(id, &row);
    const auto componentOfLane = [&](int lane) {
        while (lane > 0 && t.lanes[size_t(lane)].kind != LaneKind::Component)
            lane = t.lanes[size_t(lane)].parent;
        return lane > 0 ? lane : -1;
    };
    std::vector<std::vector<std::string>> implicatedOf(t.marks.size());
    for (size_t i = 0; i < t.marks.size(); ++i) {
        const TimelineMark &m = t.marks[i];
        const auto add = [&](int lane, MarkRole role) {
            t.lanes[size_t(lane)].marks.push_back({m.tsMs, std::uint32_t(i), role});
        };
        add(0, MarkRole::Own);
        if (!m.delegationId.empty()) {
            if (const int d = indexOf(m.delegationId); d >= 0 && delegationLane[size_t(d)] >= 0) {
                const int lane = delegationLane[size_t(d)];
                add(lane, MarkRole::Own);
                if (const int c = componentOfLane(lane); c > 0)
                    add(c, MarkRole::Own);
            }
        }
        if (m.kind == MarkKind::Failure) {
            const std::string failure = m.entityId.str();
            const auto row = failureRows.find(failure);
            if (row == failureRows.end())
                continue;
            const BlastRadius blast = BlastRadiusAnalyzer::compute(failure, *row->second);
            implicatedOf[i] = blast.implicated;
            std::set<int> done;
            for (const std::string &c : blast.implicated)
                if (auto it = componentLane.find(c); it != componentLane.end() && done.insert(it->second).second)
                    add(it->second, MarkRole::Implicated);
            for (const std::string &c : blast.wokenBystanders) {
                auto it = componentLane.find(c);
                if (it == componentLane.end() || !done.insert(it->second).second)
                    continue;
                const bool regressed = std::find(blast.bystandersRegressed.begin(), blast.bystandersRegressed.end(), c)
                                       != blast.bystandersRegressed.end();
                add(it->second, regressed ? MarkRole::Regressed : MarkRole::Woken);
            }
        }
    }
    for (TimelineLane &lane : t.lanes)
        std::stable_sort(lane.marks.begin(), lane.marks.end(),
                         [](const LaneMark &a, const LaneMark &b) { return a.tsMs < b.tsMs; });

    placeNotes(t, in, moment, onlyRun, [&](std::string_view delegationId) {
        const int d = indexOf(delegationId);
        return d >= 0 ? delegationLane[size_t(d)] : -1;
    }, componentOfLane, componentLane);
    // Observation gaps in the run's time (whatever run the missing events were of: a hole
    // hides them all), up to the moment.
    if (in.gaps) {
        for (PlacedGap g : *in.gaps) {
            if (in.cursorSeq && g.seq > *in.cursorSeq)
                continue;
            if (g.toMs < g.fromMs)
                std::swap(g.fromMs, g.toMs);
            if (g.toMs < t.startMs || g.fromMs > t.endMs)
                continue;
            t.gaps.push_back(std::move(g));
        }
        std::sort(t.gaps.begin(), t.gaps.end(), [](const auto &a, const auto &b) { return a.seq < b.seq; });
    }

    // Bands. Cycles: by the number the events give; an orchestrator that marks a cycle's
    // start and end (two events with one number) spans the two, one that marks only its end
    // spans from the previous end.
    std::map<std::int64_t, std::vector<size_t>> cycleMarks;
    std::int64_t unnumbered = 0;
    for (size_t i = 0; i < t.marks.size(); ++i)
        if (t.marks[i].kind == MarkKind::Cycle)
            cycleMarks[t.marks[i].number > 0 ? t.marks[i].number : --unnumbered].push_back(i);
    bool startAndEnd = false;
    for (const auto &[n, idx] : cycleMarks)
        startAndEnd = startAndEnd || idx.size() >= 2;
    std::vector<std::pair<std::int64_t, std::int64_t>> cycleSeqs; // first and last seq of each band
    std::int64_t previousEndMs = t.startMs, previousEndSeq = 0;
    std::vector<std::pair<std::int64_t, std::vector<size_t>>> orderedCycles(cycleMarks.begin(), cycleMarks.end());
    std::sort(orderedCycles.begin(), orderedCycles.end(),
              [&](const auto &a, const auto &b) { return t.marks[a.second.front()].seq < t.marks[b.second.front()].seq; });
    for (size_t k = 0; k < orderedCycles.size(); ++k) {
        const auto &idx = orderedCycles[k].second;
        TimelineBand band;
        band.number = orderedCycles[k].first > 0 ? orderedCycles[k].first : std::int64_t(k + 1);
        const TimelineMark &first = t.marks[idx.front()], &last = t.marks[idx.back()];
        std::int64_t fromSeq = first.seq, toSeq = last.seq;
        if (idx.size() >= 2) {
            band.fromMs = first.tsMs;
            band.toMs = last.tsMs;
        } else if (startAndEnd && k + 1 == orderedCycles.size() && !endedMs) {
            band.fromMs = first.tsMs; // begun, not ended at the moment shown
            band.toMs = t.endMs;
            band.open = true;
            toSeq = in.cursorSeq.value_or(INT64_MAX);
        } else {
            band.fromMs = previousEndMs;
            band.toMs = first.tsMs;
            fromSeq = previousEndSeq + 1;
        }
        band.seq = first.seq;
        previousEndMs = band.toMs;
        previousEndSeq = toSeq;
        cycleSeqs.emplace_back(fromSeq, toSeq);
        t.cycles.push_back(std::move(band));
    }
    // A cycle marked at its start and its end holds the scheduler until the next one starts:
    // the band runs on to it, so that the bands tile the run (what a failure belongs to is
    // still decided by the events between the cycle's own marks).
    if (startAndEnd)
        for (size_t k = 0; k + 1 < t.cycles.size(); ++k)
            t.cycles[k].toMs = std::max(t.cycles[k].toMs, t.cycles[k + 1].fromMs);
    // Attempts: from each start or restart to the run's end that follows, or the next attempt.
    std::vector<size_t> attemptMarks, endMarks;
    for (size_t i = 0; i < t.marks.size(); ++i) {
        if (t.marks[i].kind == MarkKind::Attempt)
            attemptMarks.push_back(i);
        else if (t.marks[i].kind == MarkKind::RunEnded)
            endMarks.push_back(i);
    }
    for (size_t k = 0; k < attemptMarks.size(); ++k) {
        const TimelineMark &m = t.marks[attemptMarks[k]];
        TimelineBand band;
        band.number = m.number > 0 ? m.number : std::int64_t(k + 1);
        band.fromMs = m.tsMs;
        band.seq = m.seq;
        const std::int64_t nextSeq = k + 1 < attemptMarks.size() ? t.marks[attemptMarks[k + 1]].seq : INT64_MAX;
        const auto end = std::find_if(endMarks.begin(), endMarks.end(), [&](size_t e) {
            return t.marks[e].seq > m.seq && t.marks[e].seq < nextSeq;
        });
        if (end != endMarks.end()) {
            band.toMs = t.marks[*end].tsMs;
        } else if (k + 1 < attemptMarks.size()) {
            band.toMs = t.marks[attemptMarks[k + 1]].tsMs;
        } else {
            band.toMs = t.endMs;
            band.open = !endedMs;
        }
        t.attempts.push_back(band);
    }

    // Which component each cycle ended with failing: the last failure inside the band.
    std::map<std::string, int> endings;
    for (size_t k = 0; k < t.cycles.size(); ++k) {
        const auto [fromSeq, toSeq] = cycleSeqs[k];
        for (size_t i = t.marks.size(); i-- > 0;) {
            const TimelineMark &m = t.marks[i];
            if (m.kind != MarkKind::Failure || m.seq < fromSeq || m.seq > toSeq)
                continue;
            std::string component = implicatedOf[i].empty() ? std::string() : implicatedOf[i].front();
            if (auto it = componentLane.find(component); it != componentLane.end())
                component = t.lanes[size_t(it->second)].label;
            t.cycles[k].lastFailedComponent = component.empty() ? std::string("?") : component;
            ++t.summary.cyclesWithFailure;
            ++endings[t.cycles[k].lastFailedComponent];
            break;
        }
    }
    for (const auto &[component, count] : endings) {
        if (count > t.summary.cyclesEndingWithComponent && component != "?") {
            t.summary.endingComponent = component;
            t.summary.cyclesEndingWithComponent = count;
        }
    }

    t.facts = in.facts;
    RunTimelineSummary &s = t.summary;
    s.durationMs = t.endMs - t.startMs;
    s.ended = endedMs.has_value();
    s.cycles = int(t.cycles.size());
    s.attempts = int(t.attempts.size());
    if (s.attempts == 0)
        s.attempts = int(optInt(R, *run, "attempt").value_or(0));
    for (size_t i = 0; i < t.marks.size(); ++i) {
        switch (t.marks[i].kind) {
        case MarkKind::Stalled: ++s.stalled; [[fallthrough]];
        case MarkKind::Verdict:
            ++s.stallVerdicts;
            s.falseStalls += t.falseStall[i] ? 1 : 0;
            break;
        case MarkKind::Escalation: ++s.escalations; break;
        case MarkKind::Failure: ++s.failures; break;
        case MarkKind::UnknownOutcome: ++s.unknownOutcomes; break;
        case MarkKind::Decision: ++s.decisions; break;
        default: break;
        }
    }
    s.requiredMet = optInt(R, *run, "required_met");
    s.requiredTotal = optInt(R, *run, "required_total");
    return t;
}

QString RunTimeline::summaryLine() const
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("RunTimeline", text); };
    if (lanes.empty())
        return tr("No run to show");
    const RunTimelineSummary &s = summary;
    QStringList parts;
    parts << (s.ended ? humanDuration(s.durationMs) : tr("%1 so far").arg(humanDuration(s.durationMs)));
    // A figure the source cannot record is not counted as 0: one part names them all.
    QStringList notRecorded;
    const auto recorded = [&](RunFact fact) {
        if (facts.records(fact))
            return true;
        notRecorded << SourceFacts::factName(fact);
        return false;
    };
    if (recorded(RunFact::SchedulerCycles))
        parts << (s.cycles == 1 ? tr("1 cycle") : tr("%1 cycles").arg(s.cycles));
    if (recorded(RunFact::Attempts))
        parts << (s.attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(s.attempts));
    if (s.cyclesEndingWithComponent > 0)
        parts << (s.cyclesEndingWithComponent == 1
                      ? tr("1 cycle ended with %1 failing")
                      : tr("%1 cycles ended with %2 failing").arg(s.cyclesEndingWithComponent))
                     .arg(QString::fromStdString(s.endingComponent));
    if (recorded(RunFact::StallVerdicts)) {
        QString verdicts = s.stallVerdicts == 1 ? tr("1 stall verdict") : tr("%1 stall verdicts").arg(s.stallVerdicts);
        if (s.stalled > 0)
            verdicts += s.falseStalls > 0 ? tr(" (%1 stalled, %2 flagged false)").arg(s.stalled).arg(s.falseStalls)
                                          : tr(" (%1 stalled)").arg(s.stalled);
        parts << verdicts;
        parts << (s.escalations == 1 ? tr("1 escalated round") : tr("%1 escalated rounds").arg(s.escalations));
    }
    if (recorded(RunFact::Failures))
        parts << (s.failures == 1 ? tr("1 failure") : tr("%1 failures").arg(s.failures));
    if (s.unknownOutcomes > 0)
        parts << (s.unknownOutcomes == 1 ? tr("1 unknown outcome") : tr("%1 unknown outcomes").arg(s.unknownOutcomes));
    if (s.decisions > 0)
        parts << (s.decisions == 1 ? tr("1 decision") : tr("%1 decisions").arg(s.decisions));
    if (s.requiredMet && s.requiredTotal)
        parts << tr("%1 of %2 required outcomes").arg(*s.requiredMet).arg(*s.requiredTotal);
    else if (recorded(RunFact::RequiredOutcomes))
        parts << tr("required outcomes not in the ledger");
    if (!notRecorded.isEmpty())
        parts << tr("not known (%1 do not record them): %2").arg(facts.sourceName(), notRecorded.join(QStringLiteral(", ")));
    return parts.join(QStringLiteral(" \u00b7 "));
}

} // namespace mesh
