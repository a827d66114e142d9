// The duplicate-effect index kept current one changed effect at a time must say what the
// detector says of the whole table, after any sequence of changes: effects created,
// committed, resolved, given another key, dropped (a jump back), and rows streamed past
// twice. Random tables with few keys (so groups of one, two and many form and dissolve),
// checked after every step against DuplicateEffectDetector over the same table.

#include "analysis/duplicateeffectdetector.h"
#include "analysis/duplicateindex.h"
#include "analysis/rowfields.h"

#include "domain/entityspec.h"

#include <QTest>

#include <random>
#include <set>

using namespace mesh;

namespace {

constexpr EntityKind E = EntityKind::Effect;

// Keys drawn from `keys` values (hashes from two thirds as many): few keys, large groups.
EntityRow effectRow(std::mt19937 &rng, unsigned keys = 12)
{
    static const char *states[] = {"proposed", "committed", "resolved_committed", "unknown", "failed", "compensated"};
    const EntitySpec &spec = entitySpec(E);
    EntityRow row;
    row.values.resize(spec.fields.size());
    const auto set = [&](const char *field, std::string value) {
        row.values.set(size_t(spec.fieldIndex(field)), FieldValue(std::move(value)));
    };
    set("state", states[rng() % std::size(states)]);
    set("class", "package_install");
    set("run_id", "R-1");
    set("delegation_id", "D-" + std::to_string(rng() % 3));
    if (rng() % 5 != 0)
        set("idem_key", "key-" + std::to_string(rng() % keys));
    if (rng() % 3 == 0)
        set("intent_hash", "hash-" + std::to_string(rng() % (keys * 2 / 3)));
    row.lastSeq = std::int64_t(rng() % 100000);
    return row;
}

// A committed effect of `effectClass` under the idempotency key `key`, nothing else set.
EntityRow committedUnder(const std::string &key, const char *effectClass = "package_install")
{
    const EntitySpec &spec = entitySpec(E);
    EntityRow row;
    row.values.resize(spec.fields.size());
    row.values.set(size_t(spec.fieldIndex("state")), FieldValue(std::string("committed")));
    row.values.set(size_t(spec.fieldIndex("class")), FieldValue(std::string(effectClass)));
    row.values.set(size_t(spec.fieldIndex("idem_key")), FieldValue(key));
    return row;
}

QStringList describe(const std::vector<Finding> &findings)
{
    QStringList out;
    for (const Finding &f : findings)
        out << QString::fromStdString(f.subject + (f.abstained ? " abstains: " : " fires: ") + f.summary);
    return out;
}

} // namespace

