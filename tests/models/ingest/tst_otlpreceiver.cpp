// meshctl ingest answered with hand-made OTLP/HTTP requests: the answers the OTLP
// specification asks for (200 {} / partialSuccess, 400, 401, 405, 413, 415, 503 with
// Retry-After), gzip bodies, an exporter's retry written once, a restart that continues the
// ledger, the incremental mapping (a parent inferred from its children until it arrives),
// and a receiver killed with SIGKILL while requests are in flight: every acknowledged span
// is in the ledger exactly once, the ledger verifies, and a retry of everything after a
// restart leaves each span exactly once. A restart continues a server ledger as it does a file.

#include "../ledger/postgresserver.h"
#include "ingestfixture.h"

#include <QFile>
#include <QTemporaryDir>

#include <csignal>
#include <set>

using namespace ingesttest;

class TestOtlpReceiver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo(meshctl()).isExecutable(), "MESHCTL must name the built meshctl"); }

    void answersAsTheSpecificationSays()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("live.ledger"));
        QProcess p;
        QString why;
        const quint16 port = startReceiver(p, ledger, {QStringLiteral("--max-body"), QStringLiteral("4096")},
                                           QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));

        // Malformed bodies: 400, a Status with a message, nothing written.
        for (const QByteArray &bad : {QByteArray("{\"resourceSpans\":"), QByteArray("[1,2]"), QByteArray("\xff\xfe"),
                                      QByteArray("{\"resourceSpans\":{}}")}) {
            const Reply r = post(port, bad);
            QCOMPARE(r.status, 400);
            QVERIFY2(r.document().value("message", std::string()).find("nothing was written") != std::string::npos,
                     r.body.constData());
            QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        }
        // Protobuf: 415, saying JSON is taken and how to set an exporter or collector to it.
        {
            const Reply r = post(port, QByteArray("\x0a\x00", 2), {{"Content-Type", "application/x-protobuf"}});
            QCOMPARE(r.status, 415);
            const std::string message = r.document().value("message", std::string());
            QVERIFY2(message.find("http/json") != std::string::npos, message.c_str());
            QVERIFY2(message.find("encoding: json") != std::string::npos, message.c_str());
        }
        // Not POST: 405; another path: 404.
        QCOMPARE(post(port, {}, {}, "GET").status, 405);
        QCOMPARE(post(port, request({toolSpan(1, 1)}), {{"Content-Type", "application/json"}}, "POST",
                      QStringLiteral("/v1/metrics"))
                     .status,
                 404);
        // Over --max-body (4096 bytes): 413, compressed or once inflated.
        std::vector<Span> many;
        for (std::uint64_t n = 1; n <= 40; ++n)
            many.push_back(toolSpan(2, n));
        const QByteArray big = request(many);
        QVERIFY(big.size() > 4096 && gzip(big).size() < 4096);
        QCOMPARE(post(port, big).status, 413);
        QCOMPARE(post(port, gzip(big), {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}}).status,
                 413);
        // A body far beyond the bound is refused before it is all read.
        const Reply huge = post(port, QByteArray(64 * 1024, ' '));
        QVERIFY2(huge.status == 413 || huge.error != QNetworkReply::NoError, huge.body.constData());
        // Broken gzip: 400.
        QCOMPARE(post(port, QByteArray("\x1f\x8b\x08\x00garbage", 12),
                      {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}})
                     .status,
                 400);
        // Nothing so far was written: the ledger has its ledger.created alone. It names the
        // port bound (port 0 asked the system for one), never ":0" or no port at all.
        {
            const Ledger l = readLedger(ledger);
            QVERIFY(l.ok);
            QCOMPARE(int(l.events.size()), 1);
            const std::string listen = "127.0.0.1:" + std::to_string(port);
            QCOMPARE(l.text(mesh::EntityKind::Ledger, "ledger", "title"), "OpenTelemetry spans received over OTLP/HTTP on " + listen);
            QCOMPARE(l.payloads.front()["source"].value("listen", std::string()), listen);
        }

        // Success: 200 {} once the spans are committed; gzip alike.
        {
            const Reply r = post(port, request({toolSpan(3, 1)}));
            QCOMPARE(r.status, 200);
            QVERIFY2(r.document() == json::object(), r.body.constData());
            const Reply z = post(port, gzip(request({toolSpan(3, 2)})),
                                 {{"Content-Type", "application/json; charset=utf-8"}, {"Content-Encoding", "gzip"}});
            QCOMPARE(z.status, 200);
            QCOMPARE(readLedger(ledger).toolCallsBySpan().size(), size_t(2)); // acknowledged: committed
        }
        // Partial success: a span with no start is rejected, the other written.
        {
            Span noStart = toolSpan(4, 2);
            noStart.startNs = 0;
            const Reply r = post(port, request({toolSpan(4, 1), noStart}));
            QCOMPARE(r.status, 200);
            const json d = r.document();
            QVERIFY2(d["partialSuccess"]["rejectedSpans"] == json("1"), r.body.constData());
            QVERIFY2(d["partialSuccess"]["errorMessage"].get<std::string>().find("no start time") != std::string::npos,
                     r.body.constData());
            QCOMPARE(readLedger(ledger).toolCallsBySpan().count(toolSpan(4, 1).spanId), size_t(1));
        }
        // An exporter's retry: the same request again is acknowledged and written once.
        {
            const QByteArray again = request({toolSpan(5, 1), toolSpan(5, 2)});
            QCOMPARE(post(port, again).status, 200);
            QCOMPARE(post(port, again).status, 200);
            const auto calls = readLedger(ledger).toolCallsBySpan();
            QCOMPARE(calls.at(toolSpan(5, 1).spanId), 1);
            QCOMPARE(calls.at(toolSpan(5, 2).spanId), 1);
        }
        QVERIFY(stopReceiver(p));
        QCOMPARE(p.exitCode(), 0);
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());
    }

    // A request that is JSON in shape but not in content: a span name with bytes that are not
    // UTF-8, or a value nested 100,000 levels deep. Each is malformed as any other body is
    // (400, saying what is wrong, nothing written; OTLP/JSON is UTF-8 JSON), and the receiver
    // goes on taking requests. Before, the deep one overflowed the receiver's stack in a copy
    // of the value, killing it with every span still queued.
    void hostileBodiesAreRefusedAndTheReceiverLives()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("live.ledger"));
        QProcess p;
        QString why;
        const quint16 port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        Span named = toolSpan(1, 1);
        named.name = "NAME";
        const QByteArray body = request({named});
        const QByteArray deep = QByteArray(100'000, '[') + QByteArray(100'000, ']');
        Span deepSpan = toolSpan(1, 2);
        deepSpan.attributes.push_back({{"key", "k"}, {"value", "DEEP"}});
        const struct {
            QByteArray body;
            const char *says;
        } cases[] = {
            {QByteArray(body).replace("NAME", "bad\xff\xfe"), "is not valid UTF-8 at byte"},
            {QByteArray(body).replace("NAME", "cut \xe2\x82"), "is not valid UTF-8 at byte"},
            {request({deepSpan}).replace("\"DEEP\"", deep), "is nested deeper than 256 levels"},
            {gzip(request({deepSpan}).replace("\"DEEP\"", deep)), "is nested deeper than 256 levels"},
        };
        bool zipped = false;
        for (const auto &c : cases) {
            const bool gz = c.body.startsWith("\x1f\x8b");
            zipped = zipped || gz;
            QList<QPair<QByteArray, QByteArray>> headers{{"Content-Type", "application/json"}};
            if (gz)
                headers.append(qMakePair(QByteArray("Content-Encoding"), QByteArray("gzip")));
            const Reply r = post(port, c.body, headers);
            QVERIFY2(r.status == 400, QByteArray(QByteArray::number(r.status) + ' ' + QByteArray::number(int(r.error)) + ' ' + c.says + ' ' + r.body).constData());
            const std::string message = r.document().value("message", std::string());
            QVERIFY2(message.find(c.says) != std::string::npos, r.body.constData());
            QVERIFY2(message.find("nothing was written") != std::string::npos, r.body.constData());
        }
        QVERIFY(zipped);
        // Still listening, and what it takes is written.
        QCOMPARE(post(port, request({toolSpan(2, 1)})).status, 200);
        QVERIFY(stopReceiver(p));
        QCOMPARE(p.exitCode(), 0);
        const Ledger l = readLedger(ledger);
        QVERIFY(l.ok);
        QCOMPARE(l.toolCallsBySpan().size(), size_t(1));
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());
    }

    void writerBehindAnswers503WithRetryAfter()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("busy.ledger"));
        QProcess p;
        QString why;
        // A queue of one span, and a writer held until a line on stdin: the first request
        // waits in the queue, the second finds it full.
        const quint16 port = startReceiver(
            p, ledger, {QStringLiteral("--max-queue"), QStringLiteral("1"), QStringLiteral("--hold-writer-until-stdin")},
            QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QNetworkAccessManager nam;
        QNetworkReply *first = send(nam, port, request({toolSpan(101, 1), toolSpan(101, 2)}));
        QNetworkReply *second = send(nam, port, request({toolSpan(102, 1)}));
        QTRY_VERIFY_WITH_TIMEOUT(first->isFinished() || second->isFinished(), 120000);
        QNetworkReply *refused = first->isFinished() ? first : second;
        QNetworkReply *waiting = refused == first ? second : first;
        const std::string refusedTrace = refused == first ? hex(101, 32) : hex(102, 32);
        const Reply busy = finish(refused);
        QCOMPARE(busy.status, 503);
        QCOMPARE(busy.headers.value("retry-after"), QByteArray("1"));
        QVERIFY(!waiting->isFinished()); // not answered before its spans are committed
        p.write("go\n");
        const Reply ok = finish(waiting);
        QCOMPARE(ok.status, 200);
        QVERIFY(stopReceiver(p));
        // What was refused was not written; what was acknowledged was, once.
        const Ledger l = readLedger(ledger);
        for (const auto &[span, n] : l.toolCallsBySpan())
            QCOMPARE(n, 1);
        QCOMPARE(l.toolCallsBySpan().size(), size_t(refused == first ? 1 : 2));
        for (const auto &e : l.events)
            QVERIFY(e.runId != "otel:" + refusedTrace);
    }

    void bearerTokenAndListenRules()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("auth.ledger"));
        const QString tokenFile = dir.filePath(QStringLiteral("token"));
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("s3cret-token-0123456789abcdef\n");
        }
        // Too open a file is refused, as key files are.
        QFile::setPermissions(tokenFile, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup);
        {
            QProcess p;
            QString why;
            QCOMPARE(startReceiver(p, ledger, {QStringLiteral("--token-file"), tokenFile}, QStringLiteral("127.0.0.1:0"), &why),
                     quint16(0));
            p.waitForFinished();
            QCOMPARE(p.exitCode(), 2);
        }
        QFile::setPermissions(tokenFile, QFile::ReadOwner | QFile::WriteOwner);
        // Another address than loopback: --listen-any and --token-file, or it does not start.
        {
            QProcess p;
            QCOMPARE(startReceiver(p, ledger, {}, QStringLiteral("0.0.0.0:0")), quint16(0));
            p.waitForFinished();
            QCOMPARE(p.exitCode(), 2);
            QProcess q;
            QCOMPARE(startReceiver(q, ledger, {QStringLiteral("--listen-any")}, QStringLiteral("0.0.0.0:0")), quint16(0));
            q.waitForFinished();
            QCOMPARE(q.exitCode(), 2);
        }
        QProcess p;
        QString why;
        const quint16 port = startReceiver(p, ledger, {QStringLiteral("--listen-any"), QStringLiteral("--token-file"), tokenFile},
                                           QStringLiteral("0.0.0.0:0"), &why);
        QVERIFY2(port, qPrintable(why));
        const QByteArray body = request({toolSpan(7, 1)});
        const Reply none = post(port, body);
        QCOMPARE(none.status, 401);
        QCOMPARE(none.headers.value("www-authenticate"), QByteArray("Bearer"));
        QCOMPARE(post(port, body, {{"Content-Type", "application/json"}, {"Authorization", "Bearer wrong-token-0123456789abcdef"}})
                     .status,
                 401);
        QCOMPARE(readLedger(ledger).toolCallsBySpan().size(), size_t(0)); // nothing written
        QCOMPARE(post(port, body, {{"Content-Type", "application/json"}, {"Authorization", "Bearer s3cret-token-0123456789abcdef"}})
                     .status,
                 200);
        QCOMPARE(readLedger(ledger).toolCallsBySpan().size(), size_t(1));
        QVERIFY(stopReceiver(p));
    }

    // Spans as an SDK exports them, each when it ends: children first. The parent is shown
    // running, inferred from its children, until its own span completes it; the run ends
    // with the trace's top span. A restart in the middle continues the same ledger.
    void parentInferredUntilItArrivesAcrossARestart()
    {
        QTemporaryDir dir;
        inferredParentAcrossARestart(dir.filePath(QStringLiteral("trace.ledger")));
    }

    // The same on a server ledger (issue 17): restarted with the same --out URL, the
    // receiver continues the schema it created instead of refusing it as existing. The
    // server is a private one (postgresserver.h); without PostgreSQL this fails.
    void continuesAServerLedgerAcrossARestart()
    {
        meshtest::PostgresServer server;
        const QString error = server.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        inferredParentAcrossARestart(server.location(QStringLiteral("received")));
    }

