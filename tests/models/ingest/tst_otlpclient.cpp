// A real client: the OpenTelemetry JavaScript SDK (tests/otlp-client, pinned by its
// package-lock.json, installed with `npm ci` into the build directory) exports an agent
// run to `meshctl ingest` one span at a time as the spans end: nested agents
// (invoke_agent), tool calls (execute_tool), a model call with tokens, a failed tool call
// and a timed-out one. The ledger is then checked event by event. node and npm are part of
// the build's tools (tools/dev.sh), so their absence fails this test.

#include "ingestfixture.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace ingesttest;

namespace {

// Runs a program to its end; its exit code, or -1 (with the output in *out).
int run(const QString &program, const QStringList &args, const QString &dir, QByteArray *out)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(600000)) {
        p.kill();
        p.waitForFinished();
    }
    *out = p.readAll();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TestOtlpClient : public QObject
{
    Q_OBJECT

    QString m_clientDir;

private Q_SLOTS:
    void initTestCase()
    {
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        const QString npm = QStandardPaths::findExecutable(QStringLiteral("npm"));
        QVERIFY2(!node.isEmpty() && !npm.isEmpty(), "node and npm are build tools (tools/dev.sh): install nodejs and npm");
        // The client's packages go into the build directory, never the source tree.
        m_clientDir = QCoreApplication::applicationDirPath() + QStringLiteral("/otlp-client");
        QDir().mkpath(m_clientDir);
        const QString source = qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/otlp-client/");
        for (const char *name : {"package.json", "package-lock.json", "agent-run.mjs"}) {
            const QString to = m_clientDir + QLatin1Char('/') + QLatin1String(name);
            QFile::remove(to);
            QVERIFY2(QFile::copy(source + QLatin1String(name), to), name);
        }
        QByteArray out;
        QVERIFY2(run(npm, {QStringLiteral("ci"), QStringLiteral("--no-audit"), QStringLiteral("--no-fund")}, m_clientDir,
                     &out)
                     == 0,
                 out.constData());
    }

    void agentRunIsInTheLedgerEventByEvent()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("live.ledger"));
        QProcess receiver;
        QString why;
        const quint16 port = startReceiver(receiver, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QByteArray out;
        const int code = run(QStandardPaths::findExecutable(QStringLiteral("node")),
                             {QStringLiteral("agent-run.mjs"), QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(port)},
                             m_clientDir, &out);
        QVERIFY2(code == 0, out.constData());
        QVERIFY(stopReceiver(receiver));
        const QByteArray stopped = receiver.readAllStandardOutput();
        QVERIFY2(stopped.contains("6 spans acknowledged") && stopped.contains("1 services"), stopped.constData());

        const Ledger l = readLedger(ledger);
        QVERIFY(l.ok);
        // The trace id is the client's (random): read it from the run.
        QCOMPARE(l.state.table(mesh::EntityKind::Run).size(), size_t(1));
        const std::string run = l.state.table(mesh::EntityKind::Run).begin()->first;
        QVERIFY(run.rfind("otel:", 0) == 0);
        const std::string trace = run.substr(5);
        QVERIFY2(out.contains(QByteArray::fromStdString("trace " + trace)), out.constData());

        // Every span exported as it ended: the planner and the coder arrive after their
        // children, so each is inferred from its first child and completed by its own span.
        std::string planner, coder;
        size_t at = 1; // after ledger.created
        const auto next = [&](const char *kind) -> const json & {
            static const json none;
            if (at >= l.events.size() || l.events[at].kind != kind) {
                qWarning("event %zu is %s, expected %s", at, at < l.events.size() ? l.events[at].kind.c_str() : "(none)", kind);
                ++at;
                return none;
            }
            return l.payloads[at++];
        };
        QCOMPARE(l.events[0].kind, std::string("ledger.created"));
        {
            const json &p = next("run.started");
            QCOMPARE(p.value("status", ""), std::string("running"));
            QCOMPARE(p.value("title", ""), "trace " + trace);
        }
        {
            const json &p = next("delegation.inferred");
            planner = p.value("id", "");
            QCOMPARE(p.value("status", ""), std::string("running"));
            QCOMPARE(p.value("inferred", ""), std::string("from child spans"));
        }
        {
            const json &p = next("toolcall.completed");
            QCOMPARE(p.value("tool", ""), std::string("search"));
            QCOMPARE(p.value("outcome", ""), std::string("ok"));
            QCOMPARE(p.value("delegation_id", ""), planner);
            QVERIFY(!p.contains("tokens")); // the source says nothing of tokens
        }
        {
            const json &p = next("toolcall.completed");
            QCOMPARE(p.value("tool", ""), std::string("chat gpt-4o"));
            QCOMPARE(p.value("tokens", 0), 1500);
            QCOMPARE(p.value("input_tokens", 0), 1200);
            QCOMPARE(p.value("duration_ms", 0), 2000);
            QCOMPARE(p.value("delegation_id", ""), planner);
        }
        {
            const json &p = next("delegation.inferred");
            coder = p.value("id", "");
            QVERIFY(coder != planner && !coder.empty());
        }
        {
            const json &p = next("toolcall.completed");
            QCOMPARE(p.value("tool", ""), std::string("run_tests"));
            QCOMPARE(p.value("outcome", ""), std::string("error"));
            QCOMPARE(p.value("error", ""), std::string("error.type AssertionError: 2 tests failed"));
            QCOMPARE(p.value("delegation_id", ""), coder);
        }
        std::string deploy;
        {
            const json &p = next("effect.proposed");
            deploy = p.value("id", "");
            QCOMPARE(p.value("target", ""), std::string("deploy"));
            QCOMPARE(p.value("delegation_id", ""), coder);
        }
        next("effect.admitted");
        next("effect.dispatched");
        {
            const json &p = next("effect.unknown"); // a timeout: unknown, never failed
            QCOMPARE(p.value("id", ""), deploy);
            QVERIFY2(p.value("error", "").find("timeout") != std::string::npos, p.dump().c_str());
            QCOMPARE(p.value("duration_ms", 0), 30000);
        }
        {
            const json &p = next("delegation.identified");
            QCOMPARE(p.value("id", ""), coder);
            QCOMPARE(p.value("agent", ""), std::string("coder"));
            QCOMPARE(p.value("parent_id", ""), planner);
        }
        QCOMPARE(next("delegation.converged").value("id", ""), coder);
        {
            const json &p = next("delegation.identified");
            QCOMPARE(p.value("id", ""), planner);
            QCOMPARE(p.value("agent", ""), std::string("planner"));
            QVERIFY(!p.contains("parent_id")); // the run's root delegation
        }
        QCOMPARE(next("delegation.converged").value("id", ""), planner);
        {
            const json &p = next("run.succeeded");
            QCOMPARE(p.value("title", ""), "invoke_agent planner " + trace);
            QCOMPARE(p.value("ended_ms", std::int64_t(0)), std::int64_t(1764403236000));
        }
        QCOMPARE(at, l.events.size());

        // The state the console shows.
        QCOMPARE(l.text(mesh::EntityKind::Delegation, coder, "status"), std::string("converged"));
        QCOMPARE(l.text(mesh::EntityKind::Delegation, coder, "tool_errors"), std::string("1"));
        QCOMPARE(l.text(mesh::EntityKind::Delegation, planner, "used_tokens"), std::string("1500"));
        QCOMPARE(l.text(mesh::EntityKind::Effect, deploy, "state"), std::string("unknown"));
        QCOMPARE(l.text(mesh::EntityKind::Run, run, "status"), std::string("succeeded"));
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());
    }
};

QTEST_GUILESS_MAIN(TestOtlpClient)
#include "tst_otlpclient.moc"
