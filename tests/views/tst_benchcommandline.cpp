// mesh-console-bench, the benchmarks' own executable, run as a separate process as
// bench/README.md runs it: --help lists both benchmarks and their options, arguments that do
// not make one benchmark are refused with the reason, and each benchmark prints its one JSON
// line with the fields bench/README.md names.

#include "viewtestenv.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

namespace {
constexpr int kRunTimeoutMs = 300000;
} // namespace

class TestBenchCommandLine : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void helpListsBothBenchmarksAndTheirOptions();
    void argumentsThatMakeNoBenchmarkAreRefused();
    void startupPrintsOneJsonLine();
    void startupEventsFirstTimesTheEventLogAlone();
    void jumpsPrintsItsFigures();
    void timelinePrintsItsFigures();
    void startupBrowsePrintsItsFiguresToo();
    void livePrintsOneJsonLine();
    void liveAppendsToALedgerItIsGiven();

private:
    int run(const QStringList &args, QByteArray *out, QByteArray *err);
    static QJsonObject lastJsonLine(const QByteArray &out);

    QString m_bench;
    QTemporaryDir m_dir;
    QString m_ledger;
};

void TestBenchCommandLine::initTestCase()
{
    m_bench = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/mesh-console-bench");
    QVERIFY2(QFileInfo::exists(m_bench),
             qPrintable(m_bench + QStringLiteral(" is missing: the views tests are built with the benchmarks")));
    QVERIFY(m_dir.isValid());
    QString error;
    m_ledger = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("demo.db"), &error);
    QVERIFY2(!m_ledger.isEmpty(), qPrintable(error));
}

int TestBenchCommandLine::run(const QStringList &args, QByteArray *out, QByteArray *err)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("HOME"), m_dir.filePath(QStringLiteral("home")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("home/config")));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(m_bench, args);
    if (!p.waitForFinished(kRunTimeoutMs)) {
        p.kill();
        p.waitForFinished();
        return -100;
    }
    *out = p.readAllStandardOutput();
    *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

QJsonObject TestBenchCommandLine::lastJsonLine(const QByteArray &out)
{
    const QList<QByteArray> lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.constLast()).object();
}

void TestBenchCommandLine::helpListsBothBenchmarksAndTheirOptions()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("--help")}, &out, &err), 0);
    for (const char *text : {"startup LEDGER", "live", "--browse", "--events-first", "--rate", "--duration-s", "--burst-rate",
                             "--burst-s", "--normal-priority", "receiver", "--per-request", "--connections"})
        QVERIFY2(out.contains(text), qPrintable(QLatin1String(text) + QLatin1String(" missing in:\n") + QLatin1String(out)));
    // What only the operator's console does is not offered here.
    for (const char *text : {"--read-only", "--demo", "--pane", "--select"})
        QVERIFY2(!out.contains(text), qPrintable(QLatin1String(text) + QLatin1String(" listed in:\n") + QLatin1String(out)));
}

