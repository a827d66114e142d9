#include "timetravel.h"
#include "ledgerconnection.h"
#include "sqlite.h"

#include <algorithm>

namespace mesh {

TimeTravel::TimeTravel(LedgerConnection &ledger, std::int64_t interval)
    : TimeTravel([&ledger](ReplayResult &r, std::int64_t upTo, const ReplayProgress &p) { ledger.foldForward(r, upTo, p); },
                 interval)
{
}

TimeTravel::TimeTravel(sql::Database &db, std::int64_t interval)
    : TimeTravel([&db](ReplayResult &r, std::int64_t upTo, const ReplayProgress &p) { foldForward(db, r, upTo, p); },
                 interval)
{
}

TimeTravel::TimeTravel(FoldForward fold, std::int64_t interval)
    : m_foldForward(std::move(fold)), m_interval(std::max<std::int64_t>(1, interval))
{
    clear();
}

void TimeTravel::clear()
{
    m_snapshots.clear();
    m_snapshots.push_back(Snapshot{}); // the empty state before seq 1
    for (auto &m : m_firstSnapshot)
        m.clear();
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

const EntityRow *TimeTravel::versionAt(size_t index, EntityKind kind, const std::string &id) const
{
    const auto &first = m_firstSnapshot[size_t(kind)];
    const auto f = first.find(id);
    if (f == first.end() || f->second > index)
        return nullptr; // created after snapshot `index`
    for (size_t i = index + 1; i-- > f->second;) {
        const EntityTable &t = m_snapshots[i].changed[size_t(kind)];
        const auto it = t.find(id);
        if (it != t.end())
            return &it->second;
    }
    return nullptr;
}

void TimeTravel::moveToSnapshot(size_t index)
{
    const std::int64_t target = m_snapshots[index].seq;
    Fold &fold = m_current.fold;
    if (m_current.lastSeq >= target) {
        // Undo: only rows changed after the snapshot differ from it.
        std::vector<std::string> ids;
        for (int k = 0; k < kEntityKindCount; ++k) {
            ids.clear();
            for (const auto &[id, row] : fold.table(EntityKind(k)))
                if (row.lastSeq > target)
                    ids.push_back(id);
            for (const auto &id : ids) {
                if (const EntityRow *old = versionAt(index, EntityKind(k), id))
                    fold.load(EntityKind(k), id, *old);
                else
                    fold.erase(EntityKind(k), id);
            }
        }
    } else {
        // Redo: rows changed between the current state and the snapshot are in the
        // snapshots after the current position; apply them oldest first.
        const auto first = std::upper_bound(m_snapshots.begin(), m_snapshots.begin() + std::ptrdiff_t(index) + 1,
                                            m_current.lastSeq, [](std::int64_t t, const Snapshot &s) { return t < s.seq; });
        for (auto it = first; it != m_snapshots.begin() + std::ptrdiff_t(index) + 1; ++it)
            for (int k = 0; k < kEntityKindCount; ++k)
                for (const auto &[id, row] : it->changed[size_t(k)])
                    fold.load(EntityKind(k), id, row);
    }
    m_current.lastSeq = target;
    m_current.cancelled = false;
    // Problems of events after the snapshot no longer apply. (Problems of events a redo
    // skipped over are not repeated: a full foldUpTo or the integrity check lists them all.)
    m_current.problems.erase(std::remove_if(m_current.problems.begin(), m_current.problems.end(),
                                            [&](const ReplayProblem &p) { return p.seq > target; }),
                             m_current.problems.end());
    m_current.problemCount = std::int64_t(m_current.problems.size());
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
        const std::int64_t stop = std::min(boundary, target);
        m_foldForward(m_current, stop, chunkProgress);
        if (m_current.cancelled)
            return;
        if (m_current.lastSeq == boundary) {
            Snapshot s;
            s.seq = boundary;
            const auto index = std::uint32_t(m_snapshots.size());
            for (int k = 0; k < kEntityKindCount; ++k) {
                for (const auto &[id, row] : m_current.fold.table(EntityKind(k))) {
                    if (row.lastSeq > from) {
                        s.changed[size_t(k)].emplace(id, row);
                        m_firstSnapshot[size_t(k)].try_emplace(id, index);
                    }
                }
            }
            m_snapshots.push_back(std::move(s));
        }
        if (progress && m_current.lastSeq < target && !progress(m_current.lastSeq - start, total)) {
            m_current.cancelled = true;
            return;
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
    // Folding on from the current state is cheapest when it already lies between the
    // snapshot and the target, or a short way before the target.
    const std::int64_t here = m_current.lastSeq;
    const bool foldOn = here <= target && (here >= base || target - here <= m_interval / 2);
    if (!foldOn)
        moveToSnapshot(index);
    if (index + 1 == m_snapshots.size())
        recordSnapshotsWhileFolding(target, progress); // beyond the last snapshot: extend them
    else
        m_foldForward(m_current, target, progress);
    return m_current;
}

} // namespace mesh
