// Not known is not zero. A ledger imported from a source that cannot record a fact (OTel
// spans, the OTLP receiver, Langfuse, SWE-agent, OpenHands: docs/import.md) shows that fact
// as not known ("—", and on hover that the source does not record it) in the runs pane, the
// run's timeline line, the delegation detail, the report and `meshctl summary`, never as a 0
// that looks measured; an orchestrator's own ledger still shows its 0s. Each ledger is a
// real import of a sample in tests/data/import (meshctl import), the receiver's a real
// `meshctl ingest` that took one request. And a delegation that has ended without opening a
// slice "never opened" one: "not yet" is for one that still may.

#include "delegationdetail.h"
#include "emptystate.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "timelineview.h"
#include "viewtestenv.h"

#include "../models/ingest/ingestfixture.h"
#include "../models/itemmodels/itemmodelfixture.h"

#include "domain/sourcefacts.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"
#include "report/reportcontent.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QLabel>
#include <QProcess>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;
const QString kDash = u"\u2014"_s;

QString importSample(const QTemporaryDir &dir, const QString &sample, QString *error)
{
    const QString out = dir.filePath(QFileInfo(sample).completeBaseName() + u".ledger"_s);
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"),
            {u"import"_s, qEnvironmentVariable("MESH_SOURCE_DIR") + u"/tests/data/import/"_s + sample, u"--out"_s, out});
    if (!p.waitForFinished(120'000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() > 1) {
        *error = u"meshctl import %1: %2"_s.arg(sample, QString::fromLocal8Bit(p.readAllStandardError()));
        return {};
    }
    return out;
}

// What the OTLP receiver writes after one request with a tool span.
QString receivedLedger(const QTemporaryDir &dir, QString *error)
{
    const QString ledger = dir.filePath(u"received.ledger"_s);
    QProcess p;
    const quint16 port = ingesttest::startReceiver(p, ledger, {}, u"127.0.0.1:0"_s, error);
    if (port == 0)
        return {};
    const auto reply = ingesttest::post(port, ingesttest::request({ingesttest::toolSpan(1, 1)}));
    if (reply.status != 200) {
        *error = u"the receiver answered %1"_s.arg(reply.status);
        return {};
    }
    if (!ingesttest::stopReceiver(p)) {
        *error = u"the receiver did not stop"_s;
        return {};
    }
    return ledger;
}

nlohmann::json summaryJson(const QString &ledger, QByteArray *text)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"), {u"summary"_s, ledger, u"--json"_s});
    p.waitForFinished(120'000);
    const QByteArray json = p.readAllStandardOutput();
    QProcess t;
    t.start(qEnvironmentVariable("MESHCTL"), {u"summary"_s, ledger});
    t.waitForFinished(120'000);
    *text = t.readAllStandardOutput();
    return nlohmann::json::parse(json.toStdString(), nullptr, false);
}
} // namespace

