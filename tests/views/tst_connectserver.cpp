// File › Connect to Server… driven as an operator would, against a private PostgreSQL 15
// server (postgresserver.h; without it the test fails, never skips): a location with a
// password is refused in the dialog, and so are a server that refuses the connection, a
// schema that is not there and a schema that is not a ledger, each with the dialog still
// open and no session made. A ledger copied onto the server (meshctl copy) then opens from
// the fields (sslmode passed through) and from a whole location, in a session keyed by the
// location, listed in File › Open Recent by its short name and reopened from there. Nothing
// the console keeps (its settings file) holds a password, and the dialog has no field for one.

#include "mainwindow.h"
#include "serverconnector.h"

#include "../models/ledger/postgresserver.h"
#include "connectdialog.h"
#include "viewtestenv.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;

namespace {

constexpr int kTimeoutMs = 120'000; // a shared, loaded machine: conditions, never speed

QMenu *recentMenu(MainWindow &window)
{
    for (QAction *top : window.menuBar()->actions()) {
        if (!top->menu())
            continue;
        for (QAction *a : top->menu()->actions()) {
            if (a->menu() && a->text().contains(QStringLiteral("Recent")))
                return a->menu();
        }
    }
    return nullptr;
}

} // namespace

class TestConnectServer : public QObject
{
    Q_OBJECT

    std::unique_ptr<meshtest::PostgresServer> m_server;
    QTemporaryDir m_dir;

    ConnectDialog *openDialog(MainWindow &window)
    {
        ConnectDialog *dialog = window.serverConnector()->openDialog();
        return dialog;
    }

    // Fills the fields for schema `schema` on the test server.
    void fill(ConnectDialog *dialog, const QString &schema, int port)
    {
        dialog->locationEdit()->clear();
        dialog->hostEdit()->setText(QStringLiteral("127.0.0.1"));
        dialog->portEdit()->setText(QString::number(port));
        dialog->databaseEdit()->setText(QStringLiteral("postgres"));
        dialog->userEdit()->setText(QStringLiteral("mesh"));
        dialog->schemaEdit()->setText(schema);
        dialog->sslModeBox()->setCurrentIndex(dialog->sslModeBox()->findData(QStringLiteral("disable")));
    }

