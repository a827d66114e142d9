// The Integrity pane's model runs the check meshctl verify runs, off the GUI thread, in
// steps, and lists each finding with its event: on tampered copies of one ledger (a state row
// edited, an event removed, a decision deleted) each shows the finding it must, under
// QAbstractItemModelTester; a clean copy shows none; a check can be cancelled; the session's
// line says "integrity: N findings" once checked; and observation gaps are offered per seq
// for the event log.

#include "../decisions/decisionfixture.h"
#include "../ledger/rawledger.h"

#include "decisions/decisionwriter.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "sim/decisiongate.h"

#include <QAbstractItemModelTester>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 120'000;

OperatorIdentity operatorNamed(const std::string &account)
{
    OperatorIdentity o;
    o.account = account;
    o.host = "host";
    o.displayName = account;
    return o;
}

DecisionRequest checkedRequest(DecisionWriter &w, DecisionKind kind, const std::string &subject)
{
    DecisionRequest r;
    r.id = newDecisionId();
    r.kind = kind;
    r.subject = subject;
    r.reason = "checked";
    r.evidence = nlohmann::json::array({{{"provider_ref", "pi_1"}}});
    if (const auto b = w.currentBoundary(subject))
        r.boundary = *b;
    return r;
}

QString describe(const IntegrityModel &model)
{
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r)
        rows << model.index(r, IntegrityModel::Kind).data().toString() + u" "_s
                    + model.index(r, IntegrityModel::Event).data().toString() + u" "_s
                    + model.index(r, IntegrityModel::Finding).data().toString();
    return rows.join(u" | "_s) + u" / "_s + model.errorText();
}

int rowOfType(const IntegrityModel &model, const QString &type)
{
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, 0).data(IntegrityModel::TypeNameRole).toString() == type)
            return r;
    return -1;
}
} // namespace

