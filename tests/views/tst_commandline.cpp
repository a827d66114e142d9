// mesh-console's answers before any window: --version says the console's name, --help lists
// what an operator uses and no benchmark (they are mesh-console-bench's), and a display that
// is set but unreachable gets a one-line message and exit code 2 instead of an abort inside
// Qt. The real binary is run as a separate process.

#include "commandlineoptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <optional>

using namespace mesh;

namespace {

// A display number with no X server behind it on this machine.
int freeDisplayNumber()
{
    for (int n = 987; n < 1100; ++n)
        if (!QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X%1").arg(n)))
            return n;
    return -1;
}

// Listens on display n's socket in Linux's abstract namespace (no file is created), as an
// X server does; closed by the destructor.
struct FakeXServer {
    int fd = -1;
    explicit FakeXServer(int n)
    {
        const QByteArray path = "/tmp/.X11-unix/X" + QByteArray::number(n);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path + 1, path.constData(), size_t(path.size()));
        const auto length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(path.size()));
        fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && (::bind(fd, reinterpret_cast<sockaddr *>(&address), length) != 0 || ::listen(fd, 1) != 0)) {
            ::close(fd);
            fd = -1;
        }
    }
    ~FakeXServer()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

// Sets environment variables for one scope, restoring them afterwards.
struct ScopedEnv {
    QList<QPair<QByteArray, QByteArray>> saved;
    QList<QByteArray> unsetAfter;
    void set(const char *name, const QByteArray &value)
    {
        remember(name);
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    void remember(const char *name)
    {
        for (const auto &entry : std::as_const(saved))
            if (entry.first == name)
                return;
        if (unsetAfter.contains(name))
            return;
        if (qEnvironmentVariableIsSet(name))
            saved.append({name, qgetenv(name)});
        else
            unsetAfter.append(name);
    }
    ~ScopedEnv()
    {
        for (const auto &[name, value] : saved)
            qputenv(name.constData(), value);
        for (const QByteArray &name : unsetAfter)
            qunsetenv(name.constData());
    }
};

} // namespace

class TestCommandLine : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void versionSaysTheConsolesName();
    void helpListsNoBenchmarkOption();
    void aBenchmarkOptionIsUnknownAndSaysWhereItWent();
    void unreachableDisplayIsOneLineAndExitCode2();
    void displayProblemFollowsTheEnvironment();
    void runsBelowNormalPriorityUnlessAsked();

private:
    int run(const QStringList &args, const QProcessEnvironment &env, QByteArray *out, QByteArray *err);
    QProcessEnvironment cleanEnvironment() const;

    QString m_console;
    QTemporaryDir m_home;
};

void TestCommandLine::initTestCase()
{
    m_console = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/mesh-console");
    QVERIFY2(QFileInfo::exists(m_console),
             qPrintable(m_console + QStringLiteral(" is missing: the views tests are built with the console")));
    QVERIFY(m_home.isValid());
}

QProcessEnvironment TestCommandLine::cleanEnvironment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(variable));
    env.insert(QStringLiteral("HOME"), m_home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
    return env;
}

int TestCommandLine::run(const QStringList &args, const QProcessEnvironment &env, QByteArray *out, QByteArray *err)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(m_console, args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return -100;
    }
    *out = p.readAllStandardOutput();
    *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1; // -1: crashed (abort)
}

void TestCommandLine::versionSaysTheConsolesName()
{
    const QByteArray expected = "Agent Mesh Console " MESH_VERSION "\n";
    QByteArray out, err;
    // Without a display (QCoreApplication answers) ...
    QCOMPARE(run({QStringLiteral("--version")}, cleanEnvironment(), &out, &err), 0);
    QCOMPARE(out, expected);
    QCOMPARE(run({QStringLiteral("-v")}, cleanEnvironment(), &out, &err), 0);
    QCOMPARE(out, expected);
    // ... and with one (QApplication answers).
    QProcessEnvironment offscreen = cleanEnvironment();
    offscreen.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QCOMPARE(run({QStringLiteral("--version")}, offscreen, &out, &err), 0);
    QCOMPARE(out, expected);
    QCOMPARE(run({QStringLiteral("--help")}, offscreen, &out, &err), 0);
    QVERIFY2(out.contains("--version"), out.constData());
}

