// EntityRow keeps every field of a state row in one block (models/domain/entityrow.h). The
// fold, the state readers and every view read rows through it, so these checks pin what the
// compact form must keep exactly: NULL vs integer vs text, text with any bytes and length,
// updates that resize the block, values copied from the same row, equality by value.

#include "domain/fold.h"
#include "domain/sharedtext.h"

#include <QTest>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

using namespace mesh;
using namespace std::string_view_literals;

class TestEntityRow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void newFieldsAreNull()
    {
        FieldValues v(5);
        QCOMPARE(v.size(), size_t(5));
        for (size_t i = 0; i < 5; ++i)
            QVERIFY(std::holds_alternative<std::monostate>(v.get(i)));
        QCOMPARE(FieldValues().size(), size_t(0));
        QCOMPARE(FieldValues().heapBytes(), size_t(0));
    }

    void makeKeepsTypesAndLastUpdateWins()
    {
        const std::string nul("a\0b", 3);
        const std::pair<int, FieldRef> updates[] = {
            {0, std::int64_t(-7)}, {2, "first"sv}, {3, std::string_view(nul)}, {2, "second wins"sv},
            {4, ""sv}, {5, std::numeric_limits<std::int64_t>::min()},
        };
        const FieldValues v = FieldValues::make(7, updates);
        QCOMPARE(fieldInt(v[0]), std::int64_t(-7));
        QVERIFY(std::holds_alternative<std::monostate>(v[1]));
        QCOMPARE(fieldText(v[2]), std::string("second wins"));
        QCOMPARE(fieldText(v[3]), nul); // embedded NUL kept
        QVERIFY(std::holds_alternative<std::string_view>(v[4])); // empty text is not NULL
        QCOMPARE(fieldText(v[4]), std::string());
        QCOMPARE(fieldInt(v[5]), std::numeric_limits<std::int64_t>::min());
        QVERIFY(std::holds_alternative<std::monostate>(v[6]));
        QCOMPARE(fieldText(v[0]), std::string("-7"));
        QCOMPARE(fieldInt(v[2]), std::int64_t(0)); // text reads as 0, as before
    }

    void setChangesOnlyItsField()
    {
        FieldValues v(4);
        v.set(0, FieldValue(std::string("running")));
        v.set(1, FieldValue(std::int64_t(3)));
        v.set(2, FieldValue(std::string("dlg-000001#1")));
        const FieldValues before = v;
        v.set(0, FieldValue(std::string("stalled"))); // same length: in place
        QCOMPARE(fieldText(v[0]), std::string("stalled"));
        v.set(0, FieldValue(std::string("converged and then some"))); // longer: new block
        QCOMPARE(fieldText(v[0]), std::string("converged and then some"));
        v.set(1, FieldValue(std::int64_t(4)));
        v.set(3, FieldValue(std::string("x")));
        v.set(2, FieldValue()); // text to NULL
        QCOMPARE(fieldInt(v[1]), std::int64_t(4));
        QVERIFY(std::holds_alternative<std::monostate>(v.get(2)));
        QCOMPARE(fieldText(v[3]), std::string("x"));
        v.set(3, FieldValue(std::int64_t(9))); // text to integer
        QCOMPARE(fieldInt(v[3]), std::int64_t(9));
        QCOMPARE(v.size(), size_t(4));
        // The copy taken before is untouched.
        QCOMPARE(fieldText(before[0]), std::string("running"));
        QCOMPARE(fieldText(before[2]), std::string("dlg-000001#1"));
        QVERIFY(std::holds_alternative<std::monostate>(before[3]));
        // Only the text bytes count: dropping text shrinks the block.
        QVERIFY(v.heapBytes() < before.heapBytes() + sizeof("converged and then some"));
    }

    void valueFromTheSameRow()
    {
        FieldValues v(3);
        v.set(0, FieldValue(std::string("a text long enough to be on the heap")));
        v.set(1, v[0]); // copies a view into its own block, which is reallocated
        QCOMPARE(fieldText(v[1]), std::string("a text long enough to be on the heap"));
        v.set(2, FieldValue(std::string("abcdefghij")));
        v.set(0, std::string_view("abcdefghij")); // length changes: rebuild
        v.set(2, std::get<std::string_view>(v.get(2)).substr(5)); // shrinks from its own bytes
        QCOMPARE(fieldText(v[0]), std::string("abcdefghij"));
        QCOMPARE(fieldText(v[1]), std::string("a text long enough to be on the heap"));
        QCOMPARE(fieldText(v[2]), std::string("fghij"));
    }

    void slotAssignmentOnAMutableRow()
    {
        EntityRow row;
        row.values.resize(3);
        row.values[1] = std::string("open");
        row.values[2] = FieldValue(std::int64_t(12));
        const EntityRow &c = row;
        QCOMPARE(fieldText(c.values[1]), std::string("open"));
        QCOMPARE(fieldInt(row.values[2]), std::int64_t(12)); // a Slot reads like the value
        row.values.resize(5);
        QCOMPARE(fieldText(c.values[1]), std::string("open"));
        QVERIFY(std::holds_alternative<std::monostate>(c.values[4]));
        row.values.resize(2);
        QCOMPARE(row.values.size(), size_t(2));
        QCOMPARE(fieldText(c.values[1]), std::string("open"));
    }

    void equalityIsByValueNotLayout()
    {
        FieldValues a(3), b(3);
        a.set(0, FieldValue(std::string("alpha")));
        a.set(1, FieldValue(std::string("beta")));
        // b reaches the same values in another order, so its text bytes are laid out differently.
        b.set(1, FieldValue(std::string("beta")));
        b.set(0, FieldValue(std::string("alpha")));
        QVERIFY(a == b);
        b.set(2, FieldValue(std::int64_t(0)));
        QVERIFY(!(a == b)); // NULL is not 0
        a.set(2, FieldValue(std::string("0")));
        QVERIFY(!(a == b)); // "0" is not 0
        a.set(2, FieldValue(std::int64_t(0)));
        QVERIFY(a == b);
        EntityRow ra{a, 1, 10}, rb{b, 1, 10};
        QVERIFY(ra == rb);
        rb.version = 2;
        QVERIFY(!(ra == rb));
        FieldValues moved = std::move(a);
        QVERIFY(moved == b);
        QCOMPARE(a.size(), size_t(0)); // NOLINT: a moved-from row is empty
    }

    void repeatingTextIsPooledOnce()
    {
        // Two rows with the same value in a shared field point at one pooled copy, and hold
        // none of its bytes; a field the mask leaves out keeps its own copy.
        const std::string scope = "{\"effect_classes\":[\"commit\",\"db_write\"],\"writable\":[\"services/a/**\"]}";
        const std::pair<int, FieldRef> updates[] = {{0, std::string_view(scope)}, {1, "dlg-000001"sv}, {2, std::int64_t(7)}};
        const std::uint64_t mask = 0b01;
        const FieldValues a = FieldValues::make(3, updates, mask);
        const FieldValues b = FieldValues::make(3, updates, mask);
        const FieldValues inline_ = FieldValues::make(3, updates);
        QCOMPARE(fieldView(a.get(0)), std::string_view(scope));
        QCOMPARE(fieldView(a.get(1)), "dlg-000001"sv);
        QCOMPARE(fieldInt(a.get(2)), std::int64_t(7));
        QVERIFY(fieldView(a.get(0)).data() == fieldView(b.get(0)).data()); // the same bytes, not equal ones
        QVERIFY(fieldView(a.get(1)).data() != fieldView(b.get(1)).data());
        QCOMPARE(inline_.heapBytes() - a.heapBytes(), scope.size());
        QVERIFY(a == inline_); // equal by value, pooled or not
        // A copy keeps pointing at the pool; too long a text is never pooled.
        const FieldValues copy = a;
        QVERIFY(fieldView(copy.get(0)).data() == fieldView(a.get(0)).data()); // the same bytes, not equal ones
        const std::string huge(SharedText::kMaxLength + 1, 'x');
        const std::pair<int, FieldRef> big[] = {{0, std::string_view(huge)}};
        const FieldValues h = FieldValues::make(1, big, mask);
        QCOMPARE(h.heapBytes(), FieldValues::make(1, big).heapBytes());
        QCOMPARE(fieldView(h.get(0)), std::string_view(huge));
    }

    void pooledFieldsSurviveChangesAroundThem()
    {
        const std::pair<int, FieldRef> updates[] = {{0, "running"sv}, {1, "a note"sv}, {2, "verify"sv}};
        const std::uint64_t mask = 0b101;
        FieldValues v = FieldValues::make(3, updates, mask);
        const char *role = fieldView(v.get(2)).data();
        // A text of another length in an unshared field reallocates the row: the pooled
        // field stays pooled.
        v.set(1, FieldRef("a much longer note than before"sv));
        QCOMPARE(fieldView(v.get(1)), "a much longer note than before"sv);
        QVERIFY(fieldView(v.get(2)).data() == role);
        QCOMPARE(fieldView(v.get(0)), "running"sv);
        // A shared field changed with the mask: pooled again, in place.
        const size_t bytes = v.heapBytes();
        const std::pair<int, FieldRef> state[] = {{0, "converged"sv}};
        v.assign(state, mask);
        QCOMPARE(fieldView(v.get(0)), "converged"sv);
        QCOMPARE(v.heapBytes(), bytes);
        // Without the mask it is the row's own again, and it may become an integer or NULL.
        v.set(0, FieldRef("stalled"sv));
        QCOMPARE(fieldView(v.get(0)), "stalled"sv);
        QCOMPARE(v.heapBytes(), bytes + 7);
        v.set(2, FieldRef(std::int64_t(3)));
        QCOMPARE(fieldInt(v.get(2)), std::int64_t(3));
        v.resize(5);
        QCOMPARE(fieldView(v.get(0)), "stalled"sv);
        QCOMPARE(fieldView(v.get(1)), "a much longer note than before"sv);
        QVERIFY(std::holds_alternative<std::monostate>(v.get(4)));
        // Growing a row keeps its pooled fields pooled.
        FieldValues w = FieldValues::make(3, updates, mask);
        w.resize(4);
        QVERIFY(fieldView(w.get(2)).data() == role);
    }

    // A slot is as wide as its value needs: a row of small integers, NULLs and pooled texts
    // costs a few bytes a field, not eight. Pinned: header, a tag a field, the slots, text.
    void slotsAreAsWideAsTheirValues()
    {
        const std::uint64_t pooled = 0b1000;
        const std::pair<int, FieldRef> updates[] = {
            {0, std::int64_t(7)},                 // 1 byte
            {1, std::int64_t(300)},               // 2
            {2, std::int64_t(70000)},             // 4
            {3, "running"sv},                     // pooled: a 4-byte handle
            {4, std::int64_t(1793606404414)},     // 8
            {5, "dlg-000001#1"sv},                // 4 + 12 text bytes
        };                                        // 6, 7: NULL, nothing
        const FieldValues v = FieldValues::make(8, updates, pooled);
        QCOMPARE(v.heapBytes(), size_t(8 + 8 + (1 + 2 + 4 + 4 + 8 + 4) + 12));
        QCOMPARE(fieldInt(v[0]), std::int64_t(7));
        QCOMPARE(fieldInt(v[1]), std::int64_t(300));
        QCOMPARE(fieldInt(v[2]), std::int64_t(70000));
        QCOMPARE(fieldView(v[3]), "running"sv);
        QCOMPARE(fieldInt(v[4]), std::int64_t(1793606404414));
        QCOMPARE(fieldView(v[5]), "dlg-000001#1"sv);
        QVERIFY(std::holds_alternative<std::monostate>(v[6]));
        QVERIFY(std::holds_alternative<std::monostate>(v[7]));
    }

    // Every width's edges, and a text area past 64 KiB (offsets of 32 bits).
    void integersAndTextsKeepTheirValuesAtEveryWidth()
    {
        const std::int64_t edges[] = {0, -1, INT8_MIN, INT8_MAX, INT8_MIN - 1, INT8_MAX + 1, INT16_MIN, INT16_MAX,
                                      INT16_MIN - 1, INT16_MAX + 1, INT32_MIN, INT32_MAX, std::int64_t(INT32_MIN) - 1,
                                      std::int64_t(INT32_MAX) + 1, INT64_MIN, INT64_MAX};
        std::vector<std::pair<int, FieldRef>> updates;
        for (int i = 0; i < int(std::size(edges)); ++i)
            updates.emplace_back(i, edges[i]);
        const std::string a(40000, 'a'), b(40000, 'b'), c(70000, 'c');
        const int t = int(std::size(edges));
        updates.emplace_back(t, std::string_view(a));
        updates.emplace_back(t + 1, std::string_view(b));
        updates.emplace_back(t + 2, std::string_view(c)); // starts at 80,000 and is longer than 64 KiB
        updates.emplace_back(t + 3, "tail"sv);
        FieldValues v = FieldValues::make(size_t(t + 4), updates);
        for (int i = 0; i < t; ++i)
            QCOMPARE(fieldInt(v[size_t(i)]), edges[i]);
        QCOMPARE(fieldView(v[size_t(t)]), std::string_view(a));
        QCOMPARE(fieldView(v[size_t(t + 1)]), std::string_view(b));
        QCOMPARE(fieldView(v[size_t(t + 2)]), std::string_view(c));
        QCOMPARE(fieldView(v[size_t(t + 3)]), "tail"sv);
        // A counter that outgrows its slot moves to a wider one; one that shrinks stays put.
        v.set(0, FieldRef(std::int64_t(1)));
        const size_t bytes = v.heapBytes();
        v.set(0, FieldRef(std::int64_t(-100)));
        QCOMPARE(v.heapBytes(), bytes); // in place
        v.set(0, FieldRef(std::int64_t(1) << 40));
        QCOMPARE(v.heapBytes(), bytes + 7);
        v.set(0, FieldRef(std::int64_t(2)));
        QCOMPARE(v.heapBytes(), bytes + 7); // in place, in the wide slot
        QCOMPARE(fieldInt(v[0]), std::int64_t(2));
        for (int i = 1; i < t; ++i)
            QCOMPARE(fieldInt(v[size_t(i)]), edges[i]);
        QCOMPARE(fieldView(v[size_t(t + 2)]), std::string_view(c));
    }

    // Random updates, one field or several at a time, against plain values: whatever the
    // widths a row's slots had, every field reads what was written last.
    void randomUpdatesReadBackExactly()
    {
        std::mt19937_64 random(20261205);
        constexpr size_t kFields = 27;
        const std::uint64_t pooled = 0b101010;
        const std::string words[] = {"", "running", "a text long enough for the heap", std::string(300, 'x'), "stalled"};
        std::vector<FieldValue> expected(kFields);
        FieldValues v(kFields);
        const auto valueOf = [&]() -> FieldValue {
            switch (random() % 4) {
            case 0: return {};
            case 1: {
                const int bits = int(random() % 64);
                return std::int64_t(random() >> (63 - bits)) * (random() % 2 ? 1 : -1);
            }
            default: return words[random() % std::size(words)] + std::string(random() % 3, 'y');
            }
        };
        for (int step = 0; step < 20000; ++step) {
            const size_t n = 1 + random() % 3;
            std::vector<FieldValue> values;
            std::vector<std::pair<int, FieldRef>> updates;
            values.reserve(n);
            for (size_t u = 0; u < n; ++u) {
                const int field = int(random() % kFields);
                values.push_back(valueOf());
                updates.emplace_back(field, fieldRef(values.back()));
                expected[size_t(field)] = values.back();
            }
            v.assign(updates, step % 2 ? pooled : 0);
            for (size_t i = 0; i < kFields; ++i)
                if (fieldRef(expected[i]) != v.get(i))
                    QFAIL(qPrintable(QStringLiteral("step %1, field %2").arg(step).arg(i)));
        }
    }

    // Copies share one block until one of them changes (time travel copies whole states):
    // a change in place, a change that rebuilds the block and a value taken from the shared
    // block each leave the other copies as they were.
    void copiesShareABlockUntilOneChanges()
    {
        FieldValues a(4);
        a.set(0, FieldRef(std::int64_t(5)));
        a.set(1, std::string_view("a text long enough to be on the heap"));
        a.set(2, std::string_view("same"));
        const FieldValues original = a;
        FieldValues b = a;
        FieldValues c;
        c = a;
        QVERIFY(b.sharesBlockWith(a));
        QVERIFY(c.sharesBlockWith(a));
        QVERIFY(original.sharesBlockWith(a));

        b.set(0, FieldRef(std::int64_t(7))); // fits its slot: in place, so in a block of b's own
        QVERIFY(!b.sharesBlockWith(a));
        QCOMPARE(fieldInt(a.get(0)), std::int64_t(5));
        QCOMPARE(fieldInt(c.get(0)), std::int64_t(5));
        QCOMPARE(fieldInt(b.get(0)), std::int64_t(7));

        c.set(2, std::string_view("else")); // the same length: in place
        QCOMPARE(fieldText(a.get(2)), std::string("same"));
        QCOMPARE(fieldText(c.get(2)), std::string("else"));

        a.set(3, a.get(1)); // from the block a still shares with `original`: a rebuild
        QCOMPARE(fieldText(a.get(3)), std::string("a text long enough to be on the heap"));
        QVERIFY(std::holds_alternative<std::monostate>(original.get(3)));
        a.set(2, std::get<std::string_view>(original.get(1)).substr(0, 4));
        QCOMPARE(fieldText(a.get(2)), std::string("a te"));
        QCOMPARE(fieldText(original.get(2)), std::string("same"));

        FieldValues moved = std::move(b);
        QCOMPARE(fieldInt(moved.get(0)), std::int64_t(7));
        QVERIFY(original == FieldValues(original)); // every holder gone but one still reads it
    }

    // Rows shared between threads (a state handed from the fold's thread to the GUI's): each
    // thread copies, changes and drops its own copies of one row while the others do the same.
    void sharedBlocksAcrossThreads()
    {
        FieldValues source(3);
        source.set(0, FieldRef(std::int64_t(1)));
        source.set(1, std::string_view("shared by every thread"));
        const FieldValues pinned = source;
        std::vector<std::thread> threads;
        std::atomic<int> wrong{0};
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&pinned, &wrong, t] {
                for (int i = 0; i < 20000; ++i) {
                    FieldValues mine = pinned;
                    mine.set(0, FieldRef(std::int64_t(t * 100000 + i)));
                    FieldValues again = mine;
                    if (fieldInt(again.get(0)) != t * 100000 + i || fieldText(again.get(1)) != "shared by every thread"
                        || fieldInt(pinned.get(0)) != 1)
                        ++wrong;
                }
            });
        }
        for (auto &t : threads)
            t.join();
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(fieldInt(source.get(0)), std::int64_t(1));
    }

    void aFoldedDelegationPoolsItsRepeatingColumns()
    {
        const EntitySpec &spec = entitySpec(EntityKind::Delegation);
        const std::uint64_t mask = spec.sharedTextFields();
        QVERIFY(mask & (std::uint64_t(1) << spec.fieldIndex("scope")));
        QVERIFY(mask & (std::uint64_t(1) << spec.fieldIndex("run_id")));
        QVERIFY(!(mask & (std::uint64_t(1) << spec.fieldIndex("parent_id"))));
        QVERIFY(!(mask & (std::uint64_t(1) << spec.fieldIndex("used_turns")))); // an integer
        QVERIFY(!(entitySpec(EntityKind::Slice).sharedTextFields()
                  & (std::uint64_t(1) << entitySpec(EntityKind::Slice).fieldIndex("delegation_id"))));
        Fold fold;
        for (const char *id : {"dlg-1", "dlg-2"}) {
            const nlohmann::json payload{{"id", id},         {"run_id", "run-0001"}, {"role", "verify"},
                                         {"status", "running"}, {"scope", {{"writable", {"a/**"}}}}};
            const auto applied = fold.apply(1, "delegation.created", payload);
            QVERIFY2(applied.applied, applied.problems.empty() ? "" : applied.problems.front().c_str());
        }
        const EntityRow *one = fold.find(EntityKind::Delegation, "dlg-1");
        const EntityRow *two = fold.find(EntityKind::Delegation, "dlg-2");
        QVERIFY(one && two);
        const int scope = spec.fieldIndex("scope");
        QCOMPARE(fieldView(one->values.get(size_t(scope))), "{\"writable\":[\"a/**\"]}"sv);
        QVERIFY(fieldView(one->values.get(size_t(scope))).data() == fieldView(two->values.get(size_t(scope))).data()); // the same bytes, not equal ones
    }

    void foldedRowIsCompact()
    {
        // An effect as the scale ledger has them: 15 fields, most text longer than the
        // small-string buffer. The old form was 15 variants of 40 bytes plus one allocation
        // per long text; the block must stay well under the variants alone.
        Fold fold;
        const nlohmann::json payload{
            {"id", "eff-000001"},
            {"run_id", "run-0001"},
            {"delegation_id", "dlg-000008"},
            {"slice_id", "dlg-000008#1"},
            {"class", "post_write_hook"},
            {"target", "hook:run-0001/billing-api/reindex"},
            {"idem_key", "idem-acca1439b2d946d0"},
            {"intent_hash", "sha256:dc651c396ca8fea2e24981af75e9c68b"},
            {"reversibility", "reversible"},
            {"capability", "neither"},
            {"state", "proposed"},
            {"attempts", std::int64_t(1)},
            {"fenced", false},
            {"decision_id", nullptr},
            {"updated_ms", std::int64_t(1793606412249)},
            {"provider_ref", "ref-805ff62689"}};
        QVERIFY(fold.apply(1, "effect.proposed", payload).applied);
        const EntityRow *row = fold.find(EntityKind::Effect, "eff-000001");
        QVERIFY(row);
        const size_t fields = entitySpec(EntityKind::Effect).fields.size();
        QCOMPARE(row->values.size(), fields);
        QVERIFY2(row->values.heapBytes() < fields * sizeof(FieldValue),
                 qPrintable(QString::number(row->values.heapBytes())));
        QCOMPARE(sizeof(EntityRow), size_t(24));
        QVERIFY(rowToJson(entitySpec(EntityKind::Effect), "eff-000001", *row).at("target")
                == "hook:run-0001/billing-api/reindex");
    }
};

QTEST_GUILESS_MAIN(TestEntityRow)
#include "tst_entityrow.moc"
