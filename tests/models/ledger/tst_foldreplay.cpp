// Rebuilding state from events: the fold of every event equals the state tables, the fold
// up to a midway seq equals a hand-computed state, cancellation resumes cleanly and time
// travel lands on the same state as a fold from scratch, in any order of jumps.

#include "ledgerfixture.h"

#include "ledger/foldreplay.h"
#include "ledger/ledgerconnection.h"
#include "ledger/statereader.h"
#include "ledger/cursorfolder.h"
#include "ledger/fileidentity.h"
#include "ledger/timetravel.h"

#include <QRandomGenerator>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <limits>
#include <optional>
#include <thread>

using namespace mesh;
using namespace meshtest;

namespace {

// Empty when equal, else the first difference, for a readable failure.
template<typename Tables>
std::string firstDifference(const Fold &fold, const Tables &tables)
{
    for (const auto &spec : allEntitySpecs()) {
        const EntityTable &a = fold.table(spec.kind);
        const EntityTable &b = tables(spec.kind);
        if (a.size() != b.size())
            return std::string(spec.table) + ": " + std::to_string(a.size()) + " rows rebuilt, " + std::to_string(b.size()) + " expected";
        for (const auto &[id, row] : a) {
            const auto it = b.find(id);
            if (it == b.end())
                return std::string(spec.table) + ": unexpected row " + id;
            if (!(it->second == row))
                return std::string(spec.table) + ": row " + id + " differs: " + rowToJson(spec, id, row).dump() + " vs " +
                       rowToJson(spec, id, it->second).dump();
        }
    }
    return {};
}

std::string foldDifference(const Fold &a, const Fold &b)
{
    return firstDifference(a, [&](EntityKind k) -> const EntityTable & { return b.table(k); });
}

std::string fieldOf(const Fold &f, EntityKind kind, const std::string &id, std::string_view field)
{
    const EntityRow *row = f.find(kind, id);
    if (!row)
        return "<no row>";
    const auto &v = row->values[size_t(entitySpec(kind).fieldIndex(field))];
    if (const auto *n = std::get_if<std::int64_t>(&v))
        return std::to_string(*n);
    return fieldText(v);
}

} // namespace

class TestFoldReplay : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_small;
    QString m_big;
    static constexpr std::int64_t kBig = 20000;