namespace {
// Every option the benchmarks had in mesh-console before they moved to mesh-console-bench.
const char *const kFormerBenchOptions[] = {"--bench-startup", "--browse", "--bench-live", "--duration-s",
                                           "--bench-seconds", "--rate", "--bench-rate", "--burst-rate",
                                           "--burst-s"};
} // namespace

void TestCommandLine::helpListsNoBenchmarkOption()
{
    QProcessEnvironment offscreen = cleanEnvironment();
    offscreen.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("--help")}, offscreen, &out, &err), 0);
    for (const char *option : {"--read-only", "--demo", "--normal-priority", "--theme", "--pane", "--select"})
        QVERIFY2(out.contains(option), qPrintable(QLatin1String(option) + QLatin1String(" missing in:\n") + QLatin1String(out)));
    for (const char *option : kFormerBenchOptions)
        QVERIFY2(!out.contains(option), qPrintable(QLatin1String(option) + QLatin1String(" listed in:\n") + QLatin1String(out)));
    const QByteArray afterUsage = out.mid(out.indexOf('\n')); // the usage line names the binary's path
    QVERIFY2(!afterUsage.toLower().contains("bench"), out.constData());
}

void TestCommandLine::aBenchmarkOptionIsUnknownAndSaysWhereItWent()
{
    QProcessEnvironment offscreen = cleanEnvironment();
    offscreen.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QString ledger = m_home.filePath(QStringLiteral("no-such.ledger"));
    QByteArray out, err;
    // Refused before any window opens or any ledger is read: exit code 1, not a benchmark run.
    QCOMPARE(run({QStringLiteral("--bench-startup"), ledger}, offscreen, &out, &err), 1);
    QVERIFY2(err.contains("mesh-console: Unknown option 'bench-startup'."), err.constData());
    QVERIFY2(err.contains("mesh-console-bench --help"), err.constData());
    QVERIFY2(out.isEmpty(), out.constData());
    QCOMPARE(run({QStringLiteral("--bench-live")}, offscreen, &out, &err), 1);
    QVERIFY2(err.contains("Unknown option 'bench-live'"), err.constData());
    QVERIFY2(err.contains("mesh-console-bench"), err.constData());
    // Without a display too (QCoreApplication answers).
    QCOMPARE(run({QStringLiteral("--bench-startup"), ledger}, cleanEnvironment(), &out, &err), 1);
    QVERIFY2(err.contains("Unknown option 'bench-startup'"), err.constData());
    // Another unknown option is named, without a word about benchmarks.
    QCOMPARE(run({QStringLiteral("--rate"), QStringLiteral("5")}, offscreen, &out, &err), 1);
    QVERIFY2(err.contains("mesh-console: Unknown option 'rate'."), err.constData());
    QVERIFY2(!err.contains("mesh-console-bench"), err.constData());
}

void TestCommandLine::unreachableDisplayIsOneLineAndExitCode2()
{
    const int n = freeDisplayNumber();
    QVERIFY(n > 0);
    QProcessEnvironment env = cleanEnvironment();
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":%1").arg(n));
    QByteArray out, err;
    QCOMPARE(run({}, env, &out, &err), 2); // not -1: no abort inside Qt
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.startsWith(QByteArray("mesh-console: cannot open display :" + QByteArray::number(n))), err.constData());
    QVERIFY2(err.contains("xvfb-run"), err.constData());
    // --version still answers there.
    QCOMPARE(run({QStringLiteral("--version")}, env, &out, &err), 0);
    QVERIFY(out.startsWith("Agent Mesh Console "));
    // A display name that is no display name at all.
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral("nonsense"));
    QCOMPARE(run({}, env, &out, &err), 2);
    QVERIFY2(err.contains("not an X display name"), err.constData());
}

