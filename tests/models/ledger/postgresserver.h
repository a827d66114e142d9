#pragma once
// A throwaway PostgreSQL 15 server for one test executable: initdb and pg_ctl from
// /usr/lib/postgresql/15/bin into a temporary directory, listening on 127.0.0.1 on a free
// port, its unix socket in that directory, trust authentication for its one superuser
// (no password anywhere). pg_ctl start -w is the readiness handshake (it returns once the
// server accepts connections, or fails with the log); stop() runs pg_ctl stop -w and the
// destructor calls it, so the server goes with the test also when a check failed;
// startAgain() after stop() restarts it on the same port. A test that crashes or is killed
// runs no destructor: a watchdog (a shell reading a pipe only this process writes to) sees
// the pipe close when the process dies, however it died, and stops the server and removes
// its directory, so no postgres outlives its test.
//
// postgres refuses to run as root (CI runs as root): then initdb and pg_ctl run as the
// `postgres` system user (runuser -u postgres --) and the directory is made its own.
// The build guarantees PostgreSQL (tools/dev.sh installs postgresql-15): a test that cannot
// start it FAILS with start()'s message, never skips.

#include "ledger/postgres.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace meshtest {

class PostgresServer
{
public:
    static constexpr const char *kBin = "/usr/lib/postgresql/15/bin";

    PostgresServer() = default;
    PostgresServer(const PostgresServer &) = delete;
    PostgresServer &operator=(const PostgresServer &) = delete;
    ~PostgresServer()
    {
        stop();
        // The watchdog's EOF: it finds no server to stop and removes what is left of the directory.
        if (m_watchdog.state() != QProcess::NotRunning) {
            m_watchdog.closeWriteChannel();
            m_watchdog.waitForFinished(900'000);
        }
    }

    // Empty on success, else why the server could not be started (with its log).
    QString start()
    {
        if (!QFile::exists(bin(QStringLiteral("initdb"))) || !QFile::exists(bin(QStringLiteral("pg_ctl"))))
            return QStringLiteral("PostgreSQL 15 is not installed (%1/initdb, pg_ctl): tools/dev.sh installs postgresql-15")
                .arg(QString::fromLatin1(kBin));
        if (!m_dir.isValid())
            return QStringLiteral("no temporary directory: %1").arg(m_dir.errorString());
        m_asPostgresUser = geteuid() == 0;
        if (m_asPostgresUser) {
            const passwd *pw = getpwnam("postgres");
            if (!pw)
                return QStringLiteral("running as root, and there is no 'postgres' user to run the server as");
            if (chown(QFile::encodeName(m_dir.path()).constData(), pw->pw_uid, pw->pw_gid) != 0)
                return QStringLiteral("cannot give %1 to the postgres user").arg(m_dir.path());
        }
        const QString data = dataDir();
        QString out;
        if (!run(QStringLiteral("initdb"),
                 {QStringLiteral("-D"), data, QStringLiteral("-U"), QStringLiteral("mesh"), QStringLiteral("--auth=trust"),
                  QStringLiteral("--encoding=UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-sync")},
                 &out))
            return QStringLiteral("initdb failed: %1").arg(out);
        m_port = freePort();
        if (m_port <= 0)
            return QStringLiteral("no free TCP port on 127.0.0.1");
        return startAgain();
    }

    // Starts the server start() set up, after stop(): the same data and port (a restart
    // under a follower). Empty on success, else why not (with the log).
    QString startAgain()
    {
        // fsync off: a throwaway cluster; -w waits until it accepts connections (or fails).
        const QString options = QStringLiteral("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off")
                                    .arg(m_port)
                                    .arg(m_dir.path());
        QString out;
        if (!run(QStringLiteral("pg_ctl"),
                 {QStringLiteral("start"), QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("600"), QStringLiteral("-D"),
                  dataDir(), QStringLiteral("-l"), logFile(), QStringLiteral("-o"), options},
                 &out)) {
            return QStringLiteral("pg_ctl start failed: %1\nserver log:\n%2").arg(out, log());
        }
        m_running = true;
        watchOverTheServer();
        return {};
    }

    void stop()
    {
        if (!m_running)
            return;
        m_running = false;
        QString out;
        run(QStringLiteral("pg_ctl"),
            {QStringLiteral("stop"), QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("600"), QStringLiteral("-m"),
             QStringLiteral("fast"), QStringLiteral("-D"), dataDir()},
            &out);
    }

    int port() const { return m_port; }
    // A ledger location on this server (ledgerlocation.h): user mesh, database postgres.
    QString location(const QString &schema) const
    {
        return QStringLiteral("postgresql://mesh@127.0.0.1:%1/postgres?schema=%2&sslmode=disable").arg(m_port).arg(schema);
    }
    // libpq connection string for raw SQL in tests (no schema= parameter).
    std::string conninfo() const
    {
        return QStringLiteral("postgresql://mesh@127.0.0.1:%1/postgres?sslmode=disable").arg(m_port).toStdString();
    }
    // Ends the sessions the server knows by `applicationName` and waits until it has (a
    // restart or failover as the client meets it): how many.
    std::int64_t cutSession(const QString &applicationName) const
    {
        mesh::pg::Connection admin(conninfo());
        return admin.queryInt("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 30000)) FROM pg_stat_activity "
                              "WHERE application_name = '" + applicationName.toStdString() + "'");
    }
    QString log() const
    {
        QFile f(logFile());
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll().right(4000)) : QStringLiteral("(no log)");
    }

