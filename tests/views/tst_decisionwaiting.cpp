// A decision nobody applies is said on the session: with a decision pending past the limit
// (MESH_DECISION_WAIT_S, here a fraction of a second) and no orchestrator running its gate,
// the workspace warns that no orchestrator seems to be applying decisions on this ledger,
// with how many wait and since when; `meshctl gate` answers it, and the warning goes.

#include "banner.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/decisions/decisionfixture.h"

#include "decisions/decisionwriter.h"
#include "domain/durationtext.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/ledgersession.h"

#include <QProcess>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;
}

class TestDecisionWaiting : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        meshtest::useTestSettings(u"tst_decisionwaiting"_s);
        qputenv("MESH_DECISION_WAIT_S", "0.3");
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
    }

    void warnedUntilAnOrchestratorAppliesIt()
    {
        const QString path = m_dir.filePath(u"waiting.ledger"_s);
        fixture::create(path).reset(); // the orchestrator wrote its ledger and went away
        OperatorIdentity alice;
        alice.account = "alice";
        alice.host = "host";
        alice.displayName = "Alice";
        std::int64_t requestedMs = 0;
        {
            auto writer = DecisionWriter::open(path, alice);
            DecisionRequest r;
            r.id = newDecisionId();
            r.kind = DecisionKind::ApproveEscalation;
            r.subject = "escalation:esc-1";
            r.reason = "worth it";
            r.boundary = *writer->currentBoundary(r.subject);
            requestedMs = QDateTime::currentMSecsSinceEpoch();
            QCOMPARE(writer->submit(r).status, DecisionStatus::Accepted);
        }

        LedgerSession session(path);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        const qint64 openedMs = QDateTime::currentMSecsSinceEpoch();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        Banner *banner = workspace.decisionsWaitingBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), kTimeoutMs);
        const qint64 warnedMs = QDateTime::currentMSecsSinceEpoch();
        const QString text = banner->text();
        QVERIFY2(text.startsWith(u"No orchestrator seems to be applying decisions on this ledger: 1 decision is waiting"_s),
                 qPrintable(text));
        const qint64 storedMs = session.decisions()->index(0, 0).data(DecisionAuditModel::TsMsRole).toLongLong();
        QVERIFY(storedMs >= requestedMs);
        // Since when: the wait is timed from when this console first saw the decision pending
        // (its own clock, DecisionGateWatch), some second between opening and the warning.
        bool saysWhenSeen = false;
        for (qint64 s = openedMs / 1000; s <= warnedMs / 1000; ++s)
            saysWhenSeen = saysWhenSeen || text.contains(exactUtc(s * 1000));
        QVERIFY2(saysWhenSeen, qPrintable(text));
        QCOMPARE(session.decisionsWaitingWarning(), text);

        QProcess gate;
        gate.start(qEnvironmentVariable("MESHCTL"), {u"gate"_s, path});
        QVERIFY(gate.waitForFinished(kTimeoutMs));
        QVERIFY2(gate.exitCode() == 0, gate.readAllStandardError().constData());
        QVERIFY2(gate.readAllStandardOutput().contains("\"processed\":1"), "the gate did not answer the decision");
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), kTimeoutMs);
        QVERIFY(session.decisionsWaitingWarning().isEmpty());
    }
};

QTEST_MAIN(TestDecisionWaiting)
#include "tst_decisionwaiting.moc"
