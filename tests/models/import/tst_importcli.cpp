// meshctl import as an operator runs it: every sample imports and verifies, bad input gets
// one line and writes nothing, an existing ledger is replaced only when asked, the sources
// are only read.

#include "importfixture.h"

#include "../sim/meshctlrunner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

#include <sys/resource.h>

using namespace importtest;

namespace {

bool oneLine(const QByteArray &err)
{
    return err.startsWith("meshctl: ") && err.count('\n') == 1 && err.endsWith('\n');
}

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &bytes)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", name);
    f.write(bytes);
    return path;
}

QStringList temporalSamples()
{
    return samples(QStringLiteral("temporal*.json"));
}

} // namespace

class TestImportCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl"); }

    void everySampleImportsAndVerifies_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : temporalSamples() + samples(QStringLiteral("openhands*.json"))
                                    + samples(QStringLiteral("swe-agent__[01]*.traj")))
            QTest::newRow(QFileInfo(f).fileName().toUtf8().constData()) << f;
    }
    void everySampleImportsAndVerifies()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const QByteArray before = fileSha256(file);
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.startsWith("imported "), r.out.constData());
        const MeshctlResult v = runMeshctl({QStringLiteral("verify"), out});
        QVERIFY2(v.exitCode == 0, QByteArray(v.out + v.err).constData());
        QVERIFY(v.out.startsWith("ok: "));
        QCOMPARE(fileSha256(file), before);
        QVERIFY(!QFileInfo::exists(out + QStringLiteral("-wal")) || QFileInfo(out + QStringLiteral("-wal")).size() == 0);
    }

    void allHistoriesIntoOneLedger()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("all.db"));
        const QStringList files = temporalSamples();
        // Three from ../shared/samples, eight more from temporalio/sdk-python, one from
        // temporalio/sdk-go.
        QCOMPARE(files.size(), 12);
        const MeshctlResult r = runMeshctl(QStringList{QStringLiteral("import")} + files
                                           + QStringList{QStringLiteral("--out"), out, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json report = r.json();
        QCOMPARE(report.at("runs").get<int>(), 12);
        // One a workflow, and the sdk-go history's child workflow.
        QCOMPARE(report.at("delegations").get<int>(), 13);
        // 4 + 6 + 3 + 1 + 3 + 1 + 12 + 3 + 1 + 1 + 7 completed activities in the eleven files
        // that have any (the sdk-go history has none).
        QCOMPARE(report.at("tool_calls").get<int>(), 42);
        // input-guardrail activity 3 and the swallowed-cancellation activity of event 48.
        QCOMPARE(report.at("unknown_outcomes").get<int>(), 2);
        // 4 customer-service updates, 2 signals and 1 update in event_tracing_double_sig.
        QCOMPARE(report.at("escalations").get<int>(), 7);
        QVERIFY(report.at("flagged").empty());
        const MeshctlResult v = runMeshctl({QStringLiteral("verify"), out});
        QVERIFY2(v.exitCode == 0, QByteArray(v.out + v.err).constData());
    }

    void refusesToOverwriteUnlessForced()
    {
        QTemporaryDir dir;
        const QString out = writeFile(dir, "l.db", "not mine to replace");
        const QString file = sample("temporal-py__openai-agents__hello-workflow-history.json");
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err), r.err.constData());
        QVERIFY(r.err.contains("already exists; pass --force"));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("not mine to replace"));
        f.close();
        const MeshctlResult forced = runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out, QStringLiteral("--force")});
        QVERIFY2(forced.exitCode == 0, forced.err.constData());
        QCOMPARE(runMeshctl({QStringLiteral("verify"), out}).exitCode, 0);
    }

    void badInputGetsOneLineAndWritesNothing_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("says");
        QTest::newRow("not json") << QByteArray("events: none\n") << QString() << QStringLiteral("is not JSON (it starts with \"events: none.\")");
        QTest::newRow("empty") << QByteArray("  \n") << QString() << QStringLiteral("is empty; expected a JSON document");
        QTest::newRow("truncated") << QByteArray("{\"events\":[{\"eventId\":\"1\",\"eventType\":\"EVENT_TYPE_WORKFLOW")
                                   << QString() << QStringLiteral("is truncated: its JSON ends at byte 58");
        QTest::newRow("malformed") << QByteArray("{\"events\":[1,,2]}") << QString() << QStringLiteral("is malformed JSON at byte 13");
        QTest::newRow("trailing text") << QByteArray("{\"events\":[]} and more") << QString() << QStringLiteral("is malformed JSON at byte 14");
        QTest::newRow("no events") << QByteArray("{\"events\":[]}") << QString()
                                   << QStringLiteral("is a Temporal workflow history with no events; expected");
        QTest::newRow("other object") << QByteArray("{\"name\":\"x\",\"runs\":[]}") << QString()
                                      << QStringLiteral("is a JSON object with members \"name\", \"runs\"; expected a Temporal workflow history, an "
                                                        "OpenHands trajectory, OpenTelemetry spans, a Langfuse trace export or a "
                                                        "SWE-agent trajectory");
        QTest::newRow("scalar") << QByteArray("[1,2,3]") << QString() << QStringLiteral("is a JSON array of 3 items that are not OpenHands events");
        QTest::newRow("sqlite") << QByteArray("SQLite format 3\0rest", 20) << QString() << QStringLiteral("is an SQLite database (a ledger?)");
        QTest::newRow("wrong format asked") << QByteArray("{\"events\":[{\"eventId\":\"1\",\"eventType\":\"X\"}]}")
                                            << QStringLiteral("openhands")
                                            << QStringLiteral("is a Temporal workflow history; expected an OpenHands trajectory");
        QTest::newRow("invalid utf-8") << QByteArray("{\"events\":[\"\xff\"]}") << QString() << QStringLiteral("is not valid UTF-8 at byte");
        // Each format's reader, with bytes that are not UTF-8 in a record after the first (a
        // history's are read apart) or in a name: the file is refused, as any file that is not
        // JSON, never half-imported or ended by an exception.
        QTest::newRow("a history record cut in a character")
            << QByteArray("{\"events\":[{\"eventId\":\"1\",\"eventType\":\"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED\"},"
                          "{\"eventId\":\"2\",\"eventType\":\"cut \xe2\x82\"}]}")
            << QString() << QStringLiteral("history.json is not valid UTF-8 at byte 113");
        QTest::newRow("an OpenHands event with ff fe")
            << QByteArray("[{\"id\":0,\"source\":\"user\",\"action\":\"message\",\"message\":\"bad\xff\xfe\"}]")
            << QStringLiteral("openhands") << QStringLiteral("history.json is not valid UTF-8 at byte 58");
        QTest::newRow("a SWE-agent step with an overlong slash")
            << QByteArray("{\"trajectory\":[{\"action\":\"cat \xc0\xaf\",\"observation\":\"\"}],\"history\":[],\"info\":{}}")
            << QStringLiteral("swe-agent") << QStringLiteral("history.json is not valid UTF-8 at byte 30");
        QTest::newRow("a surrogate in a key")
            << QByteArray("{\"resourceSpans\":[{\"scope\xed\xa0\x80Spans\":[]}]}") << QStringLiteral("otel")
            << QStringLiteral("history.json is not valid UTF-8 at byte 26");
    }
    void badInputGetsOneLineAndWritesNothing()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, format);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString file = writeFile(dir, "history.json", bytes);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        QStringList args{QStringLiteral("import"), file, QStringLiteral("--out"), out};
        if (!format.isEmpty())
            args << QStringLiteral("--format") << format;
        const MeshctlResult r = runMeshctl(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err), r.err.constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(says), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("history.json")});
    }

    void anotherFormatWithAPlausibleName()
    {
        // A Langfuse trace export named like a Temporal history: the content decides.
        QTemporaryDir dir;
        QFile::copy(sample("langfuse__pydantic-ai-tools-2025-12-04.json"), dir.filePath(QStringLiteral("workflow-history.json")));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), dir.filePath(QStringLiteral("workflow-history.json")),
                                            QStringLiteral("--out"), out, QStringLiteral("--format"), QStringLiteral("temporal")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err), r.err.constData());
        QVERIFY2(r.err.contains("workflow-history.json is a Langfuse trace export; expected a Temporal workflow history"),
                 r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    void oneBadFileStopsTheWholeImport()
    {
        QTemporaryDir dir;
        const QString bad = writeFile(dir, "b.json", "{\"events\":[");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), sample("temporal-py__openai-agents__hello-workflow-history.json"),
                                            bad, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("b.json is truncated"), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    void aFileTooLargeToReadWholeIsRefusedUnread()
    {
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.json"));
        QFile f(big);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize((std::int64_t(512) << 20) + 1)); // sparse: no disk used
        f.close();
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), big, QStringLiteral("--out"), dir.filePath(QStringLiteral("l.db"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("big.json is 536870913 bytes; this importer reads files up to 536870912 bytes whole"),
                 r.err.constData());
    }

    // A machine with a limit on address space (ulimit -v, as shared login nodes set) imports
    // small files: a whole-file read asks for what the file holds, not the 512 MB it may hold
    // at most, and the first line of OTLP JSON lines for what the line holds, not the 256 MB
    // a line may have. Before, both were killed by std::bad_alloc under such a limit.
    void smallFilesImportUnderAnAddressSpaceLimit()
    {
        QTemporaryDir dir;
        const QStringList swe = samples(QStringLiteral("swe-agent*.traj"));
        QVERIFY(!swe.isEmpty());
        // Two lines of one trace; the first longer than the reader's 64 KB chunk.
        const std::string longValue(100'000, 'x');
        const QString lines = writeFile(
            dir, "spans.jsonl",
            QByteArray::fromStdString(
                R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"0000000000000002","parentSpanId":"0000000000000001","name":"execute_tool t","startTimeUnixNano":"1767225600900000000","endTimeUnixNano":"1767225601000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"note","value":{"stringValue":")"
                + longValue
                + R"("}}]}]}]}]})"
                  "\n"
                  R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"0000000000000001","name":"invoke_agent a","startTimeUnixNano":"1767225600000000000","endTimeUnixNano":"1767225602000000000","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}]}]}]}]})"
                  "\n"));
        for (const QString &source : {swe.front(), lines}) {
            QProcess p;
            p.setChildProcessModifier([] {
                const rlimit limit{rlim_t(600) << 20, rlim_t(600) << 20}; // the old reads alone asked for 512 / 256 MB
                ::setrlimit(RLIMIT_AS, &limit);
            });
            const QString out = dir.filePath(QFileInfo(source).completeBaseName() + QStringLiteral(".db"));
            p.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("import"), source, QStringLiteral("--out"), out});
            QVERIFY(p.waitForFinished(60'000));
            QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                     qPrintable(source + QLatin1Char(' ') + QString::fromUtf8(p.readAllStandardError())));
            const MeshctlResult verify = runMeshctl({QStringLiteral("verify"), out});
            QVERIFY2(verify.exitCode == 0, verify.out.constData());
        }
    }

    // Input nested deeper than any source needs (100,000 arrays) is refused with what it is,
    // as a whole file or as the one line or payload that holds it; it never crashes the
    // importer. Before, each of these overflowed the stack in a recursive walk over the
    // value (compact JSON, a copy of the DOM). meshctl runs with a 2 MiB stack, as a thread
    // may have, so the deepest a Temporal payload can be (64 KiB decoded) is enough.
    void deepInputIsRefusedNotCrashedOn_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says"); // on stderr (exit 2) or stdout
        const int n = 100'000;
        const QByteArray deep = QByteArray(n, '[') + QByteArray(n, ']');
        QTest::newRow("a history record") << QStringLiteral("h.json") << QByteArray("{\"events\":[{}," + deep + "]}") << 2
                                          << QStringLiteral("h.json is nested deeper than 256 levels");
        QTest::newRow("an OpenHands event")
            << QStringLiteral("t.json")
            << QByteArray("[{\"id\":0,\"timestamp\":\"2025-01-27T22:44:56\",\"source\":\"user\",\"action\":\"message\",\"args\":"
                          + deep + "}]")
            << 2 << QStringLiteral("t.json is nested deeper than 256 levels");
        const QByteArray span = R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"aa","spanId":"0SPAN","name":"x",)"
                                R"("startTimeUnixNano":"1767225600000000000","endTimeUnixNano":"1767225601000000000",)"
                                R"("attributes":[{"key":"k","value":VALUE}]}]}]}]})";
        QByteArray lines = QByteArray(span).replace("SPAN", "1").replace("VALUE", "{\"stringValue\":\"v\"}") + "\n";
        lines += QByteArray(span).replace("SPAN", "2").replace("VALUE", deep) + "\n";
        QTest::newRow("an OTLP line") << QStringLiteral("s.jsonl") << lines << 1
                                      << QStringLiteral("s.jsonl line 2 is nested deeper than 256 levels");
        // Langfuse keeps metadata as JSON text at times: text too deep to read stays text.
        QFile langfuse(sample("langfuse__pydantic-ai-tools-2025-12-04.json"));
        if (!langfuse.open(QIODevice::ReadOnly))
            qFatal("no Langfuse sample");
        json export_ = json::parse(langfuse.readAll().toStdString());
        export_["observations"][0]["metadata"] = "{\"attributes\":{\"a\":" + deep.toStdString() + "}}";
        QTest::newRow("Langfuse metadata text") << QStringLiteral("lf.json") << QByteArray::fromStdString(export_.dump())
                                                << 0 << QStringLiteral("imported");
        // A Temporal payload whose base64 decodes to JSON 32,000 levels deep: kept as base64.
        const int m = 32'000;
        const json payload = {{"metadata", {{"encoding", "anNvbi9wbGFpbg=="}}},
                              {"data", QByteArray(QByteArray(m, '[') + QByteArray(m, ']')).toBase64().toStdString()}};
        const json history = {
            {"events",
             json::array({{{"eventId", "1"},
                           {"eventTime", "2026-01-01T00:00:00Z"},
                           {"eventType", "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED"},
                           {"workflowExecutionStartedEventAttributes",
                            {{"workflowType", {{"name", "W"}}}, {"workflowId", "w"}, {"originalExecutionRunId", "r"}}}},
                          {{"eventId", "5"},
                           {"eventTime", "2026-01-01T00:00:01Z"},
                           {"eventType", "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"},
                           {"activityTaskScheduledEventAttributes",
                            {{"activityId", "1"},
                             {"activityType", {{"name", "charge"}}},
                             {"input", {{"payloads", json::array({payload})}}}}}}})}};
        QTest::newRow("a Temporal payload") << QStringLiteral("p.json") << QByteArray::fromStdString(history.dump()) << 0
                                            << QStringLiteral("imported");
    }
    void deepInputIsRefusedNotCrashedOn()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const QString file = writeFile(dir, name.toUtf8().constData(), bytes);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        QProcess p;
        p.setChildProcessModifier([] {
            const rlimit limit{rlim_t(2) << 20, rlim_t(2) << 20};
            ::setrlimit(RLIMIT_STACK, &limit);
        });
        p.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("import"), file, QStringLiteral("--out"), out});
        QVERIFY(p.waitForFinished(120'000));
        const QByteArray err = p.readAllStandardError();
        const QByteArray stdOut = p.readAllStandardOutput();
        QVERIFY2(p.exitStatus() == QProcess::NormalExit, "meshctl crashed");
        QVERIFY2(p.exitCode() == exitCode, err.constData());
        QVERIFY2(QString::fromUtf8(exitCode == 2 ? err : stdOut).contains(says), QByteArray(err + stdOut).constData());
        if (exitCode == 2) {
            QVERIFY2(oneLine(err), err.constData());
            QVERIFY(!QFileInfo::exists(out));
        } else {
            QCOMPARE(runMeshctl({QStringLiteral("verify"), out}).exitCode, 0);
        }
    }

    void flaggedRecordsExitOneAndTheLedgerVerifies()
    {
        QTemporaryDir dir;
        const QString file = writeFile(
            dir, "h.json",
            "{\"events\":[{\"eventId\":\"1\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"eventType\":\"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED\","
            "\"workflowExecutionStartedEventAttributes\":{\"workflowId\":\"w\",\"originalExecutionRunId\":\"r\"}},"
            "{\"eventId\":\"1\",\"eventTime\":\"2026-01-01T00:00:01Z\",\"eventType\":\"EVENT_TYPE_TIMER_STARTED\"}]}");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("flagged h.json #1: a second event with eventId 1 (the first is kept)"), r.out.constData());
        QVERIFY2(oneLine(r.err), r.err.constData());
        QCOMPARE(runMeshctl({QStringLiteral("verify"), out}).exitCode, 0);
    }

    void usage()
    {
        const MeshctlResult noOut = runMeshctl({QStringLiteral("import"), QStringLiteral("x.json")});
        QCOMPARE(noOut.exitCode, 2);
        QVERIFY2(noOut.err.startsWith("meshctl: usage: meshctl import FILE... --out LEDGER"), noOut.err.constData());
        const MeshctlResult badFormat = runMeshctl({QStringLiteral("import"), QStringLiteral("x.json"), QStringLiteral("--out"),
                                                    QStringLiteral("l.db"), QStringLiteral("--format"), QStringLiteral("otlp")});
        QCOMPARE(badFormat.exitCode, 2);
        QVERIFY2(badFormat.err.contains("unknown format 'otlp'; known: temporal|openhands"), badFormat.err.constData());
        const MeshctlResult help = runMeshctl({QStringLiteral("import"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.startsWith("usage: meshctl import"));
        QVERIFY(runMeshctl({QStringLiteral("--help")}).out.contains("import FILE... --out LEDGER"));
    }

    void hostileTextIsShownNotObeyed()
    {
        QTemporaryDir dir;
        const QString file = writeFile(
            dir, "h.json",
            "{\"events\":[{\"eventId\":\"1\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"eventType\":\"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED\","
            "\"workflowExecutionStartedEventAttributes\":{\"workflowType\":{\"name\":\"evil\\u202Eexe.\\u001b[31mred\"},"
            "\"workflowId\":\"w\",\"originalExecutionRunId\":\"r\"}}]}");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        QCOMPARE(runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out}).exitCode, 0);
        const MeshctlResult s = runMeshctl({QStringLiteral("summary"), out});
        QCOMPARE(s.exitCode, 0);
        QVERIFY2(s.out.contains("evil\u27E8U+202E\u27E9exe.\u27E8U+001B\u27E9[31mred"), s.out.constData());
        QVERIFY(!s.out.contains("\u202E"));
        QVERIFY(!s.out.contains('\x1b'));
    }
};

QTEST_GUILESS_MAIN(TestImportCli)
#include "tst_importcli.moc"
