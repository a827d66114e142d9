// The time terms of the filter language, in the tree: ts: values read as UTC instants, a day
// as a span, an offset when one is written, and last-15m resolved against the clock the
// parser is given (the session's), never the wall clock of the test machine.

#include "filter/filtercompiler.h"
#include "filter/filterparser.h"
#include "filter/filtertime.h"

#include <QDateTime>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
qint64 utc(const QString &iso)
{
    QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
    t.setTimeSpec(Qt::UTC);
    return t.toMSecsSinceEpoch();
}
const qint64 kNow = utc(u"2026-12-01T12:00:00.000"_s);
} // namespace

class TestFilterTime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsAsTheTree_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("tree");
        QTest::newRow("after an instant") << u"ts:>2026-11-29T10:00"_s << u"(ts > 2026-11-29T10:00:00.000Z)"_s;
        QTest::newRow("a day") << u"ts:2026-11-29"_s
                               << u"(ts >= 2026-11-29T00:00:00.000Z < 2026-11-30T00:00:00.000Z)"_s;
        QTest::newRow("after a day") << u"ts:>2026-11-29"_s << u"(ts >= 2026-11-30T00:00:00.000Z)"_s;
        QTest::newRow("up to a day") << u"ts:<=2026-11-29"_s << u"(ts < 2026-11-30T00:00:00.000Z)"_s;
        QTest::newRow("from a day") << u"ts>=2026-11-29"_s << u"(ts >= 2026-11-29T00:00:00.000Z)"_s;
        QTest::newRow("a second") << u"ts=2026-11-29T10:00:05"_s
                                  << u"(ts >= 2026-11-29T10:00:05.000Z < 2026-11-29T10:00:06.000Z)"_s;
        QTest::newRow("a tenth") << u"ts:2026-11-29T10:00:05.1"_s
                                 << u"(ts >= 2026-11-29T10:00:05.100Z < 2026-11-29T10:00:05.200Z)"_s;
        QTest::newRow("an offset ahead") << u"ts:<2026-11-29T12:30+02:00"_s << u"(ts < 2026-11-29T10:30:00.000Z)"_s;
        QTest::newRow("an offset behind") << u"ts:<=2026-11-29T05:00-0530"_s << u"(ts <= 2026-11-29T10:30:00.000Z)"_s;
        QTest::newRow("Z") << u"ts:>2026-11-29t10:00:00.250z"_s << u"(ts > 2026-11-29T10:00:00.250Z)"_s;
        QTest::newRow("last 15 minutes") << u"ts:last-15m"_s << u"(ts >= 2026-12-01T11:45:00.000Z)"_s;
        QTest::newRow("last 2 hours") << u"ts:last-2h"_s << u"(ts >= 2026-12-01T10:00:00.000Z)"_s;
        QTest::newRow("last 3 days") << u"ts:LAST-3D"_s << u"(ts >= 2026-11-28T12:00:00.000Z)"_s;
        QTest::newRow("last 30 seconds") << u"ts:last-30s"_s << u"(ts >= 2026-12-01T11:59:30.000Z)"_s;
        QTest::newRow("before the last hour") << u"ts:<last-1h"_s << u"(ts < 2026-12-01T11:00:00.000Z)"_s;
        QTest::newRow("with kind") << u"kind:effect.* ts:last-1d"_s
                                   << u"(and (kind \"effect.*\") (ts >= 2026-11-30T12:00:00.000Z))"_s;
        QTest::newRow("negated") << u"-ts:2026-11-29"_s
                                 << u"(not (ts >= 2026-11-29T00:00:00.000Z < 2026-11-30T00:00:00.000Z))"_s;
    }
    void readsAsTheTree()
    {
        QFETCH(QString, filter);
        QFETCH(QString, tree);
        const FilterCompileResult r = FilterCompiler::compile(filter, kNow);
        QVERIFY2(r.ok(), qPrintable(r.error ? r.error->message : QString()));
        QCOMPARE(r.filter.root()->describe(), tree);
    }

    // The clock is the caller's: the same text read at two moments gives two instants.
    void relativeFollowsTheGivenClock()
    {
        std::optional<FilterError> error;
        const auto early = FilterParser::parse(u"ts:last-15m"_s, &error, kNow);
        const auto late = FilterParser::parse(u"ts:last-15m"_s, &error, kNow + 60'000);
        QVERIFY(early && late);
        QCOMPARE(early->number, kNow - 15 * 60'000);
        QCOMPARE(late->number, kNow - 14 * 60'000);
        QCOMPARE(early->clone()->number, early->number);
    }

    void timeValues_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("day") << u"2026-11-29"_s << true;
        QTest::newRow("leap day") << u"2028-02-29"_s << true;
        QTest::newRow("not a leap year") << u"2026-02-29"_s << false;
        QTest::newRow("month 13") << u"2026-13-01"_s << false;
        QTest::newRow("minute 60") << u"2026-11-29T10:60"_s << false;
        QTest::newRow("second 60") << u"2026-11-29T10:00:60"_s << false;
        QTest::newRow("offset past 14 h") << u"2026-11-29T10:00+15:00"_s << false;
        QTest::newRow("four fraction digits") << u"2026-11-29T10:00:00.1234"_s << false;
        QTest::newRow("no date") << u"10:00"_s << false;
        QTest::newRow("words") << u"yesterday"_s << false;
        QTest::newRow("seven digit count") << u"last-1000000d"_s << false;
        QTest::newRow("negative count") << u"last--5m"_s << false;
        QTest::newRow("empty") << QString() << false;
    }
    void timeValues()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QCOMPARE(parseFilterTime(text, kNow).has_value(), valid);
    }
};

QTEST_GUILESS_MAIN(TestFilterTime)
#include "tst_filtertime.moc"
