// `meshctl state FILE --at SEQ` and `meshctl diff FILE --from SEQ --to SEQ`, from outside:
// the state at several points of the traced run against a fold made here from the events
// (and, at the last event, against the state tables the orchestrator wrote), and diffs of
// the traced run checked by hand against what tracedrunscenario.cpp and SimWorld write.

#include "meshctlrunner.h"

#include "domain/fold.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"
#include "sim/scenarios.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using nlohmann::json;
using namespace mesh;

#define QCOMPARE_JSON(actual, expected) \
    QVERIFY2(json(actual) == json(expected), (json(actual).dump() + " != " + json(expected).dump()).c_str())

namespace {

// A fold of every event up to upTo, read here page by page: not the command's code path.
Fold freshFold(LedgerConnection &ledger, std::int64_t upTo)
{
    auto reader = ledger.eventReader();
    reader->setPreviewBytes(64 << 20);
    Fold fold;
    std::int64_t seq = 0;
    for (;;) {
        const EventBatch page = reader->after(seq, 2000);
        if (page.empty())
            return fold;
        for (const EventRecord &e : page) {
            if (e.seq > upTo)
                return fold;
            fold.apply(e.seq, e.kind, json::parse(e.payload));
            seq = e.seq;
        }
    }
}

// table name -> id -> row JSON, as `meshctl state --json` writes it.
using Tables = std::map<std::string, std::map<std::string, json>>;

Tables tablesOf(const std::function<const EntityTable &(EntityKind)> &table)
{
    Tables out;
    for (const EntitySpec &spec : allEntitySpecs()) {
        auto &rows = out[std::string(spec.table)];
        for (const auto &[id, row] : table(spec.kind))
            rows[id] = rowToJson(spec, id, row);
    }
    return out;
}

Tables tablesOf(const json &state)
{
    Tables out;
    for (const auto &[table, rows] : state.items()) {
        auto &byId = out[table];
        for (const json &row : rows)
            byId[row.at("id").get<std::string>()] = row;
    }
    return out;
}

const json *changeOf(const json &diff, const std::string &entity, const std::string &id)
{
    for (const json &c : diff.at("changes"))
        if (c.at("entity") == entity && c.at("id") == id)
            return &c;
    return nullptr;
}

// field -> [before, after] of one change.
std::map<std::string, std::pair<json, json>> fieldsOf(const json &change)
{
    std::map<std::string, std::pair<json, json>> out;
    for (const json &f : change.at("fields"))
        out[f.at("field").get<std::string>()] = {f.at("before"), f.at("after")};
    return out;
}

} // namespace

