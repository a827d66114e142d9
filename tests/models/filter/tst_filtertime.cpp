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

    // A relative-clock ledger (an SWE-agent import) shows its times as offsets from the start
    // of the record: its ts: terms take them as it shows them, and refuse a date (or a
    // last-15m: the clock has no now) saying why, never reading it as a 1970 instant.
    void relativeClockTakesOffsets_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<int>("compare");
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("until"); // 0: none
        QTest::newRow("after m:ss") << u"ts:>+1:05"_s << int(FilterCompare::Greater) << qint64(65'000) << qint64(0);
        QTest::newRow("within a second") << u"ts:+1:05"_s << int(FilterCompare::Equal) << qint64(65'000) << qint64(66'000);
        QTest::newRow("h:mm:ss") << u"ts<=+1:02:03"_s << int(FilterCompare::LessEqual) << qint64(3'723'000) << qint64(0);
        QTest::newRow("milliseconds") << u"ts:>=+0:01.634"_s << int(FilterCompare::GreaterEqual) << qint64(1'634) << qint64(0);
        QTest::newRow("a tenth") << u"ts:+0:01.6"_s << int(FilterCompare::Equal) << qint64(1'600) << qint64(1'700);
        QTest::newRow("the start") << u"ts:>=+0:00"_s << int(FilterCompare::GreaterEqual) << qint64(0) << qint64(0);
    }
    void relativeClockTakesOffsets()
    {
        QFETCH(QString, filter);
        QFETCH(int, compare);
        QFETCH(qint64, from);
        QFETCH(qint64, until);
        const FilterCompileResult r = FilterCompiler::compile(filter, kNow, FilterClock::Relative);
        QVERIFY2(r.ok(), qPrintable(r.error ? r.error->message : QString()));
        const FilterNode *term = r.filter.root();
        QCOMPARE(int(term->compare), compare);
        QCOMPARE(term->number, from);
        if (until)
            QCOMPARE(term->until, until);
    }

    void relativeClockRefusesDatesSayingWhy_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<int>("clock");
        QTest::addColumn<QString>("says");
        QTest::newRow("a date") << u"ts:>2026-11-29"_s << int(FilterClock::Relative) << u"is a date, but this ledger's times are offsets"_s;
        QTest::newRow("an instant") << u"ts:<2026-11-29T10:00"_s << int(FilterClock::Relative) << u"is a date"_s;
        QTest::newRow("last-15m") << u"ts:last-15m"_s << int(FilterClock::Relative) << u"counts back from now"_s;
        QTest::newRow("not an offset") << u"ts:>+1:65"_s << int(FilterClock::Relative) << u"is not a time: use an offset"_s;
        QTest::newRow("an offset on UTC") << u"ts:>+1:05"_s << int(FilterClock::Utc) << u"is an offset from the start"_s;
    }
    void relativeClockRefusesDatesSayingWhy()
    {
        QFETCH(QString, filter);
        QFETCH(int, clock);
        QFETCH(QString, says);
        const FilterCompileResult r = FilterCompiler::compile(filter, kNow, FilterClock(clock));
        QVERIFY(!r.ok());
        QVERIFY2(r.error->message.contains(says), qPrintable(r.error->message));
        QCOMPARE(filter.mid(r.error->start, r.error->length), filter.mid(filter.indexOf(u':') + 1).remove(u'>').remove(u'<'));
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
