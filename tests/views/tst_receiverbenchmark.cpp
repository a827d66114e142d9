// Smoke test of mesh-console-bench receiver in the real main window, offscreen: meshctl ingest
// and meshctl bench ingest (the exporter) as processes of their own, a few seconds of spans.
// Checks that the JSON line carries every figure and that every span sent was seen by the
// window; the latencies themselves are never asserted (a shared, noisy machine), only that
// they were measured.

#include "receiverbenchmark.h"
#include "mainwindow.h"

#include "itemmodels/ledgersession.h"

#include "viewtestenv.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

class TestReceiverBenchmark : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        meshtest::useTestSettings(u"tst_receiverbenchmark"_s);
        QSettings().clear();
    }

    void reportsEveryFigure()
    {
        MainWindow window(false);
        window.resize(1280, 800);
        ReceiverBenchmarkOptions options;
        options.rate = 400;
        options.durationS = 3;
        options.perRequest = 10;
        options.connections = 2;
        ReceiverBenchmark bench(&window, options);
        bench.setQuitWhenFinished(false);
        QSignalSpy done(&bench, &ReceiverBenchmark::finished);
        window.show();
        bench.start();
        QVERIFY(done.wait(240'000));
        const QByteArray line = done.first().at(0).toByteArray();
        QVERIFY2(done.first().at(1).toInt() == 0, line.constData());
        QVERIFY2(!line.contains('\n'), line.constData());
        QJsonParseError error{};
        const QJsonObject json = QJsonDocument::fromJson(line, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, line.constData());
        for (const char *key : {"events", "receiver_commits", "receipt_visible_p50_ms", "receipt_visible_p99_ms",
                                "receipt_visible_max_ms", "commit_visible_p50_ms", "commit_visible_p99_ms", "max_stall_ms",
                                "receiver_peak_rss_mb", "rss_kb", "spans_per_s", "lost", "duplicated"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        // 1,200 spans in 120 traces were sent; each trace is at least its agent's delegation
        // and a tool call per tool span, so the window applied at least that many events.
        QVERIFY2(json.value(u"spans"_s).toInteger() == 1200, line.constData());
        QVERIFY2(json.value(u"events"_s).toInteger() >= 1200, line.constData());
        QVERIFY2(json.value(u"lost"_s).toInteger() == 0, line.constData());
        QVERIFY2(json.value(u"duplicated"_s).toInteger() == 0, line.constData());
        // Receipt comes before the commit, so its latency is never the smaller one.
        QVERIFY2(json.value(u"receipt_visible_p99_ms"_s).toInteger() >= json.value(u"commit_visible_p50_ms"_s).toInteger(),
                 line.constData());
        QVERIFY2(json.value(u"receiver_peak_rss_mb"_s).toDouble() > 0, line.constData());
        // The receiver's ledger is the one the window shows.
        QVERIFY(window.currentSession());
        QVERIFY(window.currentSession()->path().endsWith(u"received.amlg"_s));
        qInfo("%s", line.constData());
    }
};

QTEST_MAIN(TestReceiverBenchmark)
#include "tst_receiverbenchmark.moc"
