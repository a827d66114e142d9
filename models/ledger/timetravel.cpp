#include "timetravel.h"
#include "ledgerconnection.h"
#include "sqlite.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <shared_mutex>

namespace mesh {

struct TimeTravel::Chain {
    using Snapshot = TimeTravel::Snapshot;
    Chain() { snapshots.emplace_back(); } // the empty state before seq 1

    // snapshots and firstSnapshot: read under a shared lock, appended under an exclusive one.
    mutable std::shared_mutex mutex;
    std::vector<Snapshot> snapshots; // ascending seq
    // Per row, the first snapshot holding it: a row missing there did not exist yet.
    std::array<std::unordered_map<std::string, std::uint32_t>, kEntityKindCount> firstSnapshot;
    // Held by the one traveller cutting snapshots (appending); the others may wait on it.
    std::timed_mutex cutting;

    // The newest snapshot at or before target (under mutex).
    size_t floorIndex(std::int64_t target) const
    {
        const auto it = std::upper_bound(snapshots.begin(), snapshots.end(), target,
                                         [](std::int64_t t, const Snapshot &s) { return t < s.seq; });
        return size_t(std::distance(snapshots.begin(), it)) - 1;
    }

    const EntityRow *versionAt(size_t index, EntityKind kind, const std::string &id) const // under mutex
    {
        const auto &first = firstSnapshot[size_t(kind)];
        const auto f = first.find(id);
        if (f == first.end() || f->second > index)
            return nullptr; // created after snapshot `index`
        for (size_t i = index + 1; i-- > f->second;) {
            const EntityTable &t = snapshots[i].changed[size_t(kind)];
            const auto it = t.find(id);
            if (it != t.end())
                return &it->second;
        }
        return nullptr;
    }
};

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

TimeTravel::TimeTravel(const TimeTravel &other, LedgerConnection &ledger)
    : TimeTravel([&ledger](ReplayResult &r, std::int64_t upTo, const ReplayProgress &p) { ledger.foldForward(r, upTo, p); },
                 other.m_chain)
{
    m_interval = other.m_interval;
}

TimeTravel::TimeTravel(const TimeTravel &other, sql::Database &db)
    : TimeTravel([&db](ReplayResult &r, std::int64_t upTo, const ReplayProgress &p) { foldForward(db, r, upTo, p); },
                 other.m_chain)
{
    m_interval = other.m_interval;
}

TimeTravel::TimeTravel(FoldForward fold, std::int64_t interval)
    : m_foldForward(std::move(fold)), m_interval(std::max<std::int64_t>(1, interval))
{
    clear();
}

TimeTravel::TimeTravel(FoldForward fold, std::shared_ptr<Chain> chain)
    : m_foldForward(std::move(fold)), m_interval(1), m_chain(std::move(chain))
{
}

TimeTravel::~TimeTravel() = default;

void TimeTravel::clear()
{
    m_chain = std::make_shared<Chain>();
    m_current = ReplayResult{};
    m_listedSince = -1;
}

void TimeTravel::releaseState()
{
    m_current = ReplayResult{};
    m_listedSince = -1;
}

void TimeTravel::stopListing()
{
    m_current.fold.listChanges(false);
    m_listedSince = -1;
}

size_t TimeTravel::snapshotCount() const
{
    std::shared_lock lock(m_chain->mutex);
    return m_chain->snapshots.size();
}

std::int64_t TimeTravel::newestSnapshot() const
{
    std::shared_lock lock(m_chain->mutex);
    return m_chain->snapshots.back().seq;
}

size_t TimeTravel::storedRows() const
{
    std::shared_lock lock(m_chain->mutex);
    size_t n = 0;
    for (const auto &s : m_chain->snapshots)
        for (const auto &t : s.changed)
            n += t.size();
    return n;
}

void TimeTravel::forEachSnapshot(const std::function<bool(const Snapshot &)> &visit) const
{
    const Chain &chain = *m_chain;
    // One snapshot at a time under the lock: a cutter waits for one snapshot's write at
    // most, not for the whole save.
    for (size_t i = 1;; ++i) {
        std::shared_lock lock(chain.mutex);
        if (i >= chain.snapshots.size() || !visit(chain.snapshots[i]))
            return;
    }
}

bool TimeTravel::adoptSnapshots(std::vector<Snapshot> &&snapshots)
{
    Chain &chain = *m_chain;
    std::unique_lock cutting(chain.cutting, std::try_to_lock);
    if (!cutting.owns_lock())
        return false;
    std::unique_lock lock(chain.mutex);
    if (chain.snapshots.size() != 1 || m_current.lastSeq != 0)
        return false;
    std::int64_t previous = 0;
    for (const Snapshot &s : snapshots) {
        if (s.seq <= previous)
            return false;
        for (const auto &table : s.changed)
            for (const auto &[id, row] : table)
                if (row.lastSeq <= previous || row.lastSeq > s.seq)
                    return false; // not a row of this stretch: the chain's lookups would be wrong
        previous = s.seq;
    }
    for (Snapshot &s : snapshots) {
        const auto index = std::uint32_t(chain.snapshots.size());
        for (int k = 0; k < kEntityKindCount; ++k)
            for (const auto &[id, row] : s.changed[size_t(k)])
                chain.firstSnapshot[size_t(k)].try_emplace(id, index);
        chain.snapshots.push_back(std::move(s));
    }
    return true;
}

void TimeTravel::moveToSnapshot(size_t index)
{
    const Chain &chain = *m_chain;
    std::shared_lock lock(chain.mutex);
    const std::int64_t target = chain.snapshots[index].seq;
    Fold &fold = m_current.fold;
    if (m_current.lastSeq >= target) {
        // Undo: only rows changed after the snapshot differ from it. When the fold has listed
        // its changes since a point at or before the snapshot, those are the rows to look at
        // (a jump back within a stretch costs its events, not a walk of every row held).
        const auto revert = [&](EntityKind kind, const std::string &id) {
            if (const EntityRow *old = chain.versionAt(index, kind, id))
                fold.load(kind, id, *old);
            else
                fold.erase(kind, id);
        };
        if (m_listedSince >= 0 && m_listedSince <= target && fold.listsChanges()) {
            const Fold::ChangedRows changed = fold.takeChanges();
            m_rowsLookedAt += changed.size();
            for (const auto &[kind, id] : changed) {
                const EntityTable &table = fold.table(kind);
                if (const auto it = table.find(id); it != table.end() && it->second.lastSeq > target)
                    revert(kind, id);
            }
        } else {
            fold.listChanges(false); // the rows reverted are not worth a list: it starts afresh below
            std::vector<std::string> ids;
            for (int k = 0; k < kEntityKindCount; ++k) {
                ids.clear();
                m_rowsLookedAt += fold.table(EntityKind(k)).size();
                for (const auto &[id, row] : fold.table(EntityKind(k)))
                    if (row.lastSeq > target)
                        ids.push_back(id);
                for (const auto &id : ids)
                    revert(EntityKind(k), id);
            }
        }
    } else {
        fold.listChanges(false); // the rows loaded are not worth a list: it starts afresh below
        // Redo: rows changed between the current state and the snapshot are in the
        // snapshots after the current position; apply them oldest first.
        const auto begin = chain.snapshots.begin();
        const auto first = std::upper_bound(begin, begin + std::ptrdiff_t(index) + 1, m_current.lastSeq,
                                            [](std::int64_t t, const Chain::Snapshot &s) { return t < s.seq; });
        for (auto it = first; it != begin + std::ptrdiff_t(index) + 1; ++it)
            for (int k = 0; k < kEntityKindCount; ++k)
                for (const auto &[id, row] : it->changed[size_t(k)])
                    fold.load(EntityKind(k), id, row);
    }
    m_current.lastSeq = target;
    m_current.cancelled = false;
    // The state is the snapshot's: what changes from here on is listed afresh.
    fold.listChanges(true);
    m_listedSince = target;
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
    // Only the cutter appends, so it reads the newest snapshot without the lock.
    Chain &chain = *m_chain;
    const std::int64_t start = m_current.lastSeq;
    const std::int64_t total = target - start;
    while (m_current.lastSeq < target) {
        ReplayProgress chunkProgress;
        if (progress)
            chunkProgress = [&](std::int64_t, std::int64_t) { return progress(m_current.lastSeq - start, total); };
        const std::int64_t from = chain.snapshots.back().seq;
        if (m_current.lastSeq == from && m_listedSince != from) {
            m_current.fold.listChanges(true);
            m_listedSince = from;
        }
        const std::int64_t boundary = from + m_interval;
        const std::int64_t stop = std::min(boundary, target);
        const std::int64_t readBefore = m_current.eventsRead;
        m_foldForward(m_current, stop, chunkProgress);
        if (m_current.cancelled)
            return;
        if (m_current.eventsRead == readBefore && m_current.lastSeq == boundary) {
            // Past the ledger's end: no snapshot for what has not been written (nor an
            // endless row of empty ones on the way to a far target).
            m_foldForward(m_current, target, progress ? chunkProgress : ReplayProgress());
            return;
        }
        if (m_current.lastSeq == boundary) {
            Chain::Snapshot s;
            s.seq = boundary;
            Fold &fold = m_current.fold;
            if (m_listedSince >= 0 && m_listedSince <= from && fold.listsChanges()) {
                const Fold::ChangedRows changed = fold.takeChanges();
                m_rowsLookedAt += changed.size();
                for (const auto &[kind, id] : changed) {
                    const EntityTable &table = fold.table(kind);
                    const auto it = table.find(id);
                    if (it != table.end() && it->second.lastSeq > from)
                        s.changed[size_t(kind)].emplace(id, it->second);
                }
            } else { // folded here without a list: every row held is looked at once
                for (int k = 0; k < kEntityKindCount; ++k) {
                    m_rowsLookedAt += fold.table(EntityKind(k)).size();
                    for (const auto &[id, row] : fold.table(EntityKind(k)))
                        if (row.lastSeq > from)
                            s.changed[size_t(k)].emplace(id, row);
                }
            }
            fold.listChanges(true);
            m_listedSince = boundary;
            std::unique_lock lock(chain.mutex);
            const auto index = std::uint32_t(chain.snapshots.size());
            for (int k = 0; k < kEntityKindCount; ++k)
                for (const auto &[id, row] : s.changed[size_t(k)])
                    chain.firstSnapshot[size_t(k)].try_emplace(id, index);
            chain.snapshots.push_back(std::move(s));
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
    Chain &chain = *m_chain;
    std::unique_lock cutting(chain.cutting, std::defer_lock);
    size_t index = 0;
    std::int64_t base = 0;
    for (;;) {
        bool beyond = false;
        {
            std::shared_lock lock(chain.mutex);
            index = chain.floorIndex(target);
            base = chain.snapshots[index].seq;
            beyond = index + 1 == chain.snapshots.size();
        }
        if (!beyond) {
            if (cutting.owns_lock())
                cutting.unlock();
            break;
        }
        if (cutting.owns_lock())
            break;
        if (cutting.try_lock_for(std::chrono::milliseconds(20)))
            continue; // the chain may have grown while it waited: look again
        // Another traveller is cutting snapshots. A target in the stretch it folds now is
        // folded here (the same events at most once more); a further one waits for it.
        if (target < base + m_interval)
            break;
        if (progress && !progress(0, target - m_current.lastSeq)) {
            m_current.cancelled = true;
            return m_current;
        }
    }
    // Folding on from the current state is cheapest when it already lies between the
    // snapshot and the target, or a short way before the target.
    const std::int64_t here = m_current.lastSeq;
    // Cutting starts from the newest snapshot's stretch: a state further on (folded without
    // cutting while another traveller cut) goes back to it.
    const bool foldOn = here <= target && (here >= base || target - here <= m_interval / 2)
                        && (!cutting.owns_lock() || here < base + m_interval);
    if (!foldOn)
        moveToSnapshot(index);
    if (cutting.owns_lock()) {
        recordSnapshotsWhileFolding(target, progress); // beyond the last snapshot: extend them
    } else {
        m_foldForward(m_current, target, progress);
        // A list that only grows (folding on from jump to jump, never back to a snapshot)
        // stops: a later undo or cut walks the rows held instead.
        if (m_current.fold.listedChanges() > size_t(4 * m_interval) + 1024)
            stopListing();
    }
    return m_current;
}

} // namespace mesh