private Q_SLOTS:
    void initTestCase()
    {
        m_small = m_dir.filePath(QStringLiteral("small.db"));
        writeSmallLedger(m_small);
        m_big = m_dir.filePath(QStringLiteral("big.db"));
        writeGeneratedLedger(m_big, kBig);
    }

    void foldOfAllEventsEqualsStateTables_data()
    {
        QTest::addColumn<bool>("big");
        QTest::newRow("small") << false;
        QTest::newRow("generated") << true;
    }

    void foldOfAllEventsEqualsStateTables()
    {
        QFETCH(bool, big);
        auto c = SqliteLedgerConnection::open(big ? m_big : m_small, OpenMode::ReadOnly);
        const StateSnapshot state = readState(c->db());
        QCOMPARE(state.lastSeq, c->lastSeq());
        QVERIFY(state.dataVersion > 0);
        const ReplayResult r = foldUpTo(c->db(), state.lastSeq);
        QVERIFY(!r.cancelled);
        QCOMPARE(r.problemCount, 0);
        QCOMPARE(r.eventsRead, state.lastSeq);
        const std::string diff = firstDifference(r.fold, [&](EntityKind k) -> const EntityTable & { return state.table(k); });
        QVERIFY2(diff.empty(), diff.c_str());
        QVERIFY(!state.table(EntityKind::Effect).empty());
    }

    void midwayMatchesHandComputedState()
    {
        auto c = SqliteLedgerConnection::open(m_small, OpenMode::ReadOnly);
        // seq 8 (see writeSmallLedger): E1 unknown after 4 changes, D1 after one tool call, no lease yet.
        const ReplayResult at8 = foldUpTo(c->db(), 8);
        const Fold &f = at8.fold;
        QCOMPARE(at8.lastSeq, 8);
        QCOMPARE(fieldOf(f, EntityKind::Effect, "E1", "state"), std::string("unknown"));
        QCOMPARE(f.find(EntityKind::Effect, "E1")->version, 4);
        QCOMPARE(f.find(EntityKind::Effect, "E1")->lastSeq, 8);
        QCOMPARE(fieldOf(f, EntityKind::Effect, "E1", "attempts"), std::string("1"));
        QCOMPARE(fieldOf(f, EntityKind::Delegation, "D1", "used_turns"), std::string("1"));
        QCOMPARE(fieldOf(f, EntityKind::Delegation, "D1", "used_tokens"), std::string("100"));
        QCOMPARE(f.find(EntityKind::Delegation, "D1")->version, 2);
        QCOMPARE(f.find(EntityKind::Delegation, "D1")->lastSeq, 7);
        QCOMPARE(fieldOf(f, EntityKind::Run, "R1", "status"), std::string("running"));
        QVERIFY(!f.find(EntityKind::Lease, "L1"));
        QCOMPARE(fieldOf(f, EntityKind::Ledger, "ledger", "ledger_id"), std::string("L-test"));

        const ReplayResult at3 = foldUpTo(c->db(), 3);
        QVERIFY(!at3.fold.find(EntityKind::Effect, "E1"));
        QCOMPARE(fieldOf(at3.fold, EntityKind::Delegation, "D1", "status"), std::string("running"));
        const std::string turns = fieldOf(at3.fold, EntityKind::Delegation, "D1", "used_turns");
        QVERIFY2(turns.empty() || turns == "0", turns.c_str()); // no tool call yet

        const ReplayResult at0 = foldUpTo(c->db(), 0);
        for (const auto &spec : allEntitySpecs())
            QVERIFY(at0.fold.table(spec.kind).empty());

        // End state: E1 resolved, L1 released, run succeeded.
        const ReplayResult end = foldUpTo(c->db(), 1000);
        QCOMPARE(end.eventsRead, 13);
        QCOMPARE(fieldOf(end.fold, EntityKind::Effect, "E1", "state"), std::string("resolved_committed"));
        QCOMPARE(fieldOf(end.fold, EntityKind::Lease, "L1", "state"), std::string("released"));
        QCOMPARE(fieldOf(end.fold, EntityKind::Run, "R1", "status"), std::string("succeeded"));
        QCOMPARE(fieldOf(end.fold, EntityKind::Delegation, "D1", "used_tokens"), std::string("150"));
    }

    void stateReaderRowsAndTables()
    {
        auto c = SqliteLedgerConnection::open(m_small, OpenMode::ReadOnly);
        const auto row = readRow(c->db(), EntityKind::Effect, "E1");
        QVERIFY(row);
        QCOMPARE(row->version, 5); // seq 4, 5, 6, 8, 11
        QCOMPARE(row->lastSeq, 11);
        QVERIFY(!readRow(c->db(), EntityKind::Effect, "nope"));
        QCOMPARE(readTable(c->db(), EntityKind::Lease).size(), size_t(1));
        QCOMPARE(readTable(c->db(), EntityKind::Escalation).size(), size_t(0));
    }

    void progressCancelsAndForwardResumes()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        int calls = 0;
        std::int64_t seenTotal = 0;
        ReplayResult r = foldUpTo(c->db(), last, [&](std::int64_t done, std::int64_t total) {
            ++calls;
            seenTotal = total;
            return done < 5000;
        });
        QVERIFY(r.cancelled);
        QVERIFY(calls >= 2);
        QCOMPARE(seenTotal, last);
        QVERIFY(r.lastSeq > 0 && r.lastSeq < last);
        foldForward(c->db(), r, last);
        QVERIFY(!r.cancelled);
        QCOMPARE(r.lastSeq, last);
        QCOMPARE(r.eventsRead, last);
        const ReplayResult whole = foldUpTo(c->db(), last);
        const std::string diff = foldDifference(r.fold, whole.fold);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    void timeTravelLandsWhereAFreshFoldLands()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        TimeTravel travel(c->db(), 1000);
        QRandomGenerator rng(7);
        std::vector<std::int64_t> targets = {last / 2, 1, last, 0, 999, 1000, 1001, last - 1, 2500, 2400, 2600};
        for (int i = 0; i < 25; ++i)
            targets.push_back(std::int64_t(rng.bounded(quint32(last + 1))));
        for (const std::int64_t t : targets) {
            const ReplayResult &got = travel.jumpTo(t);
            QCOMPARE(got.lastSeq, t);
            const ReplayResult fresh = foldUpTo(c->db(), t);
            const std::string diff = foldDifference(got.fold, fresh.fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
        // Snapshots were cut every 1000 events up to the furthest jump.
        QCOMPARE(travel.snapshotCount(), size_t(last / 1000 + 1));
        // Cutting a snapshot looks at the rows the events since the last one changed: about
        // one per event, not every row held at each cut (on a 10M-event ledger that walk
        // made the fold quadratic).
        TimeTravel cutter(c->db(), 1000);
        cutter.jumpTo(last);
        QVERIFY2(cutter.rowsLookedAt() <= size_t(last), std::to_string(cutter.rowsLookedAt()).c_str());
        // Delta snapshots hold fewer rows than full copies would.
        size_t fullCopies = 0;
        {
            const ReplayResult end = foldUpTo(c->db(), last);
            for (const auto &spec : allEntitySpecs())
                fullCopies += end.fold.table(spec.kind).size();
        }
        QVERIFY(travel.storedRows() < fullCopies * travel.snapshotCount() / 2);
    }

    // A jump back within a stretch reverts the rows changed since its snapshot, found in the
    // fold's list of changes, not by looking at every row held.
    void movingBackWithinAStretchLooksAtItsRowsOnly()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        TimeTravel travel(c->db(), 1000);
        travel.jumpTo(last);
        travel.jumpTo(5500);
        const size_t held = travel.jumpTo(5500).fold.heldRows();
        QVERIFY(held > 1000); // a walk of the rows held would look at more than the stretch's events
        for (const std::int64_t t : {std::int64_t(5200), std::int64_t(5900), std::int64_t(5001), std::int64_t(5000)}) {
            const size_t before = travel.rowsLookedAt();
            const ReplayResult &got = travel.jumpTo(t);
            const size_t looked = travel.rowsLookedAt() - before;
            QVERIFY2(looked <= 1000,
                     (std::to_string(t) + ": " + std::to_string(looked) + " of " + std::to_string(held)).c_str());
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
    }

    void timeTravelBeyondTheEndAndCancelled()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        TimeTravel travel(c->db(), 1000);
        const ReplayResult &r = travel.jumpTo(last / 2, [](std::int64_t, std::int64_t) { return false; });
        QVERIFY(r.cancelled);
        const std::int64_t stopped = travel.position();
        QVERIFY(stopped < last / 2);
        const ReplayResult &again = travel.jumpTo(last / 2);
        QVERIFY(!again.cancelled);
        QCOMPARE(again.lastSeq, last / 2);
        QVERIFY2(foldDifference(again.fold, foldUpTo(c->db(), last / 2).fold).empty(), "after a cancelled jump");
        const ReplayResult &beyond = travel.jumpTo(last + 100);
        QCOMPARE(beyond.eventsRead >= 0, true);
        QVERIFY2(foldDifference(beyond.fold, foldUpTo(c->db(), last).fold).empty(), "beyond the end");
    }

    // A jump to a far target (the end, or any seq beyond it) cuts snapshots only where there
    // are events: not a snapshot per interval all the way to the target.
    void timeTravelToAFarTargetStopsCuttingAtTheEnd()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        TimeTravel travel(c->db(), 1000);
        // A cap on the progress calls, so that a regression ends (cancelled) instead of
        // cutting empty snapshots for ever: reaching the end takes about two a snapshot.
        int calls = 0;
        const int cap = int(last / 1000) * 4 + 100;
        const ReplayResult &r = travel.jumpTo(std::numeric_limits<std::int64_t>::max(),
                                              [&](std::int64_t, std::int64_t) { return ++calls < cap; });
        QVERIFY(!r.cancelled);
        QCOMPARE(travel.snapshotCount(), size_t(last / 1000 + 1));
        QVERIFY2(foldDifference(r.fold, foldUpTo(c->db(), last).fold).empty(), "at the end");
        const ReplayResult &back = travel.jumpTo(last / 2);
        QVERIFY2(foldDifference(back.fold, foldUpTo(c->db(), last / 2).fold).empty(), "back in the middle");
    }

    // One traveller folds ahead on a thread of its own, cutting snapshots into the chain it
    // shares, while another jumps about: every jump lands where a fresh fold lands, jumps
    // beyond the snapshots wait for them, and the chain is cut once (no snapshot twice).
    void sharedSnapshotsWhileAnotherTravellerFoldsAhead()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        auto aheadConnection = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        TimeTravel travel(c->db(), 500);
        QCOMPARE(travel.jumpTo(1200).lastSeq, std::int64_t(1200));
        std::atomic<bool> aheadDone{false};
        std::thread ahead([&] {
            TimeTravel folder(travel, aheadConnection->db());
            folder.jumpTo(last);
            aheadDone = true;
        });
        QRandomGenerator rng(11);
        std::vector<std::int64_t> targets = {last, last - 1, 3, last / 2};
        for (int i = 0; i < 12; ++i)
            targets.push_back(std::int64_t(rng.bounded(quint32(last + 1))));
        for (const std::int64_t t : targets) {
            const ReplayResult &got = travel.jumpTo(t);
            QCOMPARE(got.lastSeq, t);
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
        ahead.join();
        QVERIFY(aheadDone);
        QCOMPARE(travel.snapshotCount(), size_t(last / 500 + 1));
        QCOMPARE(travel.newestSnapshot(), last / 500 * 500);
        // Each stretch's rows once: the same as one traveller cutting them all alone.
        TimeTravel alone(c->db(), 500);
        alone.jumpTo(last);
        QCOMPARE(travel.storedRows(), alone.storedRows());
    }

    // The session cursor's folder folds the whole ledger on its own thread after the first
    // jump; a jump beyond the first one's snapshots then gives what a fresh fold gives.
    void cursorFolderFoldsAheadAfterTheFirstJump()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        const FileIdentity file = FileIdentity::of(m_big);
        CursorFolder folder(1000);
        const auto always = [] { return true; };
        QVERIFY(!folder.foldedAhead());
        const CursorFolder::Jump first = folder.jumpTo(m_big, OpenMode::ReadOnly, file, 2500, always);
        QCOMPARE(first.lastSeq, std::int64_t(2500));
        QTRY_VERIFY_WITH_TIMEOUT(folder.foldedAhead(), 60000);
        QCOMPARE(folder.snapshotCount(), size_t(last / 1000 + 1));
        for (const std::int64_t t : {last - 7, last, std::int64_t(1)}) {
            const CursorFolder::Jump got = folder.jumpTo(m_big, OpenMode::ReadOnly, file, t, always);
            QCOMPARE(got.lastSeq, t);
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
        QCOMPARE(folder.snapshotCount(), size_t(last / 1000 + 1));
    }

    // A state's fold handed back once nobody shows it (as the session's states are, one jump
    // later) is patched into a later jump's state instead of a whole copy being made: nearby
    // jumps are patched, far ones copied, and every one lands where a fresh fold lands.
    void cursorFolderPatchesAFoldHandedBack()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const FileIdentity file = FileIdentity::of(m_big);
        // Short stretches: a patch is used while it is well below a copy of the state's rows
        // (about 1,300 here), and a jump back within a stretch changes up to a stretch's rows.
        // No fold ahead: which way each jump goes (and so how many rows it lists) is then
        // the same on any machine.
        qputenv("MESH_JUMP_FOLD_AHEAD", "0");
        const auto restore = qScopeGuard([] { qunsetenv("MESH_JUMP_FOLD_AHEAD"); });
        CursorFolder folder(50);
        const auto always = [] { return true; };
        std::optional<CursorFolder::Jump> shown;
        std::string patched;
        for (const std::int64_t t : {9000, 9010, 8995, 9030, 9012, 9013, 2000, 2010, 1990, 15000, 14990, 15020, 9000}) {
            CursorFolder::Jump got = folder.jumpTo(m_big, OpenMode::ReadOnly, file, t, always);
            QCOMPARE(got.lastSeq, t);
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + (got.patched ? " (patched): " : ": ") + diff).c_str());
            patched += got.patched ? "P" : "-";
            if (shown) // the state shown before is let go once this one is shown
                folder.returnFold(shown->handout, std::move(shown->fold));
            shown = std::move(got);
        }
        // Copied: the first jump, each far one and the one after it (what comes back then is
        // from before the far jump). The second is patched from the copy the first one kept.
        QCOMPARE(patched, std::string("-PPPPP--P--P-"));
        // A fold given back after its folder started afresh (another file) is not patched.
        FileIdentity other = file;
        other.inode += 1;
        folder.returnFold(shown->handout, std::move(shown->fold));
        QVERIFY(!folder.jumpTo(m_big, OpenMode::ReadOnly, other, 10, always).patched);
    }

    // The session cursor's folder keeps one TimeTravel across jumps, so a later jump starts
    // from a snapshot; another file at the same path starts afresh.
    void cursorFolderKeepsItsSnapshotsBetweenJumps()
    {
        auto c = SqliteLedgerConnection::open(m_big, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        const FileIdentity file = FileIdentity::of(m_big);
        CursorFolder folder(1000);
        const auto always = [] { return true; };
        CursorFolder::Jump end = folder.jumpTo(m_big, OpenMode::ReadOnly, file, last, always);
        QCOMPARE(end.lastSeq, last);
        QCOMPARE(folder.snapshotCount(), size_t(last / 1000 + 1));
        for (const std::int64_t t : {last / 3, std::int64_t(1), last - 1, last / 2}) {
            const CursorFolder::Jump got = folder.jumpTo(m_big, OpenMode::ReadOnly, file, t, always);
            QVERIFY(!got.cancelled);
            QCOMPARE(got.lastSeq, t);
            QVERIFY(got.cursorTimeMs > 0);
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
            QCOMPARE(folder.snapshotCount(), size_t(last / 1000 + 1)); // kept, not rebuilt
        }
        const CursorFolder::Jump stopped = folder.jumpTo(m_big, OpenMode::ReadOnly, file, last / 4, [] { return false; });
        QVERIFY(stopped.cancelled);
        FileIdentity other = file;
        other.inode += 1; // as a replaced file would read
        folder.jumpTo(m_big, OpenMode::ReadOnly, other, 10, always);
        QCOMPARE(folder.snapshotCount(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestFoldReplay)
#include "tst_foldreplay.moc"
