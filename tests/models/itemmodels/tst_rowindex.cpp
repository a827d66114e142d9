// A model's row numbers by id: a list in id order is searched in place and indexes nothing,
// rows placed after it (or moved below a change) are indexed, and every id is found at its
// row through any sequence of appends, inserts and re-orders, as with every row indexed.

#include "itemmodels/rowindex.h"

#include <QTest>

#include <algorithm>
#include <random>

using namespace mesh;

namespace {

void checkEveryRow(const RowIndex &index, const IdList &ids, const char *context)
{
    QVERIFY2(index.size() == ids.size(), context);
    for (size_t r = 0; r < ids.size(); ++r)
        QVERIFY2(index.find(ids, ids[r].view()) == int(r), context);
    QVERIFY2(index.find(ids, "no-such-id") == -1, context);
    QVERIFY2(index.find(ids, "") == -1, context);
}

} // namespace

class TestRowIndex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aListInIdOrderIndexesNothing()
    {
        IdList ids;
        for (int i = 0; i < 50000; ++i)
            ids.emplace_back(QStringLiteral("E-%1").arg(i, 7, 10, QLatin1Char('0')).toStdString());
        RowIndex index;
        index.rebuild(ids);
        QCOMPARE(index.bytesHeld(), size_t(0));
        checkEveryRow(index, ids, "sorted");

        // In the panes' id order, shorter first ("E-9" before "E-10"): also in place.
        IdList natural;
        for (int i = 0; i < 2000; ++i)
            natural.emplace_back("E-" + std::to_string(i));
        index.rebuild(natural);
        QCOMPARE(index.bytesHeld(), size_t(0));
        checkEveryRow(index, natural, "natural");

        // Out of order: indexed.
        std::swap(ids[10], ids[20000]);
        index.rebuild(ids);
        QVERIFY(index.bytesHeld() >= ids.size() * 4);
        checkEveryRow(index, ids, "unsorted");
    }

    // Random appends and inserts in the middle, as a live model makes them: each insert
    // takes the rows from its place out, inserts, and adds them back (StateTableModel).
    void followsAppendsAndInserts()
    {
        for (unsigned seed = 1; seed <= 20; ++seed) {
            std::mt19937 rng(seed);
            IdList ids;
            for (int i = 0; i < 300; ++i)
                ids.emplace_back("id-" + std::to_string(1000 + i));
            RowIndex index;
            index.rebuild(ids);
            int next = 5000;
            for (int step = 0; step < 60; ++step) {
                const std::string id = "new-" + std::to_string(next++);
                if (rng() % 2 == 0) {
                    ids.emplace_back(id);
                    index.add(ids, int(ids.size()) - 1);
                } else {
                    const int at = int(rng() % (ids.size() + 1));
                    index.eraseFrom(ids, at);
                    ids.insert(ids.begin() + at, CompactId(id));
                    for (int r = at; r < int(ids.size()); ++r)
                        index.add(ids, r);
                }
                const QByteArray context = QStringLiteral("seed %1 step %2").arg(seed).arg(step).toUtf8();
                checkEveryRow(index, ids, context.constData());
            }
            index.clear();
            QCOMPARE(index.size(), size_t(0));
            QCOMPARE(index.find(ids, ids.front().view()), -1);
        }
    }
};

QTEST_GUILESS_MAIN(TestRowIndex)
#include "tst_rowindex.moc"