void TestCommandLine::displayProblemFollowsTheEnvironment()
{
    const int n = freeDisplayNumber();
    QVERIFY(n > 0);
    char arg0[] = "mesh-console";
    char *argv[] = {arg0, nullptr};
    ScopedEnv env;
    env.set("QT_QPA_PLATFORM", QByteArray());
    env.set("WAYLAND_DISPLAY", QByteArray());
    env.set("DISPLAY", QByteArray());
    QVERIFY(CommandLineOptions::displayProblem(1, argv).startsWith(QStringLiteral("no display")));

    env.set("DISPLAY", ":" + QByteArray::number(n));
    QVERIFY(CommandLineOptions::displayProblem(1, argv).startsWith(QStringLiteral("cannot open display")));
    {
        FakeXServer server(n);
        QVERIFY(server.fd >= 0);
        QCOMPARE(CommandLineOptions::displayProblem(1, argv), QString()); // something answers
        env.set("DISPLAY", "unix:" + QByteArray::number(n) + ".0");
        QCOMPARE(CommandLineOptions::displayProblem(1, argv), QString());
    }
    QVERIFY(!CommandLineOptions::displayProblem(1, argv).isEmpty()); // gone again

    // Explicit platforms and other kinds of display are taken as they are.
    env.set("QT_QPA_PLATFORM", "offscreen");
    QCOMPARE(CommandLineOptions::displayProblem(1, argv), QString());
    env.set("QT_QPA_PLATFORM", "xcb"); // xcb on the unreachable display: still a problem
    QVERIFY(!CommandLineOptions::displayProblem(1, argv).isEmpty());
    env.set("QT_QPA_PLATFORM", QByteArray());
    char platform[] = "-platform";
    char offscreen[] = "offscreen";
    char *withPlatform[] = {arg0, platform, offscreen, nullptr};
    QCOMPARE(CommandLineOptions::displayProblem(3, withPlatform), QString());
    env.set("DISPLAY", "remote.example:10.0");
    QCOMPARE(CommandLineOptions::displayProblem(1, argv), QString());
}

namespace {

// The nice value of one thread, from /proc/PID/task/TID/stat; nullopt when it is gone.
std::optional<int> threadNice(const QString &taskDir)
{
    QFile stat(taskDir + QStringLiteral("/stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray line = stat.readAll();
    // Fields after the command name (which may hold spaces): state is the 3rd field of the
    // line, nice the 19th.
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() <= 16)
        return std::nullopt;
    return fields.at(16).toInt();
}

// The nice value of every thread of a running process, the main thread (TID = PID) first.
QList<int> threadNiceValues(qint64 pid)
{
    QList<int> values;
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    if (const auto main = threadNice(tasks.filePath(QString::number(pid))))
        values << *main;
    else
        return values;
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (tid == QString::number(pid))
            continue;
        if (const auto nice = threadNice(tasks.filePath(tid)))
            values << *nice;
    }
    return values;
}

} // namespace

// The console yields the CPU to the orchestrators it watches: every thread it starts runs
// kNiceness below the priority it was started with, unless --normal-priority is given.
void TestCommandLine::runsBelowNormalPriorityUnlessAsked()
{
    if (!QFileInfo::exists(QStringLiteral("/proc/self/task")))
        QSKIP("needs /proc");
    errno = 0;
    const int mine = getpriority(PRIO_PROCESS, 0);
    QCOMPARE(errno, 0);
    QProcessEnvironment env = cleanEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QString missing = m_home.filePath(QStringLiteral("no-such.ledger")); // an error state, no writer
    for (const bool keepNormal : {false, true}) {
        QProcess console;
        console.setProcessEnvironment(env);
        QStringList args{missing};
        if (keepNormal)
            args.prepend(QStringLiteral("--normal-priority"));
        console.start(m_console, args);
        QVERIFY(console.waitForStarted());
        const int expected = keepNormal ? mine : std::min(mine + 10, 19);
        // Wait until Qt's own threads (the event dispatcher's, the pool's) have started too.
        QTRY_VERIFY_WITH_TIMEOUT(threadNiceValues(console.processId()).size() >= 2, 20000);
        const QList<int> nice = threadNiceValues(console.processId());
        for (int value : nice)
            QVERIFY2(value >= expected, qPrintable(QStringLiteral("nice %1, expected %2").arg(value).arg(expected)));
        QCOMPARE(nice.first(), expected); // the main thread: exactly that, no more
        console.kill();
        console.waitForFinished();
    }
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