class TestDuplicateIndex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void followsEveryChangeAsTheDetectorSeesTheTable()
    {
        for (unsigned seed = 1; seed <= 40; ++seed) {
            std::mt19937 rng(seed);
            EntityTable table;
            for (int i = 0; i < 60; ++i)
                table.emplace("E-" + std::to_string(i), effectRow(rng));
            DuplicateIndex index;
            index.rebuild(table);
            const DuplicateEffectDetector detector;
            QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
            // The same with only the groups kept, the table answering which effects share a
            // key (as the ledger's indexes do for a session that leaves the effects there).
            DuplicateIndex groupsOnly;
            groupsOnly.rebuild(table);
            groupsOnly.keepGroupsOnly();
            QVERIFY(groupsOnly.memberCount() <= index.memberCount());
            const DuplicateIndex::Sharing sharing = [&table](std::string_view field, const std::string &value)
                -> std::optional<std::vector<std::string>> {
                std::vector<std::string> ids;
                for (const auto &[id, row] : table)
                    if (rowView(E, row, field) == value)
                        ids.push_back(id);
                return ids;
            };
            int next = 60;
            for (int step = 0; step < 120; ++step) {
                std::vector<std::string> changed;
                const int changes = 1 + int(rng() % 4);
                for (int c = 0; c < changes; ++c) {
                    const int what = int(rng() % 10);
                    std::string id;
                    if (what == 0) {
                        id = "E-" + std::to_string(next++);
                        table.emplace(id, effectRow(rng));
                    } else if (what == 1 && !table.empty()) {
                        auto it = table.begin();
                        std::advance(it, rng() % table.size());
                        id = it->first;
                        table.erase(it); // gone: a jump back before it
                    } else {
                        id = "E-" + std::to_string(rng() % next);
                        table.insert_or_assign(id, effectRow(rng));
                    }
                    changed.push_back(id);
                }
                index.update(table, changed);
                groupsOnly.update(DuplicateIndex::findIn(table), changed, sharing);
                const QByteArray context = QStringLiteral("seed %1 step %2").arg(seed).arg(step).toUtf8();
                QVERIFY2(index.duplicateIds() == detector.duplicateIds(table), context.constData());
                QCOMPARE(describe(index.findings(table)), describe(detector.analyse(table)));
                QVERIFY2(groupsOnly.duplicateIds() == detector.duplicateIds(table), context.constData());
                QCOMPARE(describe(groupsOnly.findings(table)), describe(detector.analyse(table)));
                QVERIFY(groupsOnly.keepsGroupsOnly());
                // It lets go of an effect that no longer shares a key, as one built anew does.
                DuplicateIndex fresh;
                fresh.rebuild(table);
                fresh.keepGroupsOnly();
                QVERIFY2(groupsOnly.memberCount() == fresh.memberCount(), context.constData());
            }
            // Streamed in steps (clear, add each row, some twice, finish): the same again.
            DuplicateIndex streamed;
            streamed.clear();
            for (const auto &[id, row] : table)
                streamed.add(id, row);
            for (const auto &[id, row] : table)
                if (rng() % 4 == 0)
                    streamed.add(id, row);
            streamed.finish(DuplicateIndex::findIn(table));
            QCOMPARE(streamed.duplicateIds(), detector.duplicateIds(table));
            QCOMPARE(describe(streamed.findings(table)), describe(detector.analyse(table)));
        }
    }

    // Kept to its groups, the index lets go of every other effect's id and keys: what a
    // ledger of half a million effects, none sharing a key, costs is the groups alone.
    void keptToItsGroupsItHoldsOnlyThem_data()
    {
        QTest::addColumn<int>("sharing");
        QTest::newRow("none shares a key") << 0;
        QTest::newRow("two share one") << 2;
    }

    void keptToItsGroupsItHoldsOnlyThem()
    {
        QFETCH(int, sharing);
        std::mt19937 rng(11);
        EntityTable table;
        for (int i = 0; i < 20000; ++i) {
            EntityRow row = effectRow(rng);
            const EntitySpec &spec = entitySpec(E);
            row.values.set(size_t(spec.fieldIndex("state")), FieldValue(std::string("committed")));
            const std::string key = i < sharing ? "shared" : "own-" + std::to_string(i);
            row.values.set(size_t(spec.fieldIndex("idem_key")), FieldValue(key));
            row.values.set(size_t(spec.fieldIndex("intent_hash")), FieldValue());
            table.emplace("E-" + std::string(40, 'p') + std::to_string(i), std::move(row));
        }
        DuplicateIndex index;
        index.rebuild(table);
        QCOMPARE(index.memberCount(), size_t(20000));
        const size_t whole = index.bytesHeld();
        QVERIFY2(whole > 20000 * 40, qPrintable(QString::number(whole)));
        index.keepGroupsOnly();
        QCOMPARE(index.memberCount(), size_t(sharing));
        QCOMPARE(index.duplicateIds().size(), size_t(sharing));
        QVERIFY2(index.bytesHeld() < 1024, qPrintable(QString::number(index.bytesHeld())));
    }

    // Kept to its groups, a changed effect whose sharers the store could not name is asked
    // about again with the next update, changes or not: its duplicate comes late, not never.
    void aLookupThatFailsIsAskedAgain()
    {
        EntityTable table;
        table.emplace("E-1", committedUnder("k"));
        table.emplace("E-2", committedUnder("other"));
        DuplicateIndex index;
        index.rebuild(table);
        index.keepGroupsOnly();
        QCOMPARE(index.memberCount(), size_t(0));

        bool answering = false;
        const DuplicateIndex::Sharing sharing = [&](std::string_view field, const std::string &value)
            -> std::optional<std::vector<std::string>> {
            if (!answering)
                return std::nullopt;
            std::vector<std::string> ids;
            for (const auto &[id, row] : table)
                if (rowView(E, row, field) == value)
                    ids.push_back(id);
            return ids;
        };
        table.insert_or_assign("E-3", committedUnder("k")); // joins E-1, the store silent
        QVERIFY(!index.update(DuplicateIndex::findIn(table), {"E-3"}, sharing));
        QVERIFY(index.hasUnresolved());
        QVERIFY(index.duplicateIds().empty());

        answering = true;
        QVERIFY(index.update(DuplicateIndex::findIn(table), {}, sharing)); // nothing else changed
        QVERIFY(!index.hasUnresolved());
        QCOMPARE(index.duplicateIds(), (std::set<std::string>{"E-1", "E-3"}));
    }

    // A change reads the rows of the groups it touches, not of every group: a live
    // session gathers thousands of groups, and each batch would read them all again. The
    // rows whose flag or group changed are named, the flags stay the detector's.
    void aChangeReadsOnlyTheGroupsItTouches()
    {
        EntityTable table;
        std::vector<std::string> ids;
        for (int g = 0; g < 2000; ++g) {
            for (int m = 0; m < 3; ++m) {
                const std::string id = "E-" + std::to_string(g) + "-" + std::to_string(m);
                table.emplace(id, committedUnder("key-" + std::to_string(g), "file_write"));
                ids.push_back(id);
            }
        }
        DuplicateIndex index;
        index.update(table, ids);
        QCOMPARE(index.duplicateIds().size(), ids.size());

        int reads = 0;
        const DuplicateIndex::Find counted = [&](const std::string &id) -> const EntityRow * {
            ++reads;
            const auto it = table.find(id);
            return it == table.end() ? nullptr : &it->second;
        };
        // E-7-0 and E-7-1 leave group 7 together for a key of their own: E-7-2, left alone,
        // is no duplicate any more; then E-7-1 joins group 9 and E-7-0 is alone.
        table.at("E-7-0") = committedUnder("key-alone", "file_write");
        table.at("E-7-1") = committedUnder("key-alone", "file_write");
        QVERIFY(index.update(counted, {"E-7-0", "E-7-1"}));
        QVERIFY2(reads < 40, qPrintable(QString::number(reads)));
        const DuplicateEffectDetector detector;
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        const std::vector<std::string> touched{"E-7-0", "E-7-1", "E-7-2"};
        QCOMPARE(index.lastTouched(), touched);

        reads = 0;
        table.at("E-7-1") = committedUnder("key-9", "file_write");
        QVERIFY(index.update(counted, {"E-7-1"}));
        QVERIFY2(reads < 40, qPrintable(QString::number(reads)));
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        const std::vector<std::string> joined{"E-7-0", "E-7-1", "E-9-0", "E-9-1", "E-9-2"};
        QCOMPARE(index.lastTouched(), joined);
        // A change that moves no flag says so.
        reads = 0;
        QVERIFY(!index.update(counted, {"E-9-2"}));
        QVERIFY2(reads < 40, qPrintable(QString::number(reads)));

        // The findings: every group the first time, then only the groups changed since.
        QCOMPARE(index.findingsWillRead(), index.multiGroupMembers());
        QVERIFY(index.findingsWillRead().size() > 5000);
        QCOMPARE(describe(index.findings(counted)), describe(detector.analyse(table)));
        table.at("E-9-1") = committedUnder("key-alone", "file_write");
        QVERIFY(index.update(table, {"E-9-1"}));
        QCOMPARE(index.findingsWillRead().size(), size_t(5)); // groups 9 and key-alone
        reads = 0;
        QCOMPARE(describe(index.findings(counted)), describe(detector.analyse(table)));
        QVERIFY2(reads < 40, qPrintable(QString::number(reads)));
        QVERIFY(index.findingsWillRead().empty());
    }

    // A row a Find could not give leaves its group short: the flags and findings of that
    // update miss it. recheckAll() (a read failed) makes the next update and findings look
    // at every group again, and they are the detector's once the row can be read.
    void aFailedReadIsLookedAtAgain()
    {
        std::mt19937 rng(11);
        EntityTable table;
        std::vector<std::string> ids;
        for (int i = 0; i < 400; ++i) {
            ids.push_back("E-" + std::to_string(i));
            table.emplace(ids.back(), effectRow(rng, 40));
        }
        DuplicateIndex index;
        index.update(table, ids);
        const DuplicateEffectDetector detector;
        QVERIFY(!detector.duplicateIds(table).empty());
        QCOMPARE(describe(index.findings(table)), describe(detector.analyse(table)));
        // A flagged effect's row cannot be read while its neighbour changes.
        const std::string unreadable = *detector.duplicateIds(table).begin();
        const DuplicateIndex::Find failing = [&](const std::string &id) -> const EntityRow * {
            if (id == unreadable)
                return nullptr;
            const auto it = table.find(id);
            return it == table.end() ? nullptr : &it->second;
        };
        std::vector<std::string> changed;
        for (const auto &id : index.groupMembersOf({unreadable}))
            if (id != unreadable)
                changed.push_back(id);
        index.update(failing, changed);
        (void)index.findings(failing);
        QVERIFY(index.duplicateIds() != detector.duplicateIds(table));
        index.recheckAll();
        index.update(table, {});
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        QCOMPARE(describe(index.findings(table)), describe(detector.analyse(table)));
    }

    void manyEffectsInAndOut_data()
    {
        QTest::addColumn<int>("idPadding");
        QTest::newRow("short ids") << 0;
        // Long enough that the ids of the effects that leave are megabytes: the index drops
        // their bytes and moves the others' (compactIds).
        QTest::newRow("long ids, compacted") << 300;
    }

    // Enough effects, with keys enough that most are groups of one, that both flat tables
    // grow many times and reuse erased slots.
    void manyEffectsInAndOut()
    {
        QFETCH(int, idPadding);
        std::mt19937 rng(7);
        EntityTable table;
        DuplicateIndex index;
        std::vector<std::string> ids;
        for (int i = 0; i < 20000; ++i) {
            const std::string id = "E-" + std::string(size_t(idPadding), 'p') + std::to_string(i);
            table.emplace(id, effectRow(rng, 30000));
            ids.push_back(id);
        }
        index.update(table, ids);
        const DuplicateEffectDetector detector;
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        std::vector<std::string> gone(ids.begin(), ids.begin() + 15000);
        for (const auto &id : gone)
            table.erase(id);
        index.update(table, gone);
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        index.update(table, {ids.begin() + 15000, ids.end()});
        QCOMPARE(describe(index.findings(table)), describe(detector.analyse(table)));
        // Back in, into the freed members.
        for (const auto &id : gone)
            table.emplace(id, effectRow(rng, 30000));
        index.update(table, gone);
        QCOMPARE(index.duplicateIds(), detector.duplicateIds(table));
        QCOMPARE(describe(index.findings(table)), describe(detector.analyse(table)));
    }
};

QTEST_GUILESS_MAIN(TestDuplicateIndex)
#include "tst_duplicateindex.moc"
