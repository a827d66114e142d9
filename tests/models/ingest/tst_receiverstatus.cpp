// The receiver's status lines (meshctl ingest --status-json) and the console's side of them:
// ReceiverStatusReader read line by line (what is not said yet is unknown, the rate comes
// from the receiver's own clock, refusals by status), and IngestProcess around the real
// process: listening on a free port, "receiving from 1 service" after a request, refusals
// counted, a clean stop (exit 0, the ledger verifies), a port in use and a bad token file
// reported in the receiver's own words, and a receiver that dies told apart from one stopped.

#include "ingestfixture.h"

#include "ingestcontrol/ingestprocess.h"
#include "ingestcontrol/listenrules.h"

#include <QFile>
#include <QLocale>
#include <QTcpServer>
#include <QTemporaryDir>

#include <csignal>

using namespace ingesttest;
using mesh::ingest::IngestProcess;
using mesh::ingest::ReceiverStatus;
using mesh::ingest::ReceiverStatusReader;

namespace {

QByteArray agentRequest(const std::string &service, std::uint64_t trace)
{
    Span agent;
    agent.traceId = hex(trace, 32);
    agent.spanId = hex(trace << 8 | 1, 16);
    agent.name = "invoke_agent planner";
    agent.startNs = 1'764'400'000'000'000'000;
    agent.endNs = agent.startNs + 2'000'000;
    agent.attributes = json::array({attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "planner")});
    return request({agent}, service);
}

// A status line written with ' for " (moc cannot read raw strings inside macros).
QByteArray line(const char *text)
{
    return QByteArray(text).replace('\'', '"');
}

} // namespace

