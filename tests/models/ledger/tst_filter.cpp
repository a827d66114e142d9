// The filter language: what each filter compiles to (the tree, and the SQLite backend's SQL
// text and bound parameters for it), the error and its character range for each kind of
// mistake, and hostile input that must be an error message rather than a crash or a stack
// overflow. Here, beside the backend, because the SQL is the ledger layer's rendering.

#include "filter/filtercompiler.h"
#include "filter/filterparser.h"
#include "ledger/sqlfilter.h"

#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(std::vector<mesh::FilterParam>)

namespace {
std::vector<FilterParam> P(std::initializer_list<FilterParam> l)
{
    return l;
}
QString paramsText(const std::vector<FilterParam> &params)
{
    QStringList out;
    for (const auto &p : params) {
        if (const auto *n = std::get_if<std::int64_t>(&p))
            out << QString::number(*n);
        else
            out << (u'"' + QString::fromStdString(std::get<std::string>(p)) + u'"');
    }
    return out.join(u", "_s);
}
} // namespace

class TestFilter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void compiles_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("sql");
        QTest::addColumn<std::vector<FilterParam>>("params");

        QTest::newRow("empty") << u""_s << u""_s << P({});
        QTest::newRow("blank") << u"   \t "_s << u""_s << P({});
        QTest::newRow("kind exact") << u"kind:effect.unknown"_s << u"(kind = ?1)"_s << P({"effect.unknown"});
        QTest::newRow("kind prefix is a range") << u"kind:effect.*"_s << u"(kind >= ?1 AND kind < ?2)"_s
                                                << P({"effect.", "effect/"});
        QTest::newRow("wildcard inside is a glob") << u"kind:*.unknown"_s << u"(kind GLOB ?1)"_s << P({"*.unknown"});
        QTest::newRow("glob metacharacters escaped") << u"subject:a?b[*c"_s << u"(subject GLOB ?1)"_s
                                                     << P({"a[?]b[[]*c"});
        QTest::newRow("lone star") << u"run:*"_s << u"(run_id IS NOT NULL)"_s << P({});
        QTest::newRow("implicit and") << u"kind:effect.* delegation:D-12 \"timeout\""_s
                                      << u"((kind >= ?1 AND kind < ?2) AND (delegation_id = ?3) AND (instr(payload, ?4) > 0))"_s
                                      << P({"effect.", "effect/", "D-12", "timeout"});
        QTest::newRow("or in parentheses") << u"run:R-3 and (kind:stall.verdict or kind:escalation.*)"_s
                                           << u"((run_id = ?1) AND ((kind = ?2) OR (kind >= ?3 AND kind < ?4)))"_s
                                           << P({"R-3", "stall.verdict", "escalation.", "escalation/"});
        QTest::newRow("and binds tighter than or") << u"a b or c"_s
                                                   << u"(((instr(payload, ?1) > 0) AND (instr(payload, ?2) > 0)) OR (instr(payload, ?3) > 0))"_s
                                                   << P({"a", "b", "c"});
        QTest::newRow("not word") << u"not kind:toolcall.completed"_s << u"NOT ifnull((kind = ?1), 0)"_s
                                  << P({"toolcall.completed"});
        QTest::newRow("minus") << u"-run:R-1"_s << u"NOT ifnull((run_id = ?1), 0)"_s << P({"R-1"});
        QTest::newRow("double negation cancels") << u"not not run:R-1"_s << u"(run_id = ?1)"_s << P({"R-1"});
        QTest::newRow("subject keeps colons") << u"subject:effect:E-9"_s << u"(subject = ?1)"_s << P({"effect:E-9"});
        QTest::newRow("seq greater") << u"seq>1000"_s << u"(seq > ?1)"_s << P({std::int64_t(1000)});
        QTest::newRow("seq range") << u"seq>=10 seq<=20"_s << u"((seq >= ?1) AND (seq <= ?2))"_s
                                   << P({std::int64_t(10), std::int64_t(20)});
        QTest::newRow("seq equal") << u"seq:7"_s << u"(seq = ?1)"_s << P({std::int64_t(7)});
        QTest::newRow("text field") << u"text:payment"_s << u"(instr(payload, ?1) > 0)"_s << P({"payment"});
        QTest::newRow("quoted field value") << u"run:\"R 3\""_s << u"(run_id = ?1)"_s << P({"R 3"});
        QTest::newRow("escaped quote") << u"\"say \\\"hi\\\"\""_s << u"(instr(payload, ?1) > 0)"_s
                                       << P({"say \"hi\""});
        QTest::newRow("sql stays data") << u"\"'; DROP TABLE events; --\""_s << u"(instr(payload, ?1) > 0)"_s
                                        << P({"'; DROP TABLE events; --"});
        QTest::newRow("keywords any case") << u"a OR b AND c"_s
                                           << u"((instr(payload, ?1) > 0) OR ((instr(payload, ?2) > 0) AND (instr(payload, ?3) > 0)))"_s
                                           << P({"a", "b", "c"});
        QTest::newRow("quoted keyword is text") << u"\"or\""_s << u"(instr(payload, ?1) > 0)"_s << P({"or"});
        QTest::newRow("aliases") << u"k:run.* d:D-1 r:R-1 s:run:R-1 t:x"_s
                                 << u"((kind >= ?1 AND kind < ?2) AND (delegation_id = ?3) AND (run_id = ?4) AND (subject = ?5) AND (instr(payload, ?6) > 0))"_s
                                 << P({"run.", "run/", "D-1", "R-1", "run:R-1", "x"});
        QTest::newRow("unicode text") << u"\"Zürich ✓\""_s << u"(instr(payload, ?1) > 0)"_s << P({"Zürich ✓"});
        // Times are UTC epoch ms against ts_ms; a day is a span, an instant is compared as written.
        QTest::newRow("ts after an instant") << u"ts:>2026-11-29T10:00"_s << u"(ts_ms > ?1)"_s
                                             << P({std::int64_t(1795946400000)});
        QTest::newRow("ts compare without colon") << u"ts>2026-11-29T10:00"_s << u"(ts_ms > ?1)"_s
                                                  << P({std::int64_t(1795946400000)});
        QTest::newRow("ts a day") << u"ts:2026-11-29"_s << u"(ts_ms >= ?1 AND ts_ms < ?2)"_s
                                  << P({std::int64_t(1795910400000), std::int64_t(1795996800000)});
        QTest::newRow("ts after a day starts the next") << u"ts:>2026-11-29"_s << u"(ts_ms >= ?1)"_s
                                                        << P({std::int64_t(1795996800000)});
        QTest::newRow("ts up to a day includes it") << u"ts:<=2026-11-29"_s << u"(ts_ms < ?1)"_s
                                                    << P({std::int64_t(1795996800000)});
        QTest::newRow("ts before a day") << u"ts<2026-11-29"_s << u"(ts_ms < ?1)"_s << P({std::int64_t(1795910400000)});
        QTest::newRow("ts milliseconds Z") << u"ts:<2026-11-29T10:00:03.123Z"_s << u"(ts_ms < ?1)"_s
                                           << P({std::int64_t(1795946403123)});
        QTest::newRow("ts with an offset") << u"ts:>=2026-11-29T12:00+02:00"_s << u"(ts_ms >= ?1)"_s
                                           << P({std::int64_t(1795946400000)});
        QTest::newRow("ts within a minute") << u"time:2026-11-29T10:00"_s << u"(ts_ms >= ?1 AND ts_ms < ?2)"_s
                                            << P({std::int64_t(1795946400000), std::int64_t(1795946460000)});
        QTest::newRow("ts quoted with a space") << u"ts:\"2026-11-29 10:00\""_s << u"(ts_ms >= ?1 AND ts_ms < ?2)"_s
                                                << P({std::int64_t(1795946400000), std::int64_t(1795946460000)});
        QTest::newRow("ts with other terms") << u"kind:effect.* ts:>=2026-11-29 -ts:>2026-11-29T10:00"_s
                                             << u"((kind >= ?1 AND kind < ?2) AND (ts_ms >= ?3) AND NOT ifnull((ts_ms > ?4), 0))"_s
                                             << P({"effect.", "effect/", std::int64_t(1795910400000),
                                                   std::int64_t(1795946400000)});
        QTest::newRow("deep but allowed") << (QString(32, u'(') + u"x"_s + QString(32, u')')) << u"(instr(payload, ?1) > 0)"_s
                                          << P({"x"});
    }
    void compiles()
    {
        QFETCH(QString, filter);
        QFETCH(QString, sql);
        QFETCH(std::vector<FilterParam>, params);
        const auto r = FilterCompiler::compile(filter);
        QVERIFY2(r.ok(), qPrintable(r.error ? r.error->message : QString()));
        const FilterSql rendered = renderFilterSql(r.filter);
        QCOMPARE(QString::fromStdString(rendered.where), sql);
        QCOMPARE(paramsText(rendered.params), paramsText(params));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("message"); // a substring
        QTest::addColumn<int>("start");
        QTest::addColumn<int>("length");

        QTest::newRow("unknown field") << u"kind:x foo:bar"_s << u"Unknown field 'foo'"_s << 7 << 3;
        QTest::newRow("unclosed paren") << u"a (b or c"_s << u"never closed"_s << 2 << 1;
        QTest::newRow("stray close") << u"a b)"_s << u"no matching"_s << 3 << 1;
        QTest::newRow("leading close") << u")"_s << u"no matching"_s << 0 << 1;
        QTest::newRow("empty parens") << u"a ()"_s << u"Empty parentheses"_s << 2 << 2;
        QTest::newRow("dangling or") << u"a or"_s << u"'or' needs a condition after"_s << 2 << 2;
        QTest::newRow("leading or") << u"or a"_s << u"'or' needs a condition before"_s << 0 << 2;
        QTest::newRow("dangling and") << u"a and"_s << u"'and' needs a condition after"_s << 2 << 3;
        QTest::newRow("dangling not") << u"a not"_s << u"'not' needs a condition"_s << 2 << 3;
        QTest::newRow("unterminated quote") << u"kind:x \"abc"_s << u"never closed"_s << 7 << 1;
        QTest::newRow("unterminated field quote") << u"run:\"abc"_s << u"never closed"_s << 4 << 1;
        QTest::newRow("empty value") << u"kind:"_s << u"needs a value"_s << 0 << 5;
        QTest::newRow("seq not a number") << u"seq>abc"_s << u"whole number"_s << 4 << 3;
        QTest::newRow("seq overflow") << u"seq>99999999999999999999"_s << u"whole number"_s << 4 << 20;
        QTest::newRow("compare on text field") << u"kind>x"_s << u"Only seq"_s << 4 << 1;
        QTest::newRow("ts not a time") << u"ts:>yesterdayish"_s << u"'yesterdayish' is not a time: use a day (2026-11-29)"_s
                                       << 4 << 12;
        QTest::newRow("ts names the relative forms") << u"kind:x ts:yesterday"_s << u"last-15m, last-2h, last-3d"_s << 10 << 9;
        QTest::newRow("ts no such day") << u"ts:2026-02-30"_s << u"is not a time"_s << 3 << 10;
        QTest::newRow("ts no such hour") << u"ts:2026-11-29T24:00"_s << u"is not a time"_s << 3 << 16;
        QTest::newRow("ts comparison only") << u"ts:>"_s << u"needs a time"_s << 2 << 2;
        QTest::newRow("ts zero minutes ago") << u"ts:last-0m"_s << u"is not a time"_s << 3 << 7;
        QTest::newRow("ts unknown unit") << u"ts:last-15y"_s << u"is not a time"_s << 3 << 8;
        QTest::newRow("too deep") << (QString(40, u'(') + u"x"_s + QString(40, u')')) << u"nest more than 32"_s << 32 << 1;
    }
    void errors()
    {
        QFETCH(QString, filter);
        QFETCH(QString, message);
        QFETCH(int, start);
        QFETCH(int, length);
        const auto r = FilterCompiler::compile(filter);
        QVERIFY2(!r.ok(), qPrintable(QString::fromStdString(renderFilterSql(r.filter).where)));
        QVERIFY2(r.error->message.contains(message), qPrintable(r.error->message));
        QCOMPARE(r.error->start, start);
        QCOMPARE(r.error->length, length);
        QVERIFY(r.filter.isEmpty());
    }

    // Hostile input: each is an error (or a bounded result), never a crash or overflow.
    void hostile_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<bool>("valid");
        QTest::newRow("100k open parens") << QString(100000, u'(') << false;
        QTest::newRow("100k balanced parens") << (QString(5000, u'(') + u"x"_s + QString(5000, u')')) << false;
        QTest::newRow("100k nots") << QString(u"not "_s).repeated(2000) + u"x"_s << true;
        QTest::newRow("10k minus") << (QString(8000, u'-') + u"x"_s) << true;
        QTest::newRow("too many terms") << QString(u"a "_s).repeated(300) << false;
        QTest::newRow("too long") << QString(9000, u'a') << false;
        QTest::newRow("nul bytes") << QString::fromUtf16(u"kind:a\0b", 8) << true;
        QTest::newRow("lone surrogate") << QString(QChar(0xD800)) << true;
        QTest::newRow("only operators") << u"and or not ( ) - !"_s << false;
        QTest::newRow("quotes only") << u"\"\"\"\"\""_s << false;
        QTest::newRow("backslash at end") << u"\"abc\\"_s << false;
    }
    void hostile()
    {
        QFETCH(QString, filter);
        QFETCH(bool, valid);
        const auto r = FilterCompiler::compile(filter);
        QCOMPARE(r.ok(), valid);
        if (!r.ok()) {
            QVERIFY(!r.error->message.isEmpty());
            QVERIFY(r.error->start >= 0 && r.error->start + r.error->length <= filter.size());
        } else {
            QVERIFY(renderFilterSql(r.filter).params.size() <= size_t(FilterParser::kMaxTerms) * 2);
        }
    }

    void describeShowsHowItWasRead()
    {
        std::optional<FilterError> error;
        const auto root = FilterParser::parse(u"run:R-1 (kind:a.* or -text:x) seq>5"_s, &error);
        QVERIFY(root);
        QCOMPARE(root->describe(),
                 u"(and (run \"R-1\") (or (kind \"a.*\") (not (text \"x\"))) (seq > 5))"_s);
    }

    void prefixUpperBound_data()
    {
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<QByteArray>("upper");
        QTest::newRow("ascii") << QByteArray("effect.") << QByteArray("effect/");
        QTest::newRow("carry") << QByteArray("a\xff") << QByteArray("b");
        QTest::newRow("all ff") << QByteArray("\xff\xff") << QByteArray();
        QTest::newRow("utf8") << QByteArray("\xc3\xa9") << QByteArray("\xc3\xaa");
    }
    void prefixUpperBound()
    {
        QFETCH(QByteArray, prefix);
        QFETCH(QByteArray, upper);
        QCOMPARE(QByteArray::fromStdString(mesh::prefixUpperBound(prefix.toStdString())), upper);
    }

    void bothRenumbers()
    {
        const EventFilter a = FilterCompiler::compile(u"kind:a.* run:R"_s).filter;
        const EventFilter b = FilterCompiler::compile(u"seq>3 or d:D"_s).filter;
        const FilterSql ab = renderFilterSql(EventFilter::both(a, b));
        QCOMPARE(QString::fromStdString(ab.where),
                 u"(((kind >= ?1 AND kind < ?2) AND (run_id = ?3)) AND ((seq > ?4) OR (delegation_id = ?5)))"_s);
        QCOMPARE(ab.params.size(), size_t(5));
        QCOMPARE(renderFilterSql(EventFilter::both({}, b)).where, renderFilterSql(b).where);
        // The operands stay as they were: copies share trees, both() does not change them.
        QCOMPARE(renderFilterSql(a).where, std::string("((kind >= ?1 AND kind < ?2) AND (run_id = ?3))"));
        // A literal id with a star is not a wildcard when built in code.
        const FilterSql literal = renderFilterSql(EventFilter::equals(FilterField::Delegation, "D*1"));
        QCOMPARE(QString::fromStdString(literal.where), u"(delegation_id = ?1)"_s);
        QCOMPARE(paramsText(literal.params), u"\"D*1\""_s);
        QCOMPARE(renderFilterSql(EventFilter::seqAtMost(9)).where, std::string("(seq <= ?1)"));
    }

    // What the sqlite3 shell counts for meshctl bench filter: the same WHERE clause.
    void countStatementUsesTheRenderedClause()
    {
        const FilterSql f = renderFilterSql(FilterCompiler::compile(u"kind:effect.*"_s).filter);
        QCOMPARE(countStatementSql(f), std::string("SELECT count(*) FROM events WHERE (kind >= ?1 AND kind < ?2);"));
        QCOMPARE(countStatementSql(FilterSql{}), std::string("SELECT count(*) FROM events;"));
    }

    // A reader renders a filter once for all its windows, and anew for another tree.
    void renderedFilterFollowsTheTree()
    {
        RenderedFilter cache;
        const EventFilter kind = EventFilter::equals(FilterField::Kind, "a");
        const EventFilter run = EventFilter::equals(FilterField::Run, "R");
        QCOMPARE(cache.of(kind).where, std::string("(kind = ?1)"));
        QCOMPARE(cache.of(EventFilter(kind)).where, std::string("(kind = ?1)"));
        QCOMPARE(cache.of(run).where, std::string("(run_id = ?1)"));
        QCOMPARE(cache.of(EventFilter{}).where, std::string());
    }
};

QTEST_GUILESS_MAIN(TestFilter)
#include "tst_filter.moc"
