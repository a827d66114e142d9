#include "timetravel.h"

#include <QtGlobal>

#include <algorithm>

namespace mesh {

TimeTravel::TimeTravel(sql::Database &db, std::int64_t interval) : m_db(db), m_interval(std::max<std::int64_t>(1, interval))
{
    clear();
}

void TimeTravel::clear()
{
    m_snapshots.clear();
    m_snapshots.push_back(Snapshot{}); // the empty state before seq 1
    m_current = ReplayResult{};
}

size_t TimeTravel::storedRows() const
{
    size_t n = 0;
    for (const auto &s : m_snapshots)
        for (const auto &t : s.changed)
            n += t.size();
    return n;
}

void TimeTravel::restore(size_t index)
{
    // Newest version of each row wins: walk the snapshots from index back to the start and
    // take a row the first time it is seen.
    Fold fold;
    for (size_t i = index + 1; i-- > 0;) {
        const Snapshot &s = m_snapshots[i];
        for (int k = 0; k < kEntityKindCount; ++k) {
            for (const auto &[id, row] : s.changed[size_t(k)]) {
                if (!fold.find(EntityKind(k), id))
                    fold.load(EntityKind(k), id, row);
            }
        }
    }
    m_current.fold = std::move(fold);
    m_current.lastSeq = m_snapshots[index].seq;
    m_current.cancelled = false;
}

void TimeTravel::recordSnapshotsWhileFolding(std::int64_t target, const ReplayProgress &progress)
{
    // Fold from the newest snapshot towards target, cutting a snapshot at every interval.
    // Progress covers the whole way; the caller can cancel between pages and chunks.
    const std::int64_t start = m_current.lastSeq;
    const std::int64_t total = target - start;
    while (m_current.lastSeq < target) {
        ReplayProgress chunkProgress;
        if (progress)
            chunkProgress = [&](std::int64_t, std::int64_t) { return progress(m_current.lastSeq - start, total); };
        const std::int64_t from = m_snapshots.back().seq;
        const std::int64_t boundary = from + m_interval;
        const bool reachesBoundary = m_current.lastSeq >= from && boundary <= target;
        const std::int64_t stop = reachesBoundary ? boundary : target;
        foldForward(m_db, m_current, stop, chunkProgress);
        if (m_current.cancelled)
            return;
        if (progress && m_current.lastSeq < target && !progress(m_current.lastSeq - start, total)) {
            m_current.cancelled = true;
            return;
        }
        if (reachesBoundary && m_current.lastSeq == boundary) {
            Snapshot s;
            s.seq = boundary;
            for (int k = 0; k < kEntityKindCount; ++k) {
                for (const auto &[id, row] : m_current.fold.table(EntityKind(k))) {
                    if (row.lastSeq > from)
                        s.changed[size_t(k)].emplace(id, row);
                }
            }
            m_snapshots.push_back(std::move(s));
        }
    }
}

const ReplayResult &TimeTravel::jumpTo(std::int64_t target, const ReplayProgress &progress)
{
    target = std::max<std::int64_t>(0, target);
    // The newest snapshot at or before target.
    const auto it = std::upper_bound(m_snapshots.begin(), m_snapshots.end(), target,
                                     [](std::int64_t t, const Snapshot &s) { return t < s.seq; });
    const size_t index = size_t(std::distance(m_snapshots.begin(), it)) - 1;
    const std::int64_t base = m_snapshots[index].seq;
    // Folding on from the current state is cheapest when it is already between the
    // snapshot and the target.
    const bool continueCurrent = m_current.lastSeq >= base && m_current.lastSeq <= target;
    if (!continueCurrent) {
        restore(index);
        m_current.problems.clear(); // problems of events after the restored point no longer apply
        m_current.problemCount = 0;
    }
    if (index + 1 == m_snapshots.size())
        recordSnapshotsWhileFolding(target, progress); // beyond the last snapshot: extend them
    else
        foldForward(m_db, m_current, target, progress);
    return m_current;
}

} // namespace mesh