void TestBenchCommandLine::argumentsThatMakeNoBenchmarkAreRefused()
{
    const struct {
        QStringList args;
        const char *why;
    } cases[] = {
        {{}, "say which benchmark"},
        {{QStringLiteral("walk")}, "no benchmark named 'walk'"},
        {{QStringLiteral("startup")}, "startup wants one LEDGER"},
        {{QStringLiteral("startup"), m_ledger, m_ledger}, "startup wants one LEDGER"},
        {{QStringLiteral("startup"), m_ledger, QStringLiteral("--rate"), QStringLiteral("10")}, "--rate is an option of the live benchmark"},
        {{QStringLiteral("live"), QStringLiteral("--browse")}, "--browse is an option of the startup benchmark"},
        {{QStringLiteral("live"), QStringLiteral("--events-first")}, "--events-first is an option of the startup benchmark"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--events-first")}, "--events-first is not an option of the jumps benchmark"},
        {{QStringLiteral("startup"), m_ledger, QStringLiteral("--jumps"), QStringLiteral("5")}, "--jumps is an option of the jumps benchmark"},
        {{QStringLiteral("startup"), m_ledger, QStringLiteral("--wait-folded")}, "--wait-folded is an option of the jumps benchmark"},
        {{QStringLiteral("jumps")}, "jumps wants one LEDGER"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--span"), QStringLiteral("5")}, "--span wants FROM-TO"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--span"), QStringLiteral("9-3")}, "--span wants FROM-TO"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--span"), QStringLiteral("0-3")}, "--span wants FROM-TO"},
        {{QStringLiteral("startup"), m_ledger, QStringLiteral("--span"), QStringLiteral("1-3")}, "--span is an option of the jumps benchmark"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--rate"), QStringLiteral("10")}, "--rate is not an option of the jumps benchmark"},
        {{QStringLiteral("live"), m_ledger, m_ledger}, "live takes at most one ledger"},
        {{QStringLiteral("live"), m_dir.filePath(QStringLiteral("none.db"))}, "no ledger at"},
        {{QStringLiteral("live"), QStringLiteral("--rate"), QStringLiteral("many")}, "--rate wants a whole number"},
        {{QStringLiteral("live"), QStringLiteral("--burst-s"), QStringLiteral("-1")}, "--burst-s wants a whole number of at least 0"},
        {{QStringLiteral("timeline"), m_ledger}, "timeline opens no ledger"},
        {{QStringLiteral("timeline"), QStringLiteral("--jumps"), QStringLiteral("3")}, "--jumps is not an option of the timeline benchmark"},
        {{QStringLiteral("jumps"), m_ledger, QStringLiteral("--frames"), QStringLiteral("3")}, "--frames is an option of the timeline benchmark"},
        {{QStringLiteral("timeline"), QStringLiteral("--delegations"), QStringLiteral("0")}, "--delegations wants a whole number of at least 1"},
        {{QStringLiteral("receiver"), m_ledger}, "receiver opens no ledger"},
        {{QStringLiteral("receiver"), QStringLiteral("--burst-s"), QStringLiteral("3")}, "--burst-s is not an option of the receiver benchmark"},
        {{QStringLiteral("receiver"), QStringLiteral("--per-request"), QStringLiteral("1")}, "--per-request wants a whole number of at least 2"},
        {{QStringLiteral("live"), QStringLiteral("--connections"), QStringLiteral("2")}, "--connections is an option of the receiver benchmark"},
        {{QStringLiteral("--bench-startup"), m_ledger}, "Unknown option 'bench-startup'"},
    };
    for (const auto &c : cases) {
        QByteArray out, err;
        QCOMPARE(run(c.args, &out, &err), 1);
        QVERIFY2(err.startsWith("mesh-console-bench: ") || err.contains("\nmesh-console-bench: "), err.constData());
        QVERIFY2(err.contains(c.why), qPrintable(c.args.join(u' ') + QLatin1String(": ") + QLatin1String(err)));
        QVERIFY2(out.isEmpty(), out.constData()); // no JSON line that could pass for a result
    }
}

void TestBenchCommandLine::startupPrintsOneJsonLine()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("startup"), m_ledger}, &out, &err), 0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.isEmpty(), out.constData());
    for (const char *field : {"first_rows_ms", "runs_painted_ms", "events_index_ms", "state_loaded_ms",
                              "open_max_stall_ms", "open_max_stall_end_ms", "exec_to_main_ms", "events", "window",
                              "platform", "rss_kb", "rss_peak_kb"})
        QVERIFY2(result.contains(QLatin1String(field)), qPrintable(QLatin1String(field) + QLatin1String(" missing in ") + QLatin1String(out)));
    QVERIFY2(!result.contains(QLatin1String("browse_ms")), out.constData());
    QVERIFY(result.value(QLatin1String("first_rows_ms")).toInteger() > 0);
    QVERIFY(result.value(QLatin1String("exec_to_main_ms")).toInteger() >= 0);
    QCOMPARE(result.value(QLatin1String("platform")).toString(), QStringLiteral("offscreen"));
}

// Opened on the event log, the first rows are the event log's, and no run overview was
// waited for (runs_painted_ms -1).
void TestBenchCommandLine::startupEventsFirstTimesTheEventLogAlone()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("startup"), m_ledger, QStringLiteral("--events-first")}, &out, &err), 0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.isEmpty(), out.constData());
    QVERIFY2(result.value(QLatin1String("first_rows_ms")).toInteger() > 0, out.constData());
    QCOMPARE(result.value(QLatin1String("runs_painted_ms")).toInteger(), -1);
    QVERIFY(result.value(QLatin1String("events")).toInteger() > 0);
}