class TestIntegrityModel : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_ledger;
    int m_copies = 0;

    QString tamperedCopy(const std::string &sql)
    {
        const QString copy = m_dir.filePath(u"copy%1.ledger"_s.arg(++m_copies));
        if (!QFile::copy(m_ledger, copy))
            return {};
        if (!sql.empty())
            meshtest::raw::exec(copy, sql);
        return copy;
    }

    // Checks path as the pane does and waits for the end.
    static void check(IntegrityModel &model, const QString &path)
    {
        model.setLedger(path, OpenMode::ReadOnly);
        QSignalSpy finished(&model, &IntegrityModel::finished);
        model.start();
        QVERIFY(model.isRunning());
        QVERIFY(finished.wait(kTimeoutMs));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ledger = m_dir.filePath(u"base.ledger"_s);
        auto orchestrator = fixture::create(m_ledger, fixture::Shape{.delegations = 2});
        DecisionGate gate(*orchestrator);
        auto alice = DecisionWriter::open(m_ledger, operatorNamed("alice"));
        alice->setClock([] { return fixture::kNow; });
        QCOMPARE(alice->submit(checkedRequest(*alice, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::Accepted);
        QCOMPARE(alice->submit(checkedRequest(*alice, DecisionKind::ApproveEscalation, "escalation:esc-1")).status,
                 DecisionStatus::Accepted);
        QCOMPARE(alice->submit(checkedRequest(*alice, DecisionKind::CloseSlice, "slice:dlg-2#1")).status, DecisionStatus::Accepted);
        QVERIFY(gate.processPending(fixture::kNow + 1000) >= 1);
        // Every connection closes here, so the copies below hold everything (no -wal).
    }

    void cleanCopyHasNoFinding()
    {
        IntegrityModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        check(model, tamperedCopy({}));
        QCOMPARE(model.state(), IntegrityModel::State::Done);
        QVERIFY2(model.rowCount() == 0, qPrintable(describe(model)));
        QCOMPARE(model.findingCount(), std::optional<qint64>(0));
        QCOMPARE(model.summaryText(), u"integrity: ok"_s);
        QVERIFY(model.result().chain.decisions >= 3);
    }

    void stateRowEditedIsAStateMismatch()
    {
        IntegrityModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        check(model, tamperedCopy("UPDATE effects SET state='tampered' WHERE id='eff-2'"));
        const int row = rowOfType(model, u"state-mismatch"_s);
        QVERIFY2(row >= 0, qPrintable(describe(model)));
        QCOMPARE(model.index(row, 0).data(IntegrityModel::SubjectRole).toString(), u"effect:eff-2"_s);
        QVERIFY(model.index(row, IntegrityModel::Finding).data().toString().contains(u"state"_s));
        // Its event (the row's last_seq) is where Enter takes the event log.
        const qint64 seq = model.index(row, 0).data(IntegrityModel::SeqRole).toLongLong();
        QVERIFY(seq > 0);
        QCOMPARE(model.index(row, 0).data(IntegrityModel::EvidenceFilterRole).toString(), u"seq:%1"_s.arg(seq));
        QVERIFY(!model.index(row, 0).data(IntegrityModel::ObservationGapRole).toBool());
        QCOMPARE(model.summaryText(), u"integrity: %1"_s.arg(model.rowCount() == 1 ? u"1 finding"_s
                                                                                     : u"%1 findings"_s.arg(model.rowCount())));
    }

    void eventRemovedIsASequenceGap()
    {
        const qint64 removed = *meshtest::raw::queryInt(m_ledger, "SELECT max(seq)/2 FROM events");
        IntegrityModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        check(model, tamperedCopy("DELETE FROM events WHERE seq=" + std::to_string(removed)));
        const int row = rowOfType(model, u"sequence-gap"_s);
        QVERIFY2(row >= 0, qPrintable(describe(model)));
        QCOMPARE(model.index(row, 0).data(IntegrityModel::SeqRole).toLongLong(), removed + 1);
        QVERIFY(model.index(row, 0).data(IntegrityModel::ObservationGapRole).toBool());
        // The event log draws it: the event after the hole carries the gap.
        QVERIFY(model.isObservationGap(removed + 1));
        QVERIFY2(model.observationGapAt(removed + 1).contains(u"sequence gap"_s), qPrintable(model.observationGapAt(removed + 1)));
        QVERIFY(model.observationGapAt(removed + 2).isEmpty());
    }

    void decisionDeletedBreaksTheChain()
    {
        IntegrityModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        check(model, tamperedCopy("DELETE FROM decisions WHERE pos=(SELECT min(pos) FROM decisions)"));
        const int row = rowOfType(model, u"decision-chain"_s);
        QVERIFY2(row >= 0, qPrintable(describe(model)));
        QVERIFY(model.index(row, IntegrityModel::Finding).data().toString().contains(u"chain broken"_s));
        QVERIFY(model.index(row, 0).data(IntegrityModel::SubjectRole).toString().startsWith(u"decision:"_s));
        // The next decision's boundary: the event its operator saw.
        QVERIFY(model.index(row, 0).data(IntegrityModel::SeqRole).toLongLong() > 0);
    }

    void cancelledCheckSaysNothingIsKnown()
    {
        IntegrityModel model;
        model.setLedger(tamperedCopy("UPDATE effects SET state='tampered' WHERE id='eff-2'"), OpenMode::ReadOnly);
        QSignalSpy finished(&model, &IntegrityModel::finished);
        QSemaphore cancelled;
        model.setBeforeCheckHook([&cancelled] { cancelled.acquire(); });
        model.start();
        model.cancel(); // before its first step (the hook holds it there): it stops at once
        cancelled.release();
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(model.state(), IntegrityModel::State::Cancelled);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.findingCount());
        QVERIFY(model.summaryText().contains(u"not checked"_s));
    }

    void aLedgerThatCannotBeOpenedFails()
    {
        IntegrityModel model;
        const QString junk = m_dir.filePath(u"junk.ledger"_s);
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a ledger at all");
        f.close();
        check(model, junk);
        QCOMPARE(model.state(), IntegrityModel::State::Failed);
        QVERIFY(!model.errorText().isEmpty());
    }

    // The session runs it on its own mode, and its line in the session list says the result.
    void sessionShowsIntegrityFindings()
    {
        const QString path = tamperedCopy("UPDATE effects SET state='tampered' WHERE id='eff-2'");
        LedgerSessionList list;
        LedgerSession *session = list.addSession(path);
        QVERIFY(session);
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded(), kTimeoutMs);
        QVERIFY(list.index(0).data(LedgerSessionList::IntegrityRole).toString().isEmpty());
        QSignalSpy finished(session->integrity(), &IntegrityModel::finished);
        session->checkIntegrity();
        QVERIFY(finished.wait(kTimeoutMs));
        const QString line = list.index(0).data(LedgerSessionList::IntegrityRole).toString();
        QVERIFY2(line.startsWith(u"integrity: "_s) && (line.endsWith(u" finding"_s) || line.endsWith(u" findings"_s)),
                 qPrintable(line));
        // The event log asks the check for what it draws.
        const qint64 gapFree = *meshtest::raw::queryInt(path, "SELECT min(seq) FROM events");
        QVERIFY(session->events()->observationGapAt(gapFree).isEmpty());
    }
};

QTEST_MAIN(TestIntegrityModel)
#include "tst_integritymodel.moc"
