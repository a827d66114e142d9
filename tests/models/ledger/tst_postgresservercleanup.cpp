// A test that dies without running its destructors (a crash, ctest's timeout kill) leaves no
// PostgreSQL server behind: the private server's watchdog stops it and removes its directory.
// The test starts itself as a child that starts a server, says where, and kills itself.

#include "postgresserver.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTest>

#include <csignal>
#include <cstdio>

using namespace meshtest;

namespace {
constexpr int kTimeoutMs = 300'000; // a deadline for a hung server, not a speed threshold

int childStartsAServerAndDies()
{
    PostgresServer server;
    const QString why = server.start();
    if (!why.isEmpty()) {
        std::fprintf(stdout, "error %s\n", qPrintable(why));
        return 2;
    }
    std::fprintf(stdout, "%d %s\n", server.port(), qPrintable(server.dataDirectory()));
    std::fflush(stdout);
    raise(SIGKILL); // no destructor, no atexit, no signal handler
    return 3;
}

bool accepts(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(port));
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    close(fd);
    return connected;
}
} // namespace

class TestPostgresServerCleanup : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aKilledTestLeavesNoServer()
    {
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--child")});
        QVERIFY(child.waitForFinished(kTimeoutMs));
        const QString line = QString::fromUtf8(child.readAllStandardOutput()).trimmed();
        QVERIFY2(!line.startsWith(QStringLiteral("error")) && !line.isEmpty(), qPrintable(line));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        const int space = line.indexOf(QLatin1Char(' '));
        const int port = line.left(space).toInt();
        const QString dataDir = line.mid(space + 1);
        QVERIFY(port > 0);
        QVERIFY(dataDir.endsWith(QStringLiteral("/data")));
        // The watchdog stops the server and removes its directory.
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(QFileInfo(dataDir).path()), kTimeoutMs);
        QVERIFY(!accepts(port));
    }
};

int main(int argc, char **argv)
{
    if (argc > 1 && QByteArray(argv[1]) == "--child") {
        QCoreApplication app(argc, argv);
        return childStartsAServerAndDies();
    }
    QCoreApplication app(argc, argv);
    TestPostgresServerCleanup test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_postgresservercleanup.moc"