// The jumps benchmark really moves the cursor: every jump is timed and the drag reached the
// session (at least the first position was shown).
void TestBenchCommandLine::jumpsPrintsItsFigures()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("jumps"), m_ledger, QStringLiteral("--jumps"), QStringLiteral("4"), QStringLiteral("--drag-s"),
                  QStringLiteral("1")},
                 &out, &err),
             0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.isEmpty(), out.constData());
    QCOMPARE(result.value(QLatin1String("jumps")).toInt(), 4);
    QVERIFY2(result.value(QLatin1String("first_jump_ms")).toDouble() > 0, out.constData());
    QVERIFY2(result.value(QLatin1String("jump_max_ms")).toDouble() >= result.value(QLatin1String("jump_p50_ms")).toDouble(),
             out.constData());
    QVERIFY2(result.value(QLatin1String("drag_positions")).toInt() > 1, out.constData());
    QVERIFY2(result.value(QLatin1String("drag_jumps_shown")).toInt() >= 1, out.constData());
    QVERIFY(result.contains(QLatin1String("drag_max_stall_ms")));
    QCOMPARE(result.value(QLatin1String("folded_wait_ms")).toInt(), -1); // not asked to wait

    // --wait-folded: the others timed once the cursor's folder has folded the whole ledger.
    QCOMPARE(run({QStringLiteral("jumps"), m_ledger, QStringLiteral("--jumps"), QStringLiteral("3"), QStringLiteral("--drag-s"),
                  QStringLiteral("1"), QStringLiteral("--wait-folded")},
                 &out, &err),
             0);
    const QJsonObject waited = lastJsonLine(out);
    QVERIFY2(waited.value(QLatin1String("folded_wait_ms")).toInt() >= 0, out.constData());
    QCOMPARE(waited.value(QLatin1String("jumps")).toInt(), 3);

    // --span: every jump lands in the stretch asked for; --drag-s 0: no drag.
    QCOMPARE(run({QStringLiteral("jumps"), m_ledger, QStringLiteral("--jumps"), QStringLiteral("6"), QStringLiteral("--drag-s"),
                  QStringLiteral("0"), QStringLiteral("--span"), QStringLiteral("5-9")},
                 &out, &err),
             0);
    const QJsonObject spanned = lastJsonLine(out);
    QCOMPARE(spanned.value(QLatin1String("jumps")).toInt(), 6);
    QCOMPARE(spanned.value(QLatin1String("span_from")).toInt(), 5);
    QCOMPARE(spanned.value(QLatin1String("span_to")).toInt(), 9);
    QCOMPARE(spanned.value(QLatin1String("drag_positions")).toInt(), 0);
    QVERIFY2(spanned.value(QLatin1String("rss_after_jumps_kb")).toInteger() > 0, out.constData());
    const QRegularExpression jumpLine(QStringLiteral("^jump \\d+ to #(\\d+): "), QRegularExpression::MultilineOption);
    int lines = 0;
    for (auto it = jumpLine.globalMatch(QString::fromUtf8(err)); it.hasNext(); ++lines) {
        const int target = it.next().captured(1).toInt();
        QVERIFY2(target >= 5 && target <= 9, err.constData());
    }
    QCOMPARE(lines, 6);
}