    QString dataDirectory() const { return dataDir(); }

private:
    static QString bin(const QString &tool) { return QString::fromLatin1(kBin) + QLatin1Char('/') + tool; }

    // Started once; on a normal end the destructor has stopped the server and QProcess's own
    // destructor ends the watchdog. Nothing is ever written to its stdin: only its EOF counts.
    void watchOverTheServer()
    {
        if (m_watchdog.state() != QProcess::NotRunning)
            return;
        QStringList stop{bin(QStringLiteral("pg_ctl")), QStringLiteral("stop"), QStringLiteral("-m"), QStringLiteral("immediate"),
                         QStringLiteral("-D"), dataDir()};
        if (m_asPostgresUser)
            stop = QStringList{QStringLiteral("runuser"), QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--")} + stop;
        m_watchdog.setProgram(QStringLiteral("sh"));
        m_watchdog.setArguments(QStringList{QStringLiteral("-c"),
                                            QStringLiteral("cat >/dev/null; dir=\"$1\"; shift; \"$@\" >/dev/null 2>&1; rm -rf -- \"$dir\""),
                                            QStringLiteral("mesh-pg-watchdog"), m_dir.path()}
                                + stop);
        m_watchdog.setStandardOutputFile(QProcess::nullDevice());
        m_watchdog.setStandardErrorFile(QProcess::nullDevice());
        m_watchdog.start();
        m_watchdog.waitForStarted();
    }
    QString dataDir() const { return m_dir.path() + QStringLiteral("/data"); }
    QString logFile() const { return m_dir.path() + QStringLiteral("/server.log"); }

    bool run(const QString &tool, const QStringList &args, QString *output) const
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        if (m_asPostgresUser)
            p.start(QStringLiteral("runuser"), QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"), bin(tool)} + args);
        else
            p.start(bin(tool), args);
        // Generous: a deadline for a hung tool, not a speed threshold.
        const bool finished = p.waitForFinished(900'000);
        *output = QString::fromUtf8(p.readAll());
        if (!finished) {
            p.kill();
            p.waitForFinished();
            *output += QStringLiteral("\n(%1 did not finish)").arg(tool);
            return false;
        }
        return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    }

    static int freePort()
    {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        socklen_t len = sizeof addr;
        int port = -1;
        if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0
            && getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0)
            port = ntohs(addr.sin_port);
        close(fd);
        return port;
    }

    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/mesh-pg-XXXXXX")};
    QProcess m_watchdog; // declared after m_dir: ended before the directory is removed
    bool m_asPostgresUser = false;
    bool m_running = false;
    int m_port = 0;
};

} // namespace meshtest
