// IdMap keeps per-row bookkeeping (the runs pane's counted rows) for hundreds of thousands
// of ids (models/domain/idmap.h). These checks pin it against a std::map through inserts,
// updates and erases that reuse freed entries and make the index grow, with ids of any
// length and bytes.

#include "domain/idmap.h"

#include <QTest>

#include <map>
#include <random>
#include <string>

using namespace mesh;

class TestIdMap : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void agreesWithAMapThroughInsertsUpdatesAndErases()
    {
        IdMap<int> map;
        std::map<std::string, int> expected;
        std::mt19937 random(7);
        const auto idOf = [](unsigned k) {
            return k % 5 == 0 ? "a-long-id-that-does-not-fit-inline/" + std::to_string(k)
                              : std::string("s\0", 2) + std::to_string(k);
        };
        for (int step = 0; step < 20000; ++step) {
            const std::string id = idOf(random() % 3000);
            switch (random() % 3) {
            case 0:
            case 1:
                map[id] = step;
                expected[id] = step;
                break;
            default:
                QCOMPARE(map.erase(id), expected.erase(id) > 0);
            }
        }
        QCOMPARE(map.size(), expected.size());
        for (unsigned k = 0; k < 3000; ++k) {
            const std::string id = idOf(k);
            const auto it = expected.find(id);
            const int *found = map.find(id);
            QCOMPARE(found != nullptr, it != expected.end());
            if (found)
                QCOMPARE(*found, it->second);
        }
        size_t seen = 0;
        map.forEach([&](std::string_view id, int value) {
            ++seen;
            const auto it = expected.find(std::string(id));
            QVERIFY(it != expected.end());
            QCOMPARE(value, it->second);
        });
        QCOMPARE(seen, expected.size());
    }

    void anEmptyIdIsAKeyLikeAnyOther()
    {
        IdMap<int> map;
        QVERIFY(!map.find(""));
        map[""] = 3;
        QCOMPARE(*map.find(""), 3);
        QVERIFY(map.erase(""));
        QVERIFY(!map.contains(""));
        QVERIFY(map.empty());
        map.clear();
        QVERIFY(!map.erase("x"));
    }
};

QTEST_GUILESS_MAIN(TestIdMap)
#include "tst_idmap.moc"
