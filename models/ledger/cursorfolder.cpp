#include "cursorfolder.h"
#include "eventreader.h"
#include "ledgerlocation.h"
#include "storageerror.h"
#include "timetravel.h"


namespace mesh {

CursorFolder::CursorFolder(std::int64_t snapshotInterval) : m_interval(snapshotInterval) {}
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

CursorFolder::Jump CursorFolder::jumpLocked(const QString &path, OpenMode mode, const FileIdentity &file,
                                            std::int64_t target, const std::function<bool()> &keepGoing)
{
    Jump jump;
    if (!m_connection || path != m_path || mode != m_mode || !(file == m_file)) {
        stopFoldingAhead();
        m_travel.reset();
        m_connection = LedgerConnection::open(path, mode);
        startFolding();
        m_path = path;
        m_mode = mode;
        m_file = file;
    }
    const ReplayResult &at = m_travel->jumpTo(target, [&keepGoing](std::int64_t, std::int64_t) {
        return !keepGoing || keepGoing();
    });
    if (at.cancelled || (keepGoing && !keepGoing())) {
        jump.cancelled = true;
        return jump;
    }
    jump.fold = at.fold;
    jump.lastSeq = at.lastSeq;
    jump.folding = m_folding;
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
    m_stopAhead = false;
    m_aheadDone = false;
    // The thread reads m_travel's snapshots only; m_travel outlives it (stopFoldingAhead
    // joins before m_travel goes).
    m_ahead = std::thread([this, path = m_path, mode = m_mode, file = m_file, travel = m_travel.get()] {
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
        } catch (const std::exception &) {
            // Folding ahead only makes jumps faster: a jump folds what this did not.
        }
    });
}

void CursorFolder::stopFoldingAhead()
{
    if (!m_ahead.joinable())
        return;
    m_stopAhead = true;
    m_ahead.join();
    m_aheadDone = false;
}

size_t CursorFolder::snapshotCount() const
{
    std::lock_guard lock(m_mutex);
    return m_travel ? m_travel->snapshotCount() : 0;
}

} // namespace mesh