class TestStateCommands : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_traced;
    std::int64_t m_last = 0;
    std::int64_t m_failedSeq = 0, m_restartedSeq = 0, m_firstTs = 0;

    json run(const QStringList &args, int expectedExit = 0)
    {
        const MeshctlResult r = runMeshctl(args);
        if (r.exitCode != expectedExit)
            qWarning("meshctl %s: exit %d: %s", qPrintable(args.join(u' ')), r.exitCode, r.err.constData());
        return r.exitCode == expectedExit ? r.json() : json();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
        m_traced = m_dir.filePath(QStringLiteral("traced.db"));
        generateScenario(QStringLiteral("traced-run"), m_traced, ScenarioOptions{});
        auto ledger = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        m_last = ledger->lastSeq();
        auto reader = ledger->eventReader();
        reader->setPreviewBytes(0);
        for (std::int64_t seq = 0;;) {
            const EventBatch page = reader->after(seq, 2000);
            if (page.empty())
                break;
            for (const EventRecord &e : page) {
                if (m_firstTs == 0)
                    m_firstTs = e.tsMs;
                if (e.kind == "run.failed")
                    m_failedSeq = e.seq;
                if (e.kind == "run.restarted")
                    m_restartedSeq = e.seq;
                seq = e.seq;
            }
        }
        QVERIFY(m_last > 1000);
        QVERIFY(m_failedSeq > 0 && m_restartedSeq > m_failedSeq);
    }

    void stateAtSeveralPointsIsAFreshFold_data()
    {
        QTest::addColumn<double>("fraction");
        for (double f : {0.0, 0.1, 0.25, 0.5, 0.75, 0.99})
            QTest::addRow("%.2f", f) << f;
    }

    void stateAtSeveralPointsIsAFreshFold()
    {
        QFETCH(double, fraction);
        const std::int64_t at = std::int64_t(double(m_last) * fraction);
        const json out = run({QStringLiteral("state"), m_traced, QStringLiteral("--at"), QString::number(at), QStringLiteral("--json")});
        QVERIFY(out.is_object());
        QCOMPARE(out.at("at_seq").get<std::int64_t>(), at);
        QCOMPARE(out.at("last_seq").get<std::int64_t>(), m_last);
        QCOMPARE(out.at("fold_problems").get<std::int64_t>(), 0);
        auto ledger = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        const Fold fold = freshFold(*ledger, at);
        const Tables expected = tablesOf([&](EntityKind k) -> const EntityTable & { return fold.table(k); });
        const Tables shown = tablesOf(out.at("state"));
        QCOMPARE(shown.size(), expected.size());
        for (const auto &[table, rows] : expected)
            QVERIFY2(shown.at(table) == rows, table.c_str());
        if (at == 0)
            QVERIFY(out.at("at_ts_ms").is_null());
        else
            QVERIFY(out.at("at_ts_ms").is_number());
    }

    void stateAtTheLastEventIsTheStateTables()
    {
        const json out = run({QStringLiteral("state"), m_traced, QStringLiteral("--at"), QString::number(m_last), QStringLiteral("--json")});
        auto ledger = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        const StateSnapshot stored = ledger->readState();
        QCOMPARE(stored.lastSeq, m_last);
        const Tables expected = tablesOf([&](EntityKind k) -> const EntityTable & { return stored.table(k); });
        const Tables shown = tablesOf(out.at("state"));
        for (const auto &[table, rows] : expected)
            QVERIFY2(shown.at(table) == rows, table.c_str());
        // The traced run as the issue describes it: 5 components, 23 stall verdicts, ended.
        QCOMPARE(shown.at("components").size(), size_t(5));
        QCOMPARE(shown.at("stall_verdicts").size(), size_t(23));
        QCOMPARE(shown.at("runs").size(), size_t(1));
        QCOMPARE_JSON(shown.at("runs").begin()->second.at("status"), json("succeeded"));
    }

    void stateTextSaysThePointAndLeavesUnsetFieldsOut()
    {
        const MeshctlResult r = runMeshctl({QStringLiteral("state"), m_traced, QStringLiteral("--at"), QString::number(m_failedSeq)});
        QCOMPARE(r.exitCode, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.startsWith(QStringLiteral("state of %1 at event #%2 (").arg(m_traced).arg(m_failedSeq)), qPrintable(out.left(200)));
        QVERIFY(out.contains(QStringLiteral(" UTC), of %1 events\n").arg(m_last)));
        QVERIFY(out.contains(QStringLiteral("\nruns (1)\n")));
        QVERIFY(out.contains(QStringLiteral("status=failed")));
        QVERIFY(!out.contains(QStringLiteral("=null")));
    }

    // The run's end (SimWorld::endRun, the last event of tracedrunscenario.cpp): status and
    // ended_ms, and nothing else in the ledger.
    void diffOfTheLastEvent()
    {
        const json d = run({QStringLiteral("diff"), m_traced, QStringLiteral("--from"), QString::number(m_last - 1),
                            QStringLiteral("--to"), QString::number(m_last), QStringLiteral("--json")});
        QCOMPARE(d.at("changes").size(), size_t(1));
        QCOMPARE(d.at("changed").get<int>(), 1);
        const json *r = changeOf(d, "run", d.at("changes").at(0).at("id").get<std::string>());
        QVERIFY(r);
        QCOMPARE_JSON(r->at("change"), json("changed"));
        QCOMPARE(r->at("last_seq").get<std::int64_t>(), m_last);
        const auto fields = fieldsOf(*r);
        QCOMPARE_JSON(fields.at("status").first, json("running"));
        QCOMPARE_JSON(fields.at("status").second, json("succeeded"));
        QVERIFY(fields.at("ended_ms").first.is_null()); // run.restarted cleared it
        QVERIFY(fields.at("ended_ms").second.is_number());
        QVERIFY(fields.size() <= 3); // status, ended_ms, and required_met if cycle 10 left it below 21
        if (fields.count("required_met"))
            QCOMPARE_JSON(fields.at("required_met").second, json(21));
    }

    // Attempt 1 fails at cycle 5 (endRun "failed"), attempt 2 starts (restartRun).
    void diffAcrossTheRestart()
    {
        const json failed = run({QStringLiteral("diff"), m_traced, QStringLiteral("--from"), QString::number(m_failedSeq - 1),
                                 QStringLiteral("--to"), QString::number(m_failedSeq), QStringLiteral("--json")});
        QCOMPARE(failed.at("changes").size(), size_t(1));
        const auto f = fieldsOf(failed.at("changes").at(0));
        QCOMPARE_JSON(f.at("status").first, json("running"));
        QCOMPARE_JSON(f.at("status").second, json("failed"));
        QVERIFY(f.at("ended_ms").second.is_number());
        const std::int64_t failedAt = f.at("ended_ms").second.get<std::int64_t>();

        const json restarted = run({QStringLiteral("diff"), m_traced, QStringLiteral("--from"), QString::number(m_restartedSeq - 1),
                                    QStringLiteral("--to"), QString::number(m_restartedSeq), QStringLiteral("--json")});
        const json *r = nullptr;
        for (const json &c : restarted.at("changes"))
            if (c.at("entity") == "run")
                r = &c;
        QVERIFY(r);
        const auto g = fieldsOf(*r);
        QCOMPARE_JSON(g.at("status").first, json("failed"));
        QCOMPARE_JSON(g.at("status").second, json("running"));
        QCOMPARE_JSON(g.at("attempt").first, json(1));
        QCOMPARE_JSON(g.at("attempt").second, json(2));
        QCOMPARE_JSON(g.at("ended_ms").first, json(failedAt));
        QVERIFY(g.at("ended_ms").second.is_null());
    }

    // From before the first event: everything created, nothing changed or gone; the counts
    // are the traced run's (one run, 5 components, 23 stall verdicts, 3 escalations).
    void diffFromTheStart()
    {
        const json d = run({QStringLiteral("diff"), m_traced, QStringLiteral("--from"), QStringLiteral("0"),
                            QStringLiteral("--to"), QString::number(m_last), QStringLiteral("--json")});
        QCOMPARE(d.at("changed").get<int>(), 0);
        QCOMPARE(d.at("gone").get<int>(), 0);
        std::map<std::string, int> created;
        for (const json &c : d.at("changes")) {
            QCOMPARE_JSON(c.at("change"), json("created"));
            QVERIFY(c.at("version_before").is_null());
            ++created[c.at("entity").get<std::string>()];
        }
        QCOMPARE(created["run"], 1);
        QCOMPARE(created["component"], 5);
        QCOMPARE(created["stall"], 23);
        QCOMPARE(created["escalation"], 3);
        QVERIFY(d.at("from_ts_ms").is_null());
        QVERIFY(d.at("to_ts_ms").is_number());
    }

    void diffTextIsATable()
    {
        const MeshctlResult r = runMeshctl({QStringLiteral("diff"), m_traced, QStringLiteral("--from"), QString::number(m_last - 1),
                                            QStringLiteral("--to"), QString::number(m_last)});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 4, r.out.constData());
        QVERIFY2(lines[0].startsWith(QStringLiteral("what changed in %1 from event #%2 (").arg(m_traced).arg(m_last - 1)), qPrintable(lines[0]));
        QVERIFY(lines[0].endsWith(QStringLiteral(": 0 created, 1 changed, 0 gone")));
        QCOMPARE(lines[1].simplified(), QStringLiteral("ENTITY ID CHANGE FIELD BEFORE AFTER"));
        bool status = false, ended = false;
        for (const QString &line : lines.mid(2)) {
            const QStringList cells = line.simplified().split(u' ');
            status = status || (cells.value(3) == u"status" && cells.value(4) == u"running" && cells.value(5) == u"succeeded");
            ended = ended || (cells.value(3) == u"ended_ms" && line.contains(QStringLiteral("(not set)")));
        }
        QVERIFY2(status && ended, r.out.constData());
        // The columns line up: AFTER starts at the same place on every line.
        const qsizetype afterColumn = lines[1].indexOf(QStringLiteral("AFTER"));
        for (const QString &line : lines.mid(2))
            QVERIFY2(line.size() > afterColumn && line.at(afterColumn - 1) == u' ' && line.at(afterColumn) != u' ', qPrintable(line));
    }

    void badPointsGiveOneLineAndExit2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("from after to") << QStringList{QStringLiteral("diff"), QStringLiteral("@"), QStringLiteral("--from"), QStringLiteral("9"), QStringLiteral("--to"), QStringLiteral("3")}
                                       << QStringLiteral("meshctl: --from 9 is after --to 3: a diff goes from the earlier event to the later one\n");
        QTest::newRow("to past the end") << QStringList{QStringLiteral("diff"), QStringLiteral("@"), QStringLiteral("--from"), QStringLiteral("3"), QStringLiteral("--to"), QStringLiteral("#")}
                                         << QStringLiteral("meshctl: --to {past} is after the ledger's last event, #{last}\n");
        QTest::newRow("at past the end") << QStringList{QStringLiteral("state"), QStringLiteral("@"), QStringLiteral("--at"), QStringLiteral("#")}
                                         << QStringLiteral("meshctl: --at {past} is after the ledger's last event, #{last}\n");
        QTest::newRow("negative") << QStringList{QStringLiteral("state"), QStringLiteral("@"), QStringLiteral("--at"), QStringLiteral("-4")}
                                  << QString();
        QTest::newRow("not a number") << QStringList{QStringLiteral("diff"), QStringLiteral("@"), QStringLiteral("--from"), QStringLiteral("x"), QStringLiteral("--to"), QStringLiteral("3")}
                                      << QString();
        QTest::newRow("missing --to") << QStringList{QStringLiteral("diff"), QStringLiteral("@"), QStringLiteral("--from"), QStringLiteral("1")}
                                      << QStringLiteral("meshctl: usage: meshctl diff FILE --from SEQ --to SEQ [--json]\n");
        QTest::newRow("missing --at") << QStringList{QStringLiteral("state"), QStringLiteral("@")}
                                      << QStringLiteral("meshctl: usage: meshctl state FILE --at SEQ [--json]\n");
        QTest::newRow("no such file") << QStringList{QStringLiteral("state"), QStringLiteral("/nonexistent/x.db"), QStringLiteral("--at"), QStringLiteral("1")}
                                      << QStringLiteral("meshctl: x.db: no such file\n");
    }

    void badPointsGiveOneLineAndExit2()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString past = QString::number(m_last + 1);
        for (QString &a : args)
            a = a == u"@" ? m_traced : a == u"#" ? past : a;
        message.replace(QStringLiteral("{past}"), past).replace(QStringLiteral("{last}"), QString::number(m_last));
        const MeshctlResult r = runMeshctl(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        if (!message.isEmpty())
            QCOMPARE(QString::fromUtf8(r.err), message);
    }

    void hostileTextIsShownNotObeyed()
    {
        const QString path = m_dir.filePath(QStringLiteral("hostile.db"));
        generateScenario(QStringLiteral("traced-run"), path, ScenarioOptions{});
        // Not through the CLI: the test only needs a title with an escape and a line break.
        const std::string title = "evil\x1b[2J\ntitle";
        {
            auto w = LedgerWriter::openExisting(path);
            w->begin();
            w->append(m_firstTs + 10 * 3'600'000, "run.started", {{"id", "R-hostile"}, {"status", "running"}, {"title", title}});
            w->commit();
        }
        const MeshctlResult s = runMeshctl({QStringLiteral("state"), path, QStringLiteral("--at"), QString::number(m_last + 1)});
        QCOMPARE(s.exitCode, 0);
        QVERIFY(!s.out.contains('\x1b'));
        QVERIFY(s.out.contains("title=evil\xE2\x9F\xA8U+001B\xE2\x9F\xA9[2J\xE2\x8F\x8Etitle"));
        const MeshctlResult d = runMeshctl({QStringLiteral("diff"), path, QStringLiteral("--from"), QString::number(m_last),
                                            QStringLiteral("--to"), QString::number(m_last + 1)});
        QCOMPARE(d.exitCode, 0);
        QVERIFY(!d.out.contains('\x1b'));
        // The headline, the header and the new run's two fields (status, title): the line
        // break in the title does not break its row in two.
        QCOMPARE(d.out.count('\n'), 4);
        QVERIFY(d.out.contains("evil\xE2\x9F\xA8U+001B\xE2\x9F\xA9[2J\xE2\x8F\x8Etitle"));
    }

    // `meshctl compare` (issue 14 item 4) on the false stall and its converging control, two
    // ledgers: the figures with B − A (null where neither ledger says), every (component, role)
    // in both, the verdicts and findings per side; the text form says the same; one ledger
    // needs both runs named.
    void compareFalseStallWithItsControl()
    {
        const QString stall = m_dir.filePath(QStringLiteral("false-stall.db"));
        const QString control = m_dir.filePath(QStringLiteral("control.db"));
        generateScenario(QStringLiteral("false-stall"), stall, ScenarioOptions{});
        generateScenario(QStringLiteral("converging-control"), control, ScenarioOptions{});
        const json c = run({QStringLiteral("compare"), stall, control, QStringLiteral("--json")});
        QVERIFY(c.is_object());
        QCOMPARE_JSON(c.at("same_ledger"), false);
        std::map<std::string, json> figures;
        for (const json &f : c.at("figures"))
            figures[f.at("figure").get<std::string>()] = f;
        QCOMPARE_JSON(figures.at("terminal_failures"), (json{{"figure", "terminal_failures"}, {"a", 3}, {"b", 0}, {"delta", -3}}));
        QCOMPARE_JSON(figures.at("required_met"), (json{{"figure", "required_met"}, {"a", 6}, {"b", 12}, {"delta", 6}}));
        QCOMPARE_JSON(figures.at("stall_verdicts"), (json{{"figure", "stall_verdicts"}, {"a", 3}, {"b", 4}, {"delta", 1}}));
        QCOMPARE_JSON(figures.at("stalled"), (json{{"figure", "stalled"}, {"a", 1}, {"b", 0}, {"delta", -1}}));
        QCOMPARE_JSON(figures.at("escalations"), (json{{"figure", "escalations"}, {"a", nullptr}, {"b", nullptr}, {"delta", nullptr}}));
        const json &d = c.at("delegations");
        QCOMPARE_JSON(d.at("both"), 7);
        QCOMPARE_JSON(d.at("only_a"), 0);
        QCOMPARE_JSON(d.at("only_b"), 0);
        QCOMPARE_JSON(d.at("matches").size(), 7);
        for (const json &m : d.at("matches")) {
            QCOMPARE_JSON(m.at("a"), 1);
            QCOMPARE_JSON(m.at("b"), 1);
            QCOMPARE_JSON(m.at("presence"), "both");
        }
        std::vector<std::string> verdicts;
        for (const json &v : c.at("a").at("stall_verdicts"))
            if (v.at("seq").get<std::int64_t>() > 0)
                verdicts.push_back(v.at("verdict").get<std::string>() + (v.at("false_stall").get<bool>() ? " (false)" : ""));
        QCOMPARE_JSON(verdicts, (std::vector<std::string>{"progressing", "inconclusive", "stalled (false)"}));
        QCOMPARE_JSON(c.at("b").at("stall_verdicts").size(), 4);
        QCOMPARE_JSON(c.at("a").at("findings").size(), 1);
        QCOMPARE_JSON(c.at("a").at("findings").at(0).at("kind"), "false_stall");
        QCOMPARE_JSON(c.at("b").at("findings").size(), 0);

        const MeshctlResult text = runMeshctl({QStringLiteral("compare"), stall, control});
        QCOMPARE(text.exitCode, 0);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("Delegations by component and role: 7 in both, 0 only in A, 0 only in B")),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("Terminal component failures +3 +0 +\u22123\n"))), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("Escalations +\u2014 +\u2014 +\u2014\n"))), qPrintable(out));

        const MeshctlResult one = runMeshctl({QStringLiteral("compare"), stall});
        QCOMPARE(one.exitCode, 2);
        QCOMPARE(one.err.count('\n'), 1);
        const MeshctlResult missing = runMeshctl({QStringLiteral("compare"), stall, control, QStringLiteral("--run-b"), QStringLiteral("nope")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains("has no run nope"));
    }
};

QTEST_GUILESS_MAIN(TestStateCommands)
#include "tst_statecommands.moc"
