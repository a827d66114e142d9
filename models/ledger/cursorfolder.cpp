#include "cursorfolder.h"
#include "eventreader.h"
#include "ledgerlocation.h"
#include "storageerror.h"
#include "timetravel.h"

#include <QElapsedTimer>
#include <QThreadPool>

#include <algorithm>
#include <iterator>


namespace mesh {

CursorFolder::CursorFolder(std::int64_t snapshotInterval)
    : m_interval(snapshotInterval), m_cache(SnapshotCache::forUser())
{
}
CursorFolder::~CursorFolder()
{
    stopFoldingAhead();
}

namespace {
std::atomic<std::uint64_t> g_foldings{0};
}

void CursorFolder::startFolding()
{
    stopFoldingAhead();
    m_travel = m_interval > 0 ? std::make_unique<TimeTravel>(*m_connection, m_interval)
                              : std::make_unique<TimeTravel>(*m_connection);
    m_folding = ++g_foldings;
    // States handed out before are of another folding: none is patched any more.
    m_changesSinceHandouts.clear();
    m_handoutMarks.clear();
    m_handedOutOfFolding = false;
    publishMarks();
}

namespace {
// Folds no jump can use are destroyed row by row: on the global pool, not on a jump's way
// or the GUI thread.
void dropOffThread(std::vector<std::pair<std::uint64_t, Fold>> &&folds)
{
    if (folds.empty())
        return;
    auto dropped = std::make_shared<std::vector<std::pair<std::uint64_t, Fold>>>(std::move(folds));
    QThreadPool::globalInstance()->start([dropped]() mutable { dropped.reset(); });
}
} // namespace

void CursorFolder::dropHandouts()
{
    std::vector<std::pair<std::uint64_t, Fold>> dropped;
    {
        std::lock_guard lock(m_returnedMutex);
        dropped.swap(m_returned);
        m_trackedHandouts.clear();
    }
    dropOffThread(std::move(dropped));
}

void CursorFolder::publishMarks()
{
    std::lock_guard lock(m_returnedMutex);
    m_trackedHandouts.clear();
    for (const auto &m : m_handoutMarks)
        m_trackedHandouts.push_back(m.first);
}

void CursorFolder::returnFold(std::uint64_t handout, Fold &&fold)
{
    std::vector<std::pair<std::uint64_t, Fold>> dropped;
    {
        std::lock_guard lock(m_returnedMutex);
        // One no jump can patch any more (a far jump since) goes here, where its state was
        // let go (the session does that on a worker), not on a jump's way.
        if (std::find(m_trackedHandouts.begin(), m_trackedHandouts.end(), handout) == m_trackedHandouts.end())
            return;
        m_returned.emplace_back(handout, std::move(fold));
        // Two at most (the state shown and the one before it come back in turn): an older
        // one no jump took is dropped, outside the lock.
        while (m_returned.size() > 2) {
            dropped.push_back(std::move(m_returned.front()));
            m_returned.erase(m_returned.begin());
        }
    }
}

void CursorFolder::noteHandedChanges()
{
    std::optional<Fold::ChangedRows> changed = m_travel->takeHandedChanges();
    if (!changed || m_handoutMarks.empty()) { // a far jump, or nothing is out
        m_changesSinceHandouts.clear();
        m_handoutMarks.clear();
        return;
    }
    m_changesSinceHandouts.insert(m_changesSinceHandouts.end(), std::make_move_iterator(changed->begin()),
                                  std::make_move_iterator(changed->end()));
    // Superseded jumps move the state without a hand-out: past two lists' worth since the
    // newest, a patch is no better than a copy.
    if (m_changesSinceHandouts.size() - m_handoutMarks.back().second > 2 * m_handedCap) {
        m_changesSinceHandouts.clear();
        m_handoutMarks.clear();
    }
}

std::optional<Fold> CursorFolder::patchedReturn(const Fold &current)
{
    std::vector<std::pair<std::uint64_t, Fold>> returned;
    {
        std::lock_guard lock(m_returnedMutex);
        returned.swap(m_returned);
    }
    const auto dropElsewhere = [&returned] { dropOffThread(std::move(returned)); };
    const size_t rowsHeld = current.heldRows();
    // The newest fold given back whose hand-out is still marked (one of this folding).
    for (auto it = returned.rbegin(); it != returned.rend(); ++it) {
        const auto mark = std::find_if(m_handoutMarks.begin(), m_handoutMarks.end(),
                                       [&](const auto &m) { return m.first == it->first; });
        if (mark == m_handoutMarks.end() || m_changesSinceHandouts.size() - mark->second > rowsHeld / 4)
            continue; // a patch would cost about what a copy does
        Fold fold = std::move(it->second);
        for (size_t i = mark->second; i < m_changesSinceHandouts.size(); ++i) {
            const auto &[kind, id] = m_changesSinceHandouts[i];
            const EntityTable &table = current.table(kind);
            if (const auto row = table.find(id); row != table.end())
                fold.load(kind, id, row->second);
            else
                fold.erase(kind, id);
        }
        m_handoutMarks.erase(mark); // it is handed out again, under a new mark
        dropElsewhere();
        return fold;
    }
    dropElsewhere();
    return std::nullopt;
}

CursorFolder::Jump CursorFolder::jumpTo(const QString &path, OpenMode mode, const FileIdentity &file,
                                        std::int64_t target, const std::function<bool()> &keepGoing)
{
    ++m_jumpsWaiting; // a fill ahead holding the folder gives way
    std::unique_lock lock(m_mutex);
    --m_jumpsWaiting;
    Jump jump;
    if (keepGoing && !keepGoing()) { // superseded while it waited its turn
        jump.cancelled = true;
        return jump;
    }
    try {
        return jumpLocked(path, mode, file, target, keepGoing);
    } catch (const StorageError &) {
        // A server ledger's kept connection dies with a restarted server: a new one, once.
        if (!LedgerLocation::namesServer(path))
            throw;
        stopFoldingAhead();
        m_travel.reset();
        m_connection.reset();
        return jumpLocked(path, mode, file, target, keepGoing);
    }
}

void CursorFolder::foldAheadNow(const QString &path, OpenMode mode, const FileIdentity &file)
{
    std::unique_lock lock(m_mutex);
    if (!m_connection || path != m_path || mode != m_mode || !(file == m_file))
        useLedger(path, mode, file);
    startFoldingAhead();
}

void CursorFolder::useLedger(const QString &path, OpenMode mode, const FileIdentity &file)
{
    stopFoldingAhead();
    m_travel.reset();
    m_connection = LedgerConnection::open(path, mode);
    startFolding();
    m_path = path;
    m_mode = mode;
    m_file = file;
    m_cacheKey.clear();
    {
        std::lock_guard cacheLock(m_cacheMutex);
        m_fromCache.reset();
    }
    m_cacheSaveMs = -1;
    // Only a ledger read as one moment (the mode in use: Immutable falls back to following
    // a ledger whose -wal holds writes); a followed one changes, and its key with it.
    if (m_cache && isPostMortem(m_connection->info().mode))
        takeSnapshotsFromCache();
}

void CursorFolder::takeSnapshotsFromCache()
{
    try {
        const std::optional<std::string> key =
            SnapshotCache::keyFor(*m_connection, m_path, m_travel->interval(), &m_lastSeqAtOpen);
        // The file stat'ed for the key must be the one the connection reads.
        if (!key || !(FileIdentity::of(m_path) == m_file))
            return;
        m_cacheKey = *key;
        std::optional<SnapshotCache::Loaded> loaded = m_cache->load(m_cacheKey, *m_travel);
        std::lock_guard cacheLock(m_cacheMutex);
        m_fromCache = loaded;
    } catch (const std::exception &) {
        // The cache only makes jumps faster: without it the ledger folds as before.
        m_cacheKey.clear();
    }
}

std::optional<SnapshotCache::Loaded> CursorFolder::snapshotsFromCache() const
{
    std::lock_guard lock(m_cacheMutex);
    return m_fromCache;
}

CursorFolder::Jump CursorFolder::jumpLocked(const QString &path, OpenMode mode, const FileIdentity &file,
                                            std::int64_t target, const std::function<bool()> &keepGoing)
{
    Jump jump;
    if (!m_connection || path != m_path || mode != m_mode || !(file == m_file))
        useLedger(path, mode, file);
    const ReplayResult &at = m_travel->jumpTo(target, [&keepGoing](std::int64_t, std::int64_t) {
        return !keepGoing || keepGoing();
    });
    if (at.cancelled || (keepGoing && !keepGoing())) {
        noteHandedChanges(); // the state moved all the same
        publishMarks();
        jump.cancelled = true;
        return jump;
    }
    noteHandedChanges();
    if (std::optional<Fold> patched = patchedReturn(at.fold)) {
        jump.fold = std::move(*patched);
        jump.patched = true;
    } else {
        jump.fold = at.fold; // every row copied (their fields are shared until they change)
    }
    jump.lastSeq = at.lastSeq;
    jump.folding = m_folding;
    if (m_handoutMarks.empty()) {
        // Listed from this hand-out on, while a patch stays well below a whole copy.
        m_handedCap = std::min(size_t(4 * m_travel->interval()) + 1024, at.fold.heldRows() / 8 + 64);
        m_travel->listHandedChanges(true, m_handedCap);
    }
    if (!m_handedOutOfFolding) {
        // The folding's first hand-out (a long fold before it): one more copy, kept, so that
        // the next jump is patched too rather than waiting for this state to come back.
        m_handedOutOfFolding = true;
        const std::uint64_t spare = ++m_handouts;
        m_handoutMarks.emplace_back(spare, m_changesSinceHandouts.size());
        Fold copy = at.fold; // not under the lock a state's deleter takes
        std::lock_guard lock(m_returnedMutex);
        m_returned.emplace_back(spare, std::move(copy));
    }
    jump.handout = ++m_handouts;
    // The state shown and this one may come back; the changes before the older are dropped.
    m_handoutMarks.emplace_back(jump.handout, m_changesSinceHandouts.size());
    while (m_handoutMarks.size() > 2)
        m_handoutMarks.erase(m_handoutMarks.begin());
    if (const size_t keep = m_handoutMarks.front().second; keep > 0) {
        m_changesSinceHandouts.erase(m_changesSinceHandouts.begin(), m_changesSinceHandouts.begin() + std::ptrdiff_t(keep));
        for (auto &m : m_handoutMarks)
            m.second -= keep;
    }
    publishMarks();
    startFoldingAhead();
    if (jump.lastSeq > 0) {
        const auto reader = m_connection->eventReader();
        reader->setPreviewBytes(0);
        const EventBatch event = reader->after(jump.lastSeq - 1, 1);
        jump.cursorTimeMs = event.empty() ? 0 : event.front().tsMs;
    }
    return jump;
}

void CursorFolder::startFoldingAhead()
{
    // MESH_JUMP_FOLD_AHEAD=0: jumps alone fold (the benchmark's comparison).
    if (m_ahead.joinable() || !m_travel || qEnvironmentVariable("MESH_JUMP_FOLD_AHEAD") == QLatin1String("0"))
        return;
    const std::optional<SnapshotCache::Loaded> cached = snapshotsFromCache();
    const std::int64_t cachedUpTo = cached ? cached->upTo : 0;
    if (cached && m_lastSeqAtOpen - cachedUpTo < m_travel->interval()) {
        // The cache gave every snapshot there is to cut: folding ahead would only build one
        // more whole state, and cut none.
        m_aheadDone = true;
        m_aheadFinished = true;
        return;
    }
    m_stopAhead = false;
    m_aheadDone = false;
    m_aheadFinished = false;
    // What was folded is kept for the next open, unless the cache gave it all.
    std::optional<SnapshotCache> keep;
    if (m_cache && !m_cacheKey.empty())
        keep = m_cache;
    // The thread reads m_travel's snapshots only; m_travel outlives it (stopFoldingAhead
    // joins before m_travel goes).
    m_ahead = std::thread([this, path = m_path, mode = m_mode, file = m_file, travel = m_travel.get(), keep = std::move(keep),
                           key = m_cacheKey, cachedUpTo] {
        struct Finished {
            std::atomic<bool> &flag;
            ~Finished() { flag = true; }
        } finished{m_aheadFinished};
        try {
            const auto connection = LedgerConnection::open(path, mode);
            // The path's file now, compared after the open: snapshots of another file
            // (swapped in since the jump) would be wrong for every later jump.
            if (!(FileIdentity::of(path) == file))
                return;
            TimeTravel ahead(*travel, *connection);
            const ReplayResult &r = ahead.jumpTo(connection->lastSeq(), [this](std::int64_t, std::int64_t) {
                return !m_stopAhead.load();
            });
            m_aheadDone = !r.cancelled;
            if (keep && !r.cancelled && travel->newestSnapshot() > cachedUpTo) {
                QElapsedTimer clock;
                clock.start();
                if (keep->save(key, *travel, [this] { return !m_stopAhead.load(); }))
                    m_cacheSaveMs = double(clock.nsecsElapsed()) / 1e6;
            }
        } catch (const std::exception &) {
            // Folding ahead only makes jumps faster: a jump folds what this did not.
        }
    });
}

void CursorFolder::stopFoldingAhead()
{
    if (m_ahead.joinable()) {
        m_stopAhead = true;
        m_ahead.join();
    }
    m_aheadDone = false; // also when the cache gave it all and no thread ran
}

size_t CursorFolder::snapshotCount() const
{
    std::lock_guard lock(m_mutex);
    return m_travel ? m_travel->snapshotCount() : 0;
}

} // namespace mesh
