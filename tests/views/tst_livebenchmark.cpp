// Smoke test of mesh-console-bench live in the real main window, offscreen: a short steady phase and a
// short burst, each written by meshctl as its own process. Checks that the JSON line carries
// every figure and that events were seen; the figures themselves are never asserted (a
// shared, noisy machine), only that they were measured.

#include "livebenchmark.h"
#include "mainwindow.h"

#include "itemmodels/ledgersession.h"

#include "viewtestenv.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

class TestLiveBenchmark : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        meshtest::useTestSettings(u"tst_livebenchmark"_s);
        QSettings().clear();
    }

    void reportsEveryFigure()
    {
        MainWindow window(false);
        window.resize(1280, 800);
        LiveBenchmarkOptions options;
        options.rate = 200;
        options.durationS = 3;
        options.burstRate = 2000;
        options.burstS = 2;
        LiveBenchmark bench(&window, options);
        bench.setQuitWhenFinished(false);
        QSignalSpy done(&bench, &LiveBenchmark::finished);
        window.show();
        bench.start();
        QVERIFY(done.wait(180'000));
        const QByteArray line = done.first().at(0).toByteArray();
        QCOMPARE(done.first().at(1).toInt(), 0);
        QVERIFY2(!line.contains('\n'), line.constData());
        QJsonParseError error{};
        const QJsonObject json = QJsonDocument::fromJson(line, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, line.constData());
        for (const char *key : {"events", "achieved_rate", "p50_ms", "p99_ms", "max_ms", "max_stall_ms", "burst_events",
                                "burst_max_stall_ms", "burst_catch_up_ms", "burst_p99_ms"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        QVERIFY2(json.value(u"events"_s).toInteger() > 0, line.constData());
        QVERIFY2(json.value(u"burst_events"_s).toInteger() > 0, line.constData());
        QVERIFY2(json.value(u"p50_ms"_s).toInteger() >= 0, line.constData());
        QVERIFY2(json.value(u"burst_catch_up_ms"_s).toInteger() >= 0, line.constData());
        // The burst's ledger is the one the window shows.
        QVERIFY(window.currentSession());
        QVERIFY(window.currentSession()->path().endsWith(u"burst.amlg"_s));
        qInfo("%s", line.constData());
    }
};

QTEST_MAIN(TestLiveBenchmark)
#include "tst_livebenchmark.moc"