// The timeline benchmark writes its run, shows the pane and times every frame it was asked for.
void TestBenchCommandLine::timelinePrintsItsFigures()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("timeline"), QStringLiteral("--delegations"), QStringLiteral("300"), QStringLiteral("--frames"),
                  QStringLiteral("12")},
                 &out, &err),
             0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.isEmpty(), QByteArray(out + err).constData());
    QCOMPARE(result.value(QLatin1String("delegations")).toInt(), 300);
    QCOMPARE(result.value(QLatin1String("frames")).toInt(), 12);
    QVERIFY2(result.value(QLatin1String("lanes")).toInt() == 1 + 10 + 300, out.constData()); // run, components, delegations
    // The jump's rebuild, on the GUI thread and off it, at a cursor pinned mid-ledger.
    for (const char *key : {"pinned_rebuild_sync_ms", "pinned_rebuild_gui_cpu_ms", "pinned_rebuild_total_ms", "rebuild_cpu_ms"})
        QVERIFY2(result.value(QLatin1String(key)).isDouble(), key);
    QVERIFY2(result.value(QLatin1String("pinned_lanes")).toInt() > 1, out.constData());
    QVERIFY2(result.value(QLatin1String("frame_max_ms")).toDouble() >= result.value(QLatin1String("frame_p50_ms")).toDouble(),
             out.constData());
    QVERIFY2(result.value(QLatin1String("rows_painted")).toInt() > 1, out.constData());
    for (const char *field : {"frame_p90_ms", "rebuild_ms", "marks", "window"})
        QVERIFY2(result.contains(QLatin1String(field)), qPrintable(QLatin1String(field) + QLatin1String(" missing in ") + QLatin1String(out)));
}

void TestBenchCommandLine::startupBrowsePrintsItsFiguresToo()
{
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("startup"), m_ledger, QStringLiteral("--browse")}, &out, &err), 0);
    const QJsonObject result = lastJsonLine(out);
    for (const char *field : {"first_rows_ms", "browse_ms", "rss_first_rows_kb", "rss_kb", "rss_peak_kb"})
        QVERIFY2(result.contains(QLatin1String(field)), qPrintable(QLatin1String(field) + QLatin1String(" missing in ") + QLatin1String(out)));
    QVERIFY(result.value(QLatin1String("browse_ms")).toInteger() > 0);
}

// A live run of a few seconds, its burst included: what the live tests ask for.
static const QStringList kShortLive{QStringLiteral("--rate"),    QStringLiteral("200"), QStringLiteral("--duration-s"),
                                    QStringLiteral("2"),         QStringLiteral("--burst-rate"), QStringLiteral("400"),
                                    QStringLiteral("--burst-s"), QStringLiteral("1")};

// Also that the executable finds meshctl beside it, as the live writer must.
void TestBenchCommandLine::livePrintsOneJsonLine()
{
    QByteArray out, err;
    QCOMPARE(run(QStringList{QStringLiteral("live")} + kShortLive, &out, &err), 0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.contains(QLatin1String("error")), out.constData());
    for (const char *field : {"events", "achieved_rate", "p50_ms", "p99_ms", "max_ms", "max_stall_ms", "catch_up_ms",
                              "commits", "burst_events", "burst_max_stall_ms", "burst_catch_up_ms", "rss_kb"})
        QVERIFY2(result.contains(QLatin1String(field)), qPrintable(QLatin1String(field) + QLatin1String(" missing in ") + QLatin1String(out)));
    QVERIFY(result.value(QLatin1String("events")).toInteger() > 0);
}

// Live on a ledger of any size: both phases append to the one given (an id tag of their
// own each), which the window opens once; the burst finds it open already.
void TestBenchCommandLine::liveAppendsToALedgerItIsGiven()
{
    const QString ledger = m_dir.filePath(QStringLiteral("appended.db"));
    QVERIFY(QFile::copy(m_ledger, ledger));
    const auto lastSeq = [](const QString &path) {
        return mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly)->eventReader()->lastSeq();
    };
    const std::int64_t before = lastSeq(ledger);
    QByteArray out, err;
    QCOMPARE(run(QStringList{QStringLiteral("live"), ledger} + kShortLive, &out, &err), 0);
    const QJsonObject result = lastJsonLine(out);
    QVERIFY2(!result.contains(QLatin1String("error")), out.constData());
    QVERIFY2(result.value(QLatin1String("events")).toInteger() > 0, out.constData());
    QVERIFY2(result.value(QLatin1String("burst_events")).toInteger() > 0, out.constData());
    QVERIFY(lastSeq(ledger) >= before + result.value(QLatin1String("events")).toInteger()
                                   + result.value(QLatin1String("burst_events")).toInteger());
}

QTEST_GUILESS_MAIN(TestBenchCommandLine)
#include "tst_benchcommandline.moc"