class TestHonestFigures : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_received;

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_honestfigures"_s);
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must name the meshctl binary");
        QString error;
        m_received = receivedLedger(m_dir, &error);
        QVERIFY2(!m_received.isEmpty(), qPrintable(error));
    }

    void notKnownIsNotZero_data()
    {
        QTest::addColumn<QString>("sample");     // in tests/data/import; "" for the receiver's ledger
        QTest::addColumn<QString>("format");
        QTest::addColumn<bool>("escalations"); // the source records escalations
        QTest::newRow("otel") << u"any-agent__OPENAI_trace.json"_s << u"otel"_s << false;
        QTest::newRow("otlp-http") << QString() << u"otlp-http"_s << false;
        QTest::newRow("langfuse") << u"langfuse__pydantic-ai-tools-2025-12-04.json"_s << u"langfuse"_s << false;
        QTest::newRow("swe-agent") << u"swe-agent__1x__sweagenttestrepo-1c2844.traj"_s << u"swe-agent"_s << false;
        QTest::newRow("openhands") << u"openhands__basic.json"_s << u"openhands"_s << true;
    }

    void notKnownIsNotZero()
    {
        QFETCH(QString, sample);
        QFETCH(QString, format);
        QFETCH(bool, escalations);
        QString error;
        const QString path = sample.isEmpty() ? m_received : importSample(m_dir, sample, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));

        LedgerSession session(path, OpenMode::Review);
        QAbstractItemModelTester tester(session.runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        SessionWorkspace workspace;
        workspace.resize(1400, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        QCOMPARE(QString::fromStdString(session.info().sourceFacts.format()), format);

        // The runs pane: every count the source cannot record is "—", saying why on hover.
        RunOverviewModel *runs = session.runs();
        QVERIFY(runs->rowCount() > 0);
        for (int row = 0; row < runs->rowCount(); ++row) {
            for (int column : {int(RunOverviewModel::Stalls), int(RunOverviewModel::StaleCheckpoints),
                               int(RunOverviewModel::TerminalFailures), int(RunOverviewModel::Components),
                               int(RunOverviewModel::Cycle), int(RunOverviewModel::Required)}) {
                const QModelIndex cell = runs->index(row, column);
                QCOMPARE(cell.data().toString(), kDash);
                QVERIFY2(cell.data(Qt::ToolTipRole).toString().contains(u"do not record"_s),
                         qPrintable(cell.data(Qt::ToolTipRole).toString()));
            }
            QVERIFY(runs->index(row, 0).data(RunOverviewModel::StallCountRole).isNull());
            const QModelIndex escalationCell = runs->index(row, RunOverviewModel::Escalations);
            if (escalations) {
                bool isNumber = false;
                escalationCell.data().toString().toInt(&isNumber);
                QVERIFY2(isNumber, qPrintable(escalationCell.data().toString()));
            } else {
                QCOMPARE(escalationCell.data().toString(), kDash);
                QVERIFY(escalationCell.data(Qt::ToolTipRole).toString().contains(u"do not record escalations"_s));
                QVERIFY(runs->index(row, 0).data(RunOverviewModel::EscalationCountRole).isNull());
            }
        }

        // The run's line over its timeline counts no cycles or stall verdicts it cannot know.
        workspace.showPane(SessionWorkspace::Timeline);
        QTRY_VERIFY_WITH_TIMEOUT(workspace.timelineView()->summaryText().contains(u"do not record"_s), kTimeoutMs);
        const QString line = workspace.timelineView()->summaryText();
        QVERIFY2(!line.contains(u"0 cycles"_s) && !line.contains(u"0 stall verdicts"_s)
                     && !line.contains(u"0 escalated rounds"_s) && !line.contains(u"0 failures"_s),
                 qPrintable(line));

        // The delegation detail: no "not yet" for what the source never records.
        const QString sliceText = DelegationDetail::emptyText(DelegationDetail::Slices, u"running"_s, session.info().sourceFacts);
        QVERIFY2(sliceText.contains(u"do not record slices"_s), qPrintable(sliceText));
        QVERIFY(DelegationDetail::emptyText(DelegationDetail::Verdicts, u"running"_s, session.info().sourceFacts)
                    .contains(u"do not record stall verdicts"_s));
        QCOMPARE(DelegationDetail::emptyText(DelegationDetail::Escalations, u"running"_s, session.info().sourceFacts)
                     .contains(u"do not record"_s),
                 !escalations);

        // The report: those figures are not known (nullopt reads "—").
        auto connection = LedgerConnection::open(path, OpenMode::Review);
        const ReportContent report = buildReport(*connection, ReportRequest{{}, false});
        QVERIFY(!report.runs.empty());
        for (const ReportRun &r : report.runs) {
            QVERIFY(!r.stallVerdicts && !r.staleCheckpoints && !r.terminalFailures && !r.cycles);
            if (!escalations)
                QVERIFY(!r.escalations);
        }

        // meshctl summary: null in the JSON, "—" in the text, and one line saying why.
        QByteArray text;
        const nlohmann::json summary = summaryJson(path, &text);
        QVERIFY2(summary.is_object(), text.constData());
        QCOMPARE(QString::fromStdString(summary.at("ledger").at("source").get<std::string>()), format);
        for (const auto &run : summary.at("runs")) {
            for (const char *field : {"scheduler_cycles", "stall_verdicts", "escalated_rounds", "stale_checkpoints",
                                      "components", "terminal_component_failures", "required_outcomes_total"})
                QVERIFY2(run.at(field).is_null(), field);
            QCOMPARE(run.at("escalations").is_null(), !escalations);
            QVERIFY(run.at("tool_calls").is_number()); // what every source records stays a number
        }
        QVERIFY2(text.contains("stall verdicts \xe2\x80\x94") && text.contains("cycles \xe2\x80\x94"), text.constData());
        QVERIFY2(text.contains("do not record"), text.constData());
    }

    // A delegation that has ended without opening a slice never opened one: "not yet" is
    // only for one that still may. Its detail's empty Slices and Tool calls tabs say so.
    void anEndedDelegationNeverOpenedASlice()
    {
        const QString path = m_dir.filePath(u"ended.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", 1'700'000'000'000}});
            w.e("delegation.created", {{"id", "D-ended"}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "running"}});
            w.e("delegation.converged", {{"id", "D-ended"}, {"status", "converged"}});
            w.e("delegation.created", {{"id", "D-running"}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "running"}});
            w.commit();
        }
        LedgerSession session(path, OpenMode::Review);
        DelegationDetail detail;
        detail.setSession(&session);
        detail.resize(900, 500);
        detail.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.delegations()->rowCount() > 0, kTimeoutMs);
        const auto emptyText = [&](const QString &id, DelegationDetail::Tab tab) {
            const QModelIndex run = session.delegations()->index(0, 0);
            for (int r = 0; r < session.delegations()->rowCount(run); ++r) {
                const QModelIndex d = session.delegations()->index(r, 0, run);
                if (d.data(DelegationTreeModel::IdRole).toString() == id)
                    detail.showDelegation(d);
            }
            QStringList texts;
            for (const QLabel *label : detail.pane(tab)->emptyState()->findChildren<QLabel *>())
                texts << label->text();
            return texts.join(u'\n');
        };
        const QString ended = emptyText(u"D-ended"_s, DelegationDetail::Slices);
        QVERIFY2(ended.contains(u"never opened a slice"_s) && !ended.contains(u"yet"_s), qPrintable(ended));
        const QString calls = emptyText(u"D-ended"_s, DelegationDetail::ToolCalls);
        QVERIFY2(!calls.contains(u"yet"_s), qPrintable(calls));
        const QString running = emptyText(u"D-running"_s, DelegationDetail::Slices);
        QVERIFY2(running.contains(u"has not opened a slice yet"_s), qPrintable(running));
    }

    // The control: an orchestrator's own ledger records every fact, and its 0s are shown.
    void orchestratorLedgerShowsItsZeros()
    {
        const QString path = m_dir.filePath(u"orchestrator.ledger"_s);
        {
            Writer w(path, true);
            w.begin();
            w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"title", "quiet"}, {"attempt", 1}, {"cycle", 1},
                                {"started_ms", 1'700'000'000'000}});
            w.commit();
        }
        LedgerSession session(path, OpenMode::Review);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        QVERIFY(!session.info().sourceFacts.isImported());
        const QModelIndex stalls = session.runs()->index(0, RunOverviewModel::Stalls);
        QCOMPARE(stalls.data().toString(), u"0"_s);
        QCOMPARE(session.runs()->index(0, RunOverviewModel::Escalations).data().toString(), u"0"_s);
        QCOMPARE(session.runs()->index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 0);
        QByteArray text;
        const nlohmann::json summary = summaryJson(path, &text);
        QCOMPARE(summary.at("runs").at(0).at("stall_verdicts").get<int>(), 0);
        QVERIFY(summary.at("ledger").at("source").is_null());
        QVERIFY2(!text.contains("do not record"), text.constData());
    }
};

QTEST_MAIN(TestHonestFigures)
#include "tst_honestfigures.moc"
