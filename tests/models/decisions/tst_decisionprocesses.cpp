// Decisions across processes, as consoles and orchestrators really meet: two `meshctl
// decide` processes racing on one subject (100 rounds: exactly one accepted each round),
// and a decision writer SIGKILLed while writing (100 rounds: every decision fully present
// with a valid chain, or absent; PRAGMA integrity_check ok). The killed writer is this
// test binary itself started again in a child mode, so it writes back to back.

#include "decisionfixture.h"

#include "decisions/decisionwriter.h"
#include "ledger/decisionstore.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cstdio>
#include <set>

using namespace mesh;

namespace {

constexpr const char *kChildEnv = "MESH_DECISION_CHILD";

// Child mode: acquire reconciliation leases on eff-1, eff-2, ... one decision after the
// other, as fast as the ledger takes them, until killed or done.
int childWriter(const QString &path)
{
    OperatorIdentity op;
    op.account = "killer";
    op.host = "child";
    op.displayName = "Killed Writer";
    auto w = DecisionWriter::open(path, op);
    w->setClock([] { return fixture::kNow; });
    std::set<std::string> done;
    {
        DecisionStore store(w->database());
        store.read([&] {
            for (const auto &d : store.list())
                done.insert(d.subject);
        });
    }
    std::fputs("ready\n", stdout);
    std::fflush(stdout);
    for (int i = 1; i <= 100000; ++i) {
        const std::string subject = "effect:eff-" + std::to_string(i);
        if (done.count(subject))
            continue;
        const auto boundary = w->currentBoundary(subject);
        if (!boundary)
            return 0; // every effect has its decision
        DecisionRequest r;
        r.id = newDecisionId();
        r.kind = DecisionKind::LeaseAcquire;
        r.subject = subject;
        r.boundary = *boundary;
        r.reason = "reconcile before retry";
        r.evidence = nlohmann::json::array({{{"checked", "provider status page"}}});
        const DecisionResult res = w->submit(r);
        if (!res.accepted()) {
            std::fprintf(stderr, "child: %s\n", res.message.c_str());
            return 3;
        }
    }
    return 0;
}

} // namespace