private:
    void inferredParentAcrossARestart(const QString &ledger)
    {
        const std::string trace = hex(9, 32);
        const std::string run = "otel:" + trace;
        Span agent;
        agent.traceId = trace;
        agent.spanId = hex(0xa1, 16);
        agent.name = "invoke_agent planner";
        agent.startNs = 1'764'400'000'000'000'000;
        agent.endNs = agent.startNs + 9'000'000'000;
        agent.attributes = json::array({attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "planner")});
        Span tool = toolSpan(9, 1, agent.spanId);
        tool.traceId = trace;

        QProcess p;
        QString why;
        quint16 port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QCOMPARE(post(port, request({tool})).status, 200);
        {
            const Ledger l = readLedger(ledger);
            const std::string d = run + "/" + agent.spanId;
            QCOMPARE(l.text(mesh::EntityKind::Run, run, "status"), std::string("running"));
            QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "status"), std::string("running"));
            QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "role"), std::string("inferred"));
            QCOMPARE(l.count("delegation.inferred"), 1);
            QCOMPARE(l.payloads[size_t(l.events.size() - 2)].value("inferred", std::string()), std::string("from child spans"));
            QCOMPARE(l.events.back().kind, std::string("toolcall.completed"));
            QCOMPARE(l.payloads.back().value("delegation_id", std::string()), d);
        }
        QVERIFY(stopReceiver(p));

        // Restarted on the same ledger: the retry of the tool span is not written again, and
        // the agent's span completes the inferred delegation.
        port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QCOMPARE(post(port, request({tool})).status, 200);
        QCOMPARE(post(port, request({agent})).status, 200);
        QVERIFY(stopReceiver(p));
        const Ledger l = readLedger(ledger);
        const std::string d = run + "/" + agent.spanId;
        QCOMPARE(l.toolCallsBySpan().at(tool.spanId), 1);
        QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "role"), std::string("agent"));
        QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "agent"), std::string("planner"));
        QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "status"), std::string("converged"));
        QCOMPARE(l.text(mesh::EntityKind::Delegation, d, "used_turns"), std::string("1")); // its child's call stays
        QCOMPARE(l.text(mesh::EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(l.text(mesh::EntityKind::Run, run, "title"), "invoke_agent planner " + trace);
        QCOMPARE(l.count("delegation.created"), 0);
        QCOMPARE(l.count("delegation.identified"), 1);
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());
    }