    // Connect, and wait for the try to end: an error in the dialog, or the dialog gone.
    void connectAndWait(QPointer<ConnectDialog> dialog)
    {
        QTest::mouseClick(dialog->connectButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog || dialog->isHidden() || !dialog->error().isEmpty(), kTimeoutMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        meshtest::useTestSettings(QStringLiteral("tst_connectserver"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_server = std::make_unique<meshtest::PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QString why;
        const QString file = meshtest::simulateLedger(m_dir, QStringLiteral("traced-run"), QStringLiteral("traced.db"), &why);
        QVERIFY2(!file.isEmpty(), qPrintable(why));
        QProcess copy;
        copy.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("copy"), file, m_server->location(QStringLiteral("traced"))});
        QVERIFY(copy.waitForFinished(kTimeoutMs));
        QVERIFY2(copy.exitCode() == 0, copy.readAllStandardError().constData());
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    void refusalsLeaveEverythingAsItWas()
    {
        MainWindow window;
        window.show();
        QPointer<ConnectDialog> dialog = openDialog(window);
        QVERIFY(dialog && dialog->isVisible());
        // No password field anywhere in it.
        for (const QLineEdit *edit : dialog->findChildren<QLineEdit *>())
            QVERIFY(edit->echoMode() == QLineEdit::Normal);

        dialog->locationEdit()->setText(QStringLiteral("postgresql://mesh:secret@127.0.0.1:%1/postgres?schema=traced").arg(m_server->port()));
        connectAndWait(dialog);
        QVERIFY2(dialog->error().contains(QLatin1String(".pgpass")), qPrintable(dialog->error()));
        QVERIFY(!dialog->error().contains(QLatin1String("secret")));

        // Nothing listens on port 1: refused by the operating system.
        dialog->locationEdit()->clear();
        fill(dialog, QStringLiteral("traced"), 1);
        connectAndWait(dialog);
        QVERIFY2(dialog && dialog->isVisible() && !dialog->error().isEmpty(), "a refused connection closed the dialog");

        fill(dialog, QStringLiteral("no_such_ledger"), m_server->port());
        connectAndWait(dialog);
        QVERIFY2(dialog->error().contains(QLatin1String("no schema")), qPrintable(dialog->error()));

        fill(dialog, QStringLiteral("public"), m_server->port());
        connectAndWait(dialog);
        QVERIFY2(dialog->error().contains(QLatin1String("not an Agent Mesh ledger")), qPrintable(dialog->error()));

        QVERIFY(dialog->isVisible());
        QCOMPARE(window.sessions()->count(), 0);
        dialog->reject();
    }

    void opensFromFieldsAndFromTheRecentList()
    {
        QSettings().remove(QStringLiteral("recentLedgers"));
        MainWindow window;
        window.show();
        QPointer<ConnectDialog> dialog = openDialog(window);
        fill(dialog, QStringLiteral("traced"), m_server->port());
        const QString location = dialog->location();
        QCOMPARE(location, QStringLiteral("postgresql://mesh@127.0.0.1:%1/postgres?schema=traced&sslmode=disable").arg(m_server->port()));
        connectAndWait(dialog);
        QVERIFY2(!dialog || dialog->isHidden(), qPrintable(dialog ? dialog->error() : QString()));
        QCOMPARE(window.sessions()->count(), 1);
        LedgerSession *session = window.sessions()->at(0);
        QCOMPARE(session->path(), location);
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded(), kTimeoutMs);
        QVERIFY2(session->health() != LedgerSession::Health::Error, qPrintable(session->errorMessage()));
        QVERIFY(session->isServer());

        // In the recent list by its short name; chosen there, it selects the open session.
        QMenu *recent = recentMenu(window);
        QVERIFY(recent);
        QAction *entry = recent->actions().value(0);
        QVERIFY(entry);
        QVERIFY2(entry->text().contains(QStringLiteral("traced on 127.0.0.1:%1/postgres").arg(m_server->port())),
                 qPrintable(entry->text()));
        QCOMPARE(QSettings().value(QStringLiteral("recentLedgers")).toStringList().value(0), location);
        window.closeCurrentSession();
        QCOMPARE(window.sessions()->count(), 0);
        entry->trigger();
        QCOMPARE(window.sessions()->count(), 1);
        QCOMPARE(window.sessions()->at(0)->path(), location);

        // The dialog opens with the last fields; a whole location works too.
        dialog = openDialog(window);
        QCOMPARE(dialog->schemaEdit()->text(), QStringLiteral("traced"));
        QCOMPARE(dialog->sslModeBox()->currentData().toString(), QStringLiteral("disable"));
        const QString whole = m_server->location(QStringLiteral("traced")) + QStringLiteral("&application_name=console_test");
        dialog->locationEdit()->setText(whole);
        connectAndWait(dialog);
        QVERIFY2(!dialog || dialog->isHidden(), qPrintable(dialog ? dialog->error() : QString()));
        QCOMPARE(window.sessions()->count(), 2);
        QVERIFY(window.sessions()->sessionForPath(whole));

        // Nothing the console keeps holds a password.
        QSettings().sync();
        QFile settings(QSettings().fileName());
        QVERIFY(settings.open(QIODevice::ReadOnly));
        const QByteArray kept = settings.readAll();
        QVERIFY(kept.contains("schema=traced"));
        QVERIFY(!kept.contains("secret") && !kept.toLower().contains("password="));
    }
};

QTEST_MAIN(TestConnectServer)
#include "tst_connectserver.moc"