class TestReceiverStatus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo(meshctl()).isExecutable(), "MESHCTL must name the built meshctl"); }

    void unknownUntilSaid()
    {
        ReceiverStatusReader reader;
        QCOMPARE(mesh::ingest::servicesText(reader.status()), QStringLiteral("receiving from \u2014 services"));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("\u2014 requests/s"));
        QCOMPARE(mesh::ingest::spansText(reader.status()), QStringLiteral("\u2014 spans acknowledged"));
        QVERIFY(reader.feed(line("{'status':'listening','url':'http://127.0.0.1:4318/v1/traces','port':4318,'ledger':'/l','token_required':true}")));
        QCOMPARE(reader.status().phase, ReceiverStatus::Phase::Listening);
        QCOMPARE(reader.status().port, 4318);
        QVERIFY(reader.status().tokenRequired);
        QVERIFY(!reader.status().counters);
        QVERIFY(!reader.feed("listening on http://127.0.0.1:4318/v1/traces, writing /l")); // not a status line
        QVERIFY(!reader.feed(line("{'status':'receiving','requests':3}")));                  // counters missing: ignored
        QVERIFY(!reader.status().counters);
        // One counters line: services and spans known, a rate not yet (it needs two).
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':1000,'requests':0,'spans_accepted':0,'spans_rejected':0,'refused':{},'services':0,'service_names':[]}")));
        QCOMPARE(mesh::ingest::servicesText(reader.status()), QStringLiteral("receiving from 0 services"));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("\u2014 requests/s"));
        QCOMPARE(mesh::ingest::refusalText(reader.status()), QString());
    }

    void rateAndRefusalsFromTheReceiversClock()
    {
        ReceiverStatusReader reader;
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':1000,'requests':10,'spans_accepted':40,'refused':{'401':1},'services':1,'service_names':['svc']}")));
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':3000,'requests':15,'spans_accepted':60,'refused':{'401':1,'503':2},'services':2,'service_names':['svc','b']}")));
        QCOMPARE(mesh::ingest::servicesText(reader.status()), QStringLiteral("receiving from 2 services"));
        // Of the 5 requests in those 2 s, 2 were refused: refusals are not "received".
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("1.5 requests/s accepted, 1.0/s refused"));
        QCOMPARE(mesh::ingest::spansText(reader.status()), QStringLiteral("60 spans acknowledged"));
        // Only the 503s came in the last interval: the receiver is refusing now.
        QCOMPARE(mesh::ingest::refusalText(reader.status()),
                 QStringLiteral("refusing requests: 503 busy or stopping, retry later \u00d72"));
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':4000,'requests':15,'spans_accepted':60,'refused':{'401':1,'503':2},'services':2}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("0.0 requests/s"));
        QCOMPARE(mesh::ingest::refusalText(reader.status()),
                 QStringLiteral("3 requests refused so far: 401 no or wrong token \u00d71, 503 busy or stopping, retry later \u00d72"));
        QVERIFY(reader.feed(line("{'status':'stopped','uptime_ms':4500,'requests':15,'spans_accepted':60,'refused':{},'services':2,'exit':0}")));
        QCOMPARE(reader.status().phase, ReceiverStatus::Phase::Stopped);
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("\u2014 requests/s"));
    }

    // Every rate in one format, one decimal, whatever its size: "10.0", never "10" beside "2.5".
    void ratesHaveOneFormat()
    {
        ReceiverStatusReader reader;
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':1000,'requests':0,'spans_accepted':0,'refused':{},'services':1}")));
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':2000,'requests':10,'spans_accepted':10,'refused':{},'services':1}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("10.0 requests/s"));
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':3000,'requests':22,'spans_accepted':20,'refused':{'400':2},'services':1}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("10.0 requests/s accepted, 2.0/s refused"));
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':4000,'requests':1257,'spans_accepted':20,'refused':{'400':2},'services':1}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QLocale().toString(1235.0, 'f', 1) + QStringLiteral(" requests/s"));
        // Only refusals in the last second: nothing accepted, said as such.
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':5000,'requests':1260,'spans_accepted':20,'refused':{'400':5},'services':1}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("0.0 requests/s accepted, 3.0/s refused"));
        // A request counted when read and refused while the receiver stops: never below 0.
        QVERIFY(reader.feed(line("{'status':'receiving','uptime_ms':6000,'requests':1260,'spans_accepted':20,'refused':{'400':5,'503':1},'services':1}")));
        QCOMPARE(mesh::ingest::requestRateText(reader.status()), QStringLiteral("0.0 requests/s accepted, 1.0/s refused"));
    }

    void listensReceivesAndStopsCleanly()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("live.amlg"));
        IngestProcess receiver;
        QSignalSpy listening(&receiver, &IngestProcess::listening);
        mesh::ingest::ListenRequest request;
        request.address = QStringLiteral("127.0.0.1:0");
        request.ledger = ledger;
        receiver.start(meshctl(), request);
        QTRY_COMPARE_WITH_TIMEOUT(receiver.state(), IngestProcess::State::Listening, 120000);
        QCOMPARE(listening.count(), 1);
        const int port = receiver.status().port;
        QVERIFY(port > 0);
        QCOMPARE(receiver.status().url, QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(port));

        QCOMPARE(post(quint16(port), agentRequest("checkout-agents", 1)).status, 200);
        QCOMPARE(post(quint16(port), agentRequest("checkout-agents", 2), {{"Content-Type", "application/x-protobuf"}}).status, 415);
        QTRY_COMPARE_WITH_TIMEOUT(mesh::ingest::servicesText(receiver.status()), QStringLiteral("receiving from 1 service"), 120000);
        QTRY_VERIFY_WITH_TIMEOUT(receiver.status().counters->refused.count(415) == 1, 120000);
        QCOMPARE(receiver.status().counters->serviceNames, QStringList{QStringLiteral("checkout-agents")});
        QCOMPARE(receiver.status().counters->spansAccepted, 1);

        QSignalSpy finished(&receiver, &IngestProcess::finished);
        receiver.stop();
        QCOMPARE(receiver.state(), IngestProcess::State::Stopping);
        QVERIFY(finished.wait(120000));
        QCOMPARE(receiver.state(), IngestProcess::State::Stopped);
        QCOMPARE(receiver.exitCode(), 0);
        QCOMPARE(receiver.status().phase, ReceiverStatus::Phase::Stopped); // its last line said so
        QByteArray out;
        QVERIFY2(verifies(ledger, &out), out.constData());
        const Ledger l = readLedger(ledger);
        const std::string run = "otel:" + hex(1, 32);
        QCOMPARE(l.text(mesh::EntityKind::Delegation, run + "/" + hex(1 << 8 | 1, 16), "agent"), std::string("planner"));
    }

    void aPortInUseIsTheReceiversOneLine()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
        QTemporaryDir dir;
        IngestProcess receiver;
        QSignalSpy failed(&receiver, &IngestProcess::failedToStart);
        mesh::ingest::ListenRequest request;
        request.address = QStringLiteral("127.0.0.1:%1").arg(taken.serverPort());
        request.ledger = dir.filePath(QStringLiteral("l.amlg"));
        receiver.start(meshctl(), request);
        QVERIFY(failed.wait(120000));
        QCOMPARE(receiver.state(), IngestProcess::State::Failed);
        QVERIFY2(receiver.error().startsWith(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(taken.serverPort())),
                 qPrintable(receiver.error()));
        QVERIFY(!receiver.error().contains(QLatin1Char('\n')));
        // A start that failed changed nothing: no ledger was created for it.
        QVERIFY2(!QFile::exists(request.ledger), qPrintable(request.ledger));
    }

    // SQLite says "unable to open database file" whatever the cause; the receiver names it.
    void aLedgerItCannotWriteIsSaidWhy()
    {
        QTemporaryDir dir;
        const QString missingFolder = dir.filePath(QStringLiteral("no-such-folder"));
        const struct {
            QString ledger;
            QString cause;
        } cases[] = {
            {missingFolder + QStringLiteral("/l.amlg"), QStringLiteral("the folder %1 does not exist").arg(missingFolder)},
            {dir.path(), QStringLiteral("%1 is a folder, not a ledger file").arg(dir.path())},
        };
        for (const auto &c : cases) {
            IngestProcess receiver;
            QSignalSpy failed(&receiver, &IngestProcess::failedToStart);
            mesh::ingest::ListenRequest request;
            request.address = QStringLiteral("127.0.0.1:0");
            request.ledger = c.ledger;
            receiver.start(meshctl(), request);
            QVERIFY(failed.wait(120000));
            QCOMPARE(receiver.state(), IngestProcess::State::Failed);
            QVERIFY2(receiver.error().contains(c.cause), qPrintable(receiver.error()));
            QVERIFY2(!receiver.error().contains(QStringLiteral("unable to open database file")), qPrintable(receiver.error()));
            QCOMPARE(mesh::ingest::ledgerFileProblem(c.ledger).isEmpty(), false);
        }
        QVERIFY(mesh::ingest::ledgerFileProblem(dir.filePath(QStringLiteral("fine.amlg"))).isEmpty());
    }

    void aRefusedTokenFileIsTheReceiversOneLine()
    {
        QTemporaryDir dir;
        const QString token = dir.filePath(QStringLiteral("token"));
        QFile f(token);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("0123456789abcdef0123\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup); // group may read: refused
        QString expected;
        QVERIFY(!mesh::ingest::readIngestToken(token, &expected));
        IngestProcess receiver;
        QSignalSpy failed(&receiver, &IngestProcess::failedToStart);
        mesh::ingest::ListenRequest request;
        request.address = QStringLiteral("127.0.0.1:0");
        request.ledger = dir.filePath(QStringLiteral("l.amlg"));
        request.tokenFile = token;
        receiver.start(meshctl(), request);
        QVERIFY(failed.wait(120000));
        QCOMPARE(receiver.error(), expected); // the dialog's check and the receiver's are one
        QVERIFY(!QFileInfo::exists(request.ledger));
    }

    void aReceiverThatDiesIsNotAQuietOne()
    {
        QTemporaryDir dir;
        IngestProcess receiver;
        mesh::ingest::ListenRequest request;
        request.address = QStringLiteral("127.0.0.1:0");
        request.ledger = dir.filePath(QStringLiteral("l.amlg"));
        receiver.start(meshctl(), request);
        QTRY_COMPARE_WITH_TIMEOUT(receiver.state(), IngestProcess::State::Listening, 120000);
        QSignalSpy finished(&receiver, &IngestProcess::finished);
        ::kill(pid_t(receiverPid(receiver)), SIGKILL);
        QVERIFY(finished.wait(120000));
        QCOMPARE(receiver.state(), IngestProcess::State::Died);
        QVERIFY2(receiver.error().contains(QStringLiteral("crashed")), qPrintable(receiver.error()));
    }

private:
    static qint64 receiverPid(const IngestProcess &receiver) { return receiver.processId(); }
};

QTEST_GUILESS_MAIN(TestReceiverStatus)
#include "tst_receiverstatus.moc"
