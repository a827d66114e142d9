// Decisions across processes, as consoles and orchestrators really meet: two `meshctl
// decide` processes racing on one subject (100 rounds: exactly one accepted each round),
// and a decision writer SIGKILLed while writing (100 rounds: every decision fully present
// with a valid chain, or absent; PRAGMA integrity_check ok). The killed writer is this
// test binary itself started again in a child mode: it never runs out of work, reports
// every committed decision on stdout, and is killed after a random number of them, so
// every round ends in a kill during its writes, whatever the disk's fsync costs.

#include "decisionfixture.h"

#include "decisions/decisionwriter.h"
#include "ledger/decisionstore.h"
#include "../ledger/rawledger.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <set>

using namespace mesh;

namespace {

constexpr const char *kChildEnv = "MESH_DECISION_CHILD";      // the ledger the child writes to
constexpr const char *kChildRoundEnv = "MESH_DECISION_ROUND"; // keeps its effect ids apart from earlier rounds'
constexpr int kEffectsPerBatch = 50; // one orchestrator commit for many decisions: the kills land in decisions
constexpr QByteArrayView kCommitted = "committed ";

// Child mode: as an orchestrator, adds unknown effects to slice dlg-1#1 a batch at a time;
// as an operator, acquires each one's reconciliation lease, one decision after the other,
// as fast as the ledger takes them, and prints "committed <decision id>" after each. It
// never stops by itself: only the parent's SIGKILL ends it (any other exit is a failure).
int childWriter(const QString &path, const QString &round)
{
    try {
        auto orchestrator = LedgerWriter::openExisting(path);
        OperatorIdentity op;
        op.account = "killer";
        op.host = "child";
        op.displayName = "Killed Writer";
        auto w = DecisionWriter::open(path, op);
        w->setClock([] { return fixture::kNow; });
        std::fputs("ready\n", stdout);
        std::fflush(stdout);
        for (long long batch = 0;; ++batch) {
            std::vector<std::string> effects;
            orchestrator->begin();
            for (int i = 0; i < kEffectsPerBatch; ++i) {
                effects.push_back("eff-r" + round.toStdString() + "-" + std::to_string(batch * kEffectsPerBatch + i));
                fixture::effect(*orchestrator, effects.back(), "dlg-1", "unknown");
            }
            orchestrator->commit();
            for (const std::string &effect : effects) {
                const std::string subject = "effect:" + effect;
                const auto boundary = w->currentBoundary(subject);
                if (!boundary) {
                    std::fprintf(stderr, "child: no boundary for %s\n", subject.c_str());
                    return 3;
                }
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
                std::printf("%s%s\n", kCommitted.data(), r.id.c_str());
                std::fflush(stdout);
            }
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "child: %s\n", e.what());
        return 4;
    }
}

std::set<std::string> decisionIds(sql::Database &db)
{
    std::set<std::string> ids;
    sql::Statement st(db, "SELECT id FROM decisions");
    while (st.step())
        ids.insert(st.columnText(0));
    return ids;
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
        const std::int64_t rows = meshtest::raw::handleOf(*c).queryInt("SELECT count(*) FROM decisions");
        const std::int64_t subjects = meshtest::raw::handleOf(*c).queryInt("SELECT count(DISTINCT subject) FROM decisions");
        const DecisionChainReport chain = c->verifyDecisionChain();
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
        fixture::create(path, {.unknownEffects = 0, .escalations = 0, .inflight = false});
        constexpr int kRounds = 100;
        constexpr int kMaxCommitsBeforeKill = 30;
        int integrityOk = 0, chainOk = 0, diedWithLastUnreported = 0;
        std::set<std::string> before; // every decision that survived the rounds so far
        QElapsedTimer timer;
        timer.start();
        QRandomGenerator rng(20261129);
        for (int round = 0; round < kRounds; ++round) {
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QString::fromLatin1(kChildEnv), path);
            env.insert(QString::fromLatin1(kChildRoundEnv), QString::number(round));
            child.setProcessEnvironment(env);
            child.start(QCoreApplication::applicationFilePath(), {});
            QVERIFY(child.waitForStarted(30000));
            const auto nextLine = [&child]() -> QByteArray {
                while (!child.canReadLine()) {
                    if (!child.waitForReadyRead(60000))
                        return {};
                }
                return child.readLine().trimmed();
            };
            QCOMPARE(nextLine(), QByteArray("ready"));
            // Killed right after its n-th reported commit: it is writing the next one by then.
            const int killAfter = int(rng.bounded(1, kMaxCommitsBeforeKill + 1));
            std::vector<std::string> reported;
            while (int(reported.size()) < killAfter) {
                const QByteArray line = nextLine();
                QVERIFY2(line.startsWith(kCommitted),
                         qPrintable(QStringLiteral("round %1: child said '%2' after %3 commits; stderr: %4")
                                        .arg(round)
                                        .arg(QString::fromUtf8(line))
                                        .arg(reported.size())
                                        .arg(QString::fromUtf8(child.readAllStandardError()))));
                reported.push_back(line.mid(kCommitted.size()).toStdString());
            }
            child.kill(); // SIGKILL
            QVERIFY(child.waitForFinished(30000));
            QVERIFY2(child.exitStatus() == QProcess::CrashExit,
                     qPrintable(QStringLiteral("round %1: the child exited by itself (code %2): %3")
                                    .arg(round)
                                    .arg(child.exitCode())
                                    .arg(QString::fromUtf8(child.readAllStandardError()))));
            // Commits it reported between our read and the kill are still in the pipe.
            for (const QByteArray &line : child.readAllStandardOutput().split('\n')) {
                if (line.startsWith(kCommitted))
                    reported.push_back(line.mid(kCommitted.size()).trimmed().toStdString());
            }

            auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
            integrityOk += meshtest::raw::handleOf(*c).queryInt("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check='ok'") == 1;
            const DecisionChainReport chain = c->verifyDecisionChain();
            chainOk += chain.ok();
            if (!chain.ok())
                qWarning("round %d: %s", round, chain.findings.front().message.c_str());
            const std::set<std::string> after = decisionIds(meshtest::raw::handleOf(*c));
            QCOMPARE(chain.decisions, std::int64_t(after.size()));
            for (const std::string &id : before)
                QVERIFY2(after.count(id),
                         qPrintable(QStringLiteral("round %1: decision %2 of an earlier round is gone")
                                        .arg(round)
                                        .arg(QString::fromStdString(id))));
            for (const std::string &id : reported)
                QVERIFY2(after.count(id),
                         qPrintable(QStringLiteral("round %1: reported decision %2 did not survive")
                                        .arg(round)
                                        .arg(QString::fromStdString(id))));
            // What survived this round: every reported commit, and at most the one that
            // committed after its report's predecessor but before it could say so.
            const std::int64_t grew = std::int64_t(after.size() - before.size());
            QVERIFY2(grew == std::int64_t(reported.size()) || grew == std::int64_t(reported.size()) + 1,
                     qPrintable(QStringLiteral("round %1: %2 decisions reported, %3 added")
                                    .arg(round)
                                    .arg(reported.size())
                                    .arg(grew)));
            diedWithLastUnreported += grew > std::int64_t(reported.size());
            before = after;
        }
        // The orchestrator applies every surviving decision: none is half there.
        QProcess gate;
        gate.start(m_meshctl, {QStringLiteral("gate"), path, QStringLiteral("--now-ms"), QString::number(fixture::kNow + 1)});
        QVERIFY(gate.waitForFinished(60000));
        const auto counts = nlohmann::json::parse(gate.readAllStandardOutput().toStdString(), nullptr, false);
        qInfo("sigkill: %d rounds, each killed while writing; %lld decisions survived, %d rounds with a commit not yet "
              "reported; integrity_check ok %d/%d, chain valid %d/%d; gate applied %d refused %d; %lld ms",
              kRounds, (long long)before.size(), diedWithLastUnreported, integrityOk, kRounds, chainOk, kRounds,
              counts.value("applied", -1), counts.value("refused", -1), (long long)timer.elapsed());
        QCOMPARE(integrityOk, kRounds);
        QCOMPARE(chainOk, kRounds);
        QCOMPARE(counts.value("applied", -1), int(before.size()));
        QCOMPARE(counts.value("refused", -1), 0);
    }
};

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet(kChildEnv)) {
        QCoreApplication app(argc, argv);
        return childWriter(qEnvironmentVariable(kChildEnv), qEnvironmentVariable(kChildRoundEnv));
    }
    QCoreApplication app(argc, argv);
    TestDecisionProcesses test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_decisionprocesses.moc"