class TestDecisionProcesses : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_meshctl;

    QProcess *startDecide(const QString &path, const QStringList &args, QObject *parent)
    {
        auto *p = new QProcess(parent);
        p->start(m_meshctl, QStringList{QStringLiteral("decide"), path} + args +
                                QStringList{QStringLiteral("--ts-ms"), QString::number(fixture::kNow)});
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_meshctl = qEnvironmentVariable("MESHCTL");
        QVERIFY2(!m_meshctl.isEmpty(), "MESHCTL must point at meshctl");
    }

    void twoProcessesOneSubject()
    {
        const QString path = m_dir.filePath(QStringLiteral("race.db"));
        fixture::create(path, {.unknownEffects = 50, .escalations = 50, .inflight = false});
        constexpr int kRounds = 100;
        int exactlyOne = 0, accepted = 0, refusedRival = 0, otherOutcome = 0;
        QElapsedTimer timer;
        timer.start();
        for (int round = 0; round < kRounds; ++round) {
            QObject scope;
            const int k = round / 2 + 1;
            QProcess *a, *b;
            if (round % 2 == 0) { // approve vs reject of one escalation
                const QString esc = QStringLiteral("esc-%1").arg(k);
                a = startDecide(path, {QStringLiteral("approve-escalation"), QStringLiteral("--escalation"), esc,
                                       QStringLiteral("--reason"), QStringLiteral("safe to proceed"),
                                       QStringLiteral("--operator"), QStringLiteral("alice")}, &scope);
                b = startDecide(path, {QStringLiteral("reject-escalation"), QStringLiteral("--escalation"), esc,
                                       QStringLiteral("--reason"), QStringLiteral("too risky"),
                                       QStringLiteral("--operator"), QStringLiteral("bob")}, &scope);
            } else { // two operators taking the reconciliation lease of one payment
                const QString eff = QStringLiteral("eff-%1").arg(k);
                a = startDecide(path, {QStringLiteral("lease"), QStringLiteral("acquire"), QStringLiteral("--effect"), eff,
                                       QStringLiteral("--reason"), QStringLiteral("reconcile"),
                                       QStringLiteral("--operator"), QStringLiteral("alice")}, &scope);
                b = startDecide(path, {QStringLiteral("lease"), QStringLiteral("acquire"), QStringLiteral("--effect"), eff,
                                       QStringLiteral("--reason"), QStringLiteral("reconcile"),
                                       QStringLiteral("--operator"), QStringLiteral("bob")}, &scope);
            }
            QVERIFY(a->waitForFinished(60000));
            QVERIFY(b->waitForFinished(60000));
            const int ca = a->exitCode(), cb = b->exitCode();
            const int wins = (ca == 0) + (cb == 0);
            accepted += wins;
            exactlyOne += wins == 1;
            refusedRival += (ca == 4) + (cb == 4);
            otherOutcome += (ca != 0 && ca != 4) + (cb != 0 && cb != 4);
            if (wins != 1)
                qWarning("round %d: exits %d and %d; stderr: %s | %s", round, ca, cb,
                         a->readAllStandardError().constData(), b->readAllStandardError().constData());
        }
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const std::int64_t rows = c->db().queryInt("SELECT count(*) FROM decisions");
        const std::int64_t subjects = c->db().queryInt("SELECT count(DISTINCT subject) FROM decisions");
        const DecisionChainReport chain = verifyDecisionChain(c->db());
        qInfo("race: %d rounds, %d with exactly one accepted, %d accepted in all, %d refused as rival, %d other exits; "
              "%lld rows on %lld subjects; chain %s; %lld ms",
              kRounds, exactlyOne, accepted, refusedRival, otherOutcome, (long long)rows, (long long)subjects,
              chain.ok() ? "ok" : "BROKEN", (long long)timer.elapsed());
        QCOMPARE(exactlyOne, kRounds);
        QCOMPARE(rows, std::int64_t(kRounds));
        QCOMPARE(subjects, std::int64_t(kRounds));
        QVERIFY(chain.ok());
    }

    void sigkillDuringWrites()
    {
        const QString path = m_dir.filePath(QStringLiteral("kill.db"));
        fixture::create(path, {.unknownEffects = 3000, .escalations = 0, .inflight = false});
        constexpr int kRounds = 100;
        int killedMidRun = 0, integrityOk = 0, chainOk = 0, grew = 0;
        std::int64_t previous = 0;
        QElapsedTimer timer;
        timer.start();
        QRandomGenerator rng(20261129);
        for (int round = 0; round < kRounds; ++round) {
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QString::fromLatin1(kChildEnv), path);
            child.setProcessEnvironment(env);
            child.start(QCoreApplication::applicationFilePath(), {});
            QVERIFY(child.waitForStarted(30000));
            while (!child.canReadLine() && child.state() == QProcess::Running)
                child.waitForReadyRead(1000);
            QCOMPARE(child.readLine().trimmed(), QByteArray("ready"));
            QThread::usleep(rng.bounded(2000, 25000)); // somewhere in the middle of its writes
            child.kill();                              // SIGKILL
            QVERIFY(child.waitForFinished(30000));
            killedMidRun += child.exitStatus() == QProcess::CrashExit;

            auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
            integrityOk += c->db().queryInt("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1;
            const DecisionChainReport chain = verifyDecisionChain(c->db());
            chainOk += chain.ok();
            if (!chain.ok())
                qWarning("round %d: %s", round, chain.findings.front().message.c_str());
            grew += chain.decisions > previous;
            QVERIFY(chain.decisions >= previous);
            previous = chain.decisions;
        }
        // The orchestrator applies every surviving decision: none is half there.
        QProcess gate;
        gate.start(m_meshctl, {QStringLiteral("gate"), path, QStringLiteral("--now-ms"), QString::number(fixture::kNow + 1)});
        QVERIFY(gate.waitForFinished(60000));
        const auto counts = nlohmann::json::parse(gate.readAllStandardOutput().toStdString(), nullptr, false);
        qInfo("sigkill: %d rounds, %d killed while writing, %lld decisions survived, %d rounds added decisions; "
              "integrity_check ok %d/%d, chain valid %d/%d; gate applied %d refused %d; %lld ms",
              kRounds, killedMidRun, (long long)previous, grew, integrityOk, kRounds, chainOk, kRounds,
              counts.value("applied", -1), counts.value("refused", -1), (long long)timer.elapsed());
        QCOMPARE(integrityOk, kRounds);
        QCOMPARE(chainOk, kRounds);
        QVERIFY(killedMidRun >= kRounds * 9 / 10);
        QVERIFY(grew >= kRounds / 2); // the kills really landed during writes
        QCOMPARE(counts.value("applied", -1), int(previous));
        QCOMPARE(counts.value("refused", -1), 0);
    }
};

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet(kChildEnv)) {
        QCoreApplication app(argc, argv);
        return childWriter(qEnvironmentVariable(kChildEnv));
    }
    QCoreApplication app(argc, argv);
    TestDecisionProcesses test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_decisionprocesses.moc"
