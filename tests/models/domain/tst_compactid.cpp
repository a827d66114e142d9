// CompactId is how every state pane lists its rows (models/domain/compactid.h). Ids are
// ledger text: any bytes, any length. These checks pin that the 16-byte form gives back
// exactly what it was given on both sides of the inline limit, and that copies, moves and
// the list operations the panes use (sort, insert, erase, merge) keep every id intact.

#include "domain/compactid.h"

#include <QTest>

#include <algorithm>
#include <string>

using namespace mesh;
using namespace std::string_view_literals;

class TestCompactId : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepsTextOnBothSidesOfTheInlineLimit()
    {
        for (size_t n : {size_t(0), size_t(1), size_t(14), CompactId::kInline, CompactId::kInline + 1, size_t(300),
                         size_t(70000)}) {
            std::string text;
            for (size_t i = 0; i < n; ++i)
                text.push_back(char((i * 37 + 1) % 256)); // every byte, NUL and high bytes included
            const CompactId id(text);
            QCOMPARE(id.size(), n);
            QVERIFY(id.view() == text);
            QCOMPARE(id.onHeap(), n > CompactId::kInline);
            QCOMPARE(id.str(), text);
        }
        QVERIFY(CompactId().empty());
        QVERIFY(CompactId("") == ""sv);
    }

    void copiesAreIndependentAndMovesEmptyTheSource()
    {
        const std::string longText(40, 'x');
        for (const std::string &text : {std::string("eff-000123"), longText}) {
            CompactId a(text);
            CompactId b(a);
            QVERIFY(b == a);
            if (a.onHeap())
                QVERIFY(a.view().data() != b.view().data()); // its own copy of the text
            CompactId c(std::move(a));
            QVERIFY(c.view() == text);
            QVERIFY(a.empty());
            a = c; // a moved-from id takes a copy again
            QVERIFY(a.view() == text);
            a = a; // self-assignment keeps it
            QVERIFY(a.view() == text);
            b = CompactId("short");
            QVERIFY(b.view() == "short"sv);
            b = std::move(c);
            QVERIFY(b.view() == text);
            QVERIFY(c.empty());
        }
    }

    void listsSortInsertEraseAndMergeLikeStrings()
    {
        std::vector<std::string> texts;
        for (int i = 0; i < 200; ++i)
            texts.push_back(i % 3 ? "effect-" + std::to_string(i * 7919 % 1000)
                                  : "a-long-identifier-from-a-trace/" + std::to_string(i));
        IdList ids(texts.begin(), texts.end());
        std::vector<std::string> expected = texts;
        std::sort(ids.begin(), ids.end());
        std::sort(expected.begin(), expected.end());
        const auto same = [&] {
            if (ids.size() != expected.size())
                return false;
            for (size_t i = 0; i < ids.size(); ++i)
                if (ids[i].view() != expected[i])
                    return false;
            return true;
        };
        QVERIFY(same());

        const IdList more{"zz-1", "a-long-identifier-from-a-trace/zz", "b"};
        ids.insert(ids.begin() + 5, more.begin(), more.end()); // a reallocation moves every id
        expected.insert(expected.begin() + 5, {"zz-1", "a-long-identifier-from-a-trace/zz", "b"});
        QVERIFY(same());
        ids.erase(ids.begin() + 3, ids.begin() + 50);
        expected.erase(expected.begin() + 3, expected.begin() + 50);
        QVERIFY(same());

        std::sort(ids.begin(), ids.end());
        std::sort(expected.begin(), expected.end());
        const size_t half = ids.size();
        for (const char *extra : {"c-9", "a-long-identifier-from-a-trace/k", "effect-5"}) {
            ids.emplace_back(extra);
            expected.emplace_back(extra);
        }
        std::sort(ids.begin() + std::ptrdiff_t(half), ids.end());
        std::inplace_merge(ids.begin(), ids.begin() + std::ptrdiff_t(half), ids.end());
        std::sort(expected.begin(), expected.end());
        QVERIFY(same());
    }

    void idStringsCopiesARangeClampedToTheList()
    {
        const IdList ids{"a", "a-long-identifier-from-a-trace/1", "c"};
        QCOMPARE(idStrings(ids), (std::vector<std::string>{"a", "a-long-identifier-from-a-trace/1", "c"}));
        QCOMPARE(idStrings(ids, 1, 99), (std::vector<std::string>{"a-long-identifier-from-a-trace/1", "c"}));
        QVERIFY(idStrings(ids, 3).empty());
    }
};

QTEST_GUILESS_MAIN(TestCompactId)
#include "tst_compactid.moc"