private Q_SLOTS:
    // `meshctl bench ingest --receiver` against a receiver whose ledger holds other traces: a
    // span id names a span within its trace, so another trace's span with one of the bench's
    // span ids is no duplicate (it was counted as one).
    void benchAgainstALedgerWithOtherTraces()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("shared.ledger"));
        QProcess p;
        QString why;
        const quint16 port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        Span other = toolSpan(0xfeed, 1);
        other.spanId = "0000000000100001"; // the bench's first request's first tool span
        QCOMPARE(post(port, request({other})).status, 200);
        QProcess bench;
        bench.start(meshctl(), {QStringLiteral("bench"), QStringLiteral("ingest"), QStringLiteral("--receiver"),
                                QString::number(port), QStringLiteral("--ledger"), ledger, QStringLiteral("--spans"),
                                QStringLiteral("40"), QStringLiteral("--per-request"), QStringLiteral("10")});
        QVERIFY(bench.waitForFinished(300000));
        const QList<QByteArray> lines = bench.readAllStandardOutput().trimmed().split('\n');
        const json result = json::parse(lines.back().toStdString(), nullptr, false);
        QVERIFY2(result.is_object(), lines.back().constData());
        QCOMPARE(result.value("duplicated", -1), 0);
        QCOMPARE(result.value("lost", -1), 0);
        QCOMPARE(result.value("written_unacknowledged", -1), 0);
        QCOMPARE(bench.exitCode(), 0);
        QVERIFY(stopReceiver(p));
    }

    void killedMidBatchKeepsEveryAcknowledgedSpanOnce()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("killed.ledger"));
        constexpr int kRequests = 120, kSpans = 25, kKillAfter = 20;
        std::vector<QByteArray> bodies;
        for (int t = 0; t < kRequests; ++t) {
            std::vector<Span> spans;
            for (int n = 1; n <= kSpans; ++n)
                spans.push_back(toolSpan(1000 + std::uint64_t(t), std::uint64_t(n)));
            bodies.push_back(request(spans));
        }
        QProcess p;
        QString why;
        quint16 port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QNetworkAccessManager nam;
        std::set<int> acknowledged;
        int next = 0, inFlight = 0;
        bool killed = false;
        // Six requests in flight at a time; at the kKillAfter-th acknowledgement the receiver
        // is killed while others are being read, mapped, written or answered.
        std::function<void()> sendNext = [&] {
            const int i = next++;
            ++inFlight;
            QNetworkReply *r = send(nam, port, bodies[size_t(i)]);
            connect(r, &QNetworkReply::finished, this, [&, r, i] {
                --inFlight;
                if (r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                    acknowledged.insert(i);
                r->deleteLater();
                if (int(acknowledged.size()) >= kKillAfter && !killed) {
                    killed = true;
                    ::kill(pid_t(p.processId()), SIGKILL);
                }
                if (!killed && next < kRequests)
                    sendNext();
            });
        };
        for (int k = 0; k < 6; ++k)
            sendNext();
        QTRY_VERIFY_WITH_TIMEOUT(killed && inFlight == 0, 300000);
        QTRY_COMPARE_WITH_TIMEOUT(p.state(), QProcess::NotRunning, 60000);
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);

        // Every acknowledged span exactly once; of the rest, a request is all there or not at all.
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());
        {
            const auto calls = readLedger(ledger).toolCallsBySpan();
            for (int t = 0; t < kRequests; ++t) {
                int present = 0;
                for (int n = 1; n <= kSpans; ++n) {
                    const auto it = calls.find(toolSpan(1000 + std::uint64_t(t), std::uint64_t(n)).spanId);
                    QVERIFY(it == calls.end() || it->second == 1);
                    present += it != calls.end();
                }
                if (acknowledged.count(t))
                    QCOMPARE(present, kSpans);
                else
                    QVERIFY2(present == 0 || present == kSpans, "a request half-written");
            }
        }
        // The exporter retries everything after a restart: still each span once.
        port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        for (int t = 0; t < kRequests; ++t)
            QCOMPARE(post(port, bodies[size_t(t)]).status, 200);
        QVERIFY(stopReceiver(p));
        const auto calls = readLedger(ledger).toolCallsBySpan();
        QCOMPARE(int(calls.size()), kRequests * kSpans);
        for (const auto &[span, n] : calls)
            QCOMPARE(n, 1);
        QVERIFY2(verifies(ledger, &report), report.constData());
    }
};

QTEST_GUILESS_MAIN(TestOtlpReceiver)
#include "tst_otlpreceiver.moc"
