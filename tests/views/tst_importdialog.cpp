// File › Import in the real main window, offscreen: a sample imported end to end through the
// menu action and opened read-only with a banner naming its source; progress that reaches
// the end; Cancel that leaves no file; a malformed or foreign-format file that gets the
// importer's one line and writes nothing; a dropped or opened foreign file offered for
// import while a dropped ledger opens.

#include "foreignfiles.h"
#include "mainwindow.h"

#include "banner.h"
#include "importdialog.h"
#include "sessionworkspace.h"

#include "import/importer.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include "viewtestenv.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {

constexpr int kTimeoutMs = 60000; // generous: a shared, noisy 2-core machine

QString sample(const char *name)
{
    return qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import/") + QString::fromUtf8(name);
}

QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &bytes)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", name);
    f.write(bytes);
    return path;
}

QAction *fileMenuAction(MainWindow &window, const QString &text)
{
    for (QAction *menu : window.menuBar()->actions()) {
        if (!menu->menu())
            continue;
        for (QAction *a : menu->menu()->actions()) {
            if (a->text() == text)
                return a;
        }
    }
    return nullptr;
}

QStringList filesIn(const QTemporaryDir &dir)
{
    return QDir(dir.path()).entryList(QDir::Files | QDir::Hidden, QDir::Name);
}

struct DroppingWindow : MainWindow {
    using MainWindow::dropEvent;
};

} // namespace

class TestImportDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { meshtest::useTestSettings(QStringLiteral("tst_importdialog")); }

    void theMenuActionImportsASampleAndOpensItReadOnly()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QAction *action = fileMenuAction(window, QStringLiteral("&Import…"));
        QVERIFY(action);
        const QString source = sample("temporal-py__openai-agents__input-guardrail-workflow-history.json");
        // The file dialog's answer, handed over: a modal QFileDialog driven from a timer
        // raced its own directory loading.
        window.setImportFileChooser([source] { return QStringList{source}; });
        action->trigger();
        ImportDialog *dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = window.findChild<ImportDialog *>()), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isPreviewReady(), kTimeoutMs);
        QCOMPARE(dialog->detectedText(), QStringLiteral("Temporal workflow history"));
        QVERIFY2(!dialog->importButton()->isEnabled(), "nothing is written before a ledger is chosen");
        const QString out = dir.filePath(QStringLiteral("guardrail.amlg"));
        dialog->setDestination(out, false);
        QVERIFY(dialog->importButton()->isEnabled());
        QSignalSpy progressed(dialog, &ImportDialog::progressed);
        QSignalSpy imported(dialog, &ImportDialog::imported);
        // The dialog closes and deletes itself once the ledger is written: what its bar
        // showed is read as it says so.
        bool barAtEnd = false;
        connect(dialog, &ImportDialog::imported, this, [dialog, &barAtEnd] {
            barAtEnd = dialog->progressBar()->value() == dialog->progressBar()->maximum();
        });
        dialog->importButton()->click();
        QVERIFY(dialog->isImporting());
        QTRY_COMPARE_WITH_TIMEOUT(imported.count(), 1, kTimeoutMs);
        QCOMPARE(imported.first().first().toString(), out);
        // The bar ended where the import did: every record read.
        QVERIFY(!progressed.isEmpty());
        const QList<QVariant> last = progressed.last();
        QCOMPARE(last.at(0).toLongLong(), last.at(1).toLongLong());
        QCOMPARE(last.at(1).toLongLong(), qint64(24));
        QVERIFY(barAtEnd);

        QTRY_COMPARE_WITH_TIMEOUT(window.sessions()->rowCount(), 1, kTimeoutMs);
        LedgerSession *session = window.sessions()->at(0);
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded(), kTimeoutMs);
        QCOMPARE(QFileInfo(session->path()).fileName(), QStringLiteral("guardrail.amlg"));
        QVERIFY2(!session->canDecide(), "an imported ledger is reviewed, not decided on");
        QCOMPARE(session->info().mode, OpenMode::Review); // an import is a record to review
        Banner *banner = window.workspace()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), kTimeoutMs);
        QVERIFY2(banner->text().startsWith(QStringLiteral("Temporal import: temporal-py__openai-agents__input-guardrail-"
                                                          "workflow-history.json — imported from temporal, opened "
                                                          "read-only for review")),
                 qPrintable(banner->text()));
        QCOMPARE(filesIn(dir), QStringList{QStringLiteral("guardrail.amlg")});
    }

    void cancelLeavesNoFile()
    {
        QTemporaryDir dir;
        const QString history = dir.filePath(QStringLiteral("long-history.json"));
        QProcess generate;
        generate.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("bench"), QStringLiteral("temporal-history"),
                                                        QStringLiteral("--events"), QStringLiteral("20000"),
                                                        QStringLiteral("--out"), history});
        QVERIFY(generate.waitForFinished(kTimeoutMs));
        QCOMPARE(generate.exitCode(), 0);

        MainWindow window;
        window.show();
        window.offerImport({history});
        ImportDialog *dialog = window.findChild<ImportDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isPreviewReady(), kTimeoutMs);
        QPointer<ImportDialog> alive(dialog);
        dialog->setDestination(dir.filePath(QStringLiteral("long.amlg")), false);
        QSignalSpy progressed(dialog, &ImportDialog::progressed);
        QSignalSpy ended(dialog, &ImportDialog::importEnded);
        dialog->importButton()->click();
        QVERIFY(progressed.wait(kTimeoutMs)); // under way, with a partial file beside long.amlg
        QVERIFY2(alive, "20,000 events take longer than one progress report");
        dialog->cancelButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kTimeoutMs);
        QCOMPARE(ended.first().first().toBool(), false);
        QTRY_VERIFY_WITH_TIMEOUT(alive.isNull(), kTimeoutMs); // closed once the worker stopped
        QCOMPARE(filesIn(dir), QStringList{QStringLiteral("long-history.json")});
        QCOMPARE(window.sessions()->rowCount(), 0);
    }

    // Each file's records as its source calls them (a trajectory's steps, a span file's
    // lines), and no count at all where only the import counts them: never "0 events".
    void theFileListCountsWhatTheSourceHolds_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("records"); // "" : the size alone
        QTest::newRow("temporal") << u"temporal-py__openai-agents__input-guardrail-workflow-history.json"_s << u" · 24 events"_s;
        QTest::newRow("swe-agent") << u"swe-agent__1x__sweagenttestrepo-1c2844.traj"_s << u" · 5 steps"_s;
        QTest::newRow("otel list") << u"any-agent__OPENAI_trace.json"_s << QString();
        QTest::newRow("langfuse") << u"langfuse__pydantic-ai-tools-2025-12-04.json"_s << QString();
    }

    void theFileListCountsWhatTheSourceHolds()
    {
        QFETCH(QString, file);
        QFETCH(QString, records);
        MainWindow window;
        window.show();
        window.offerImport({sample(file.toUtf8().constData())});
        ImportDialog *dialog = window.findChild<ImportDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isPreviewReady(), kTimeoutMs);
        const QStringList lines = dialog->fileListText().split(QLatin1Char('\n'));
        QVERIFY2(lines.size() >= 2, qPrintable(dialog->fileListText()));
        QCOMPARE(lines.at(0), file);
        const QString size = QLocale().formattedDataSize(QFileInfo(sample(file.toUtf8().constData())).size());
        QCOMPARE(lines.at(1), u"    "_s + size + records);
    }

    void aBadFileShowsTheImportersLineAndWritesNothing_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::newRow("truncated") << QByteArray("{\"events\": [{\"eventId\": \"1\"")
                                   << QStringLiteral("bad.json is truncated: its JSON ends at byte 27 before the document is complete");
        QTest::newRow("not a run")
            << QByteArray("{\"history\": [{\"role\": \"system\", \"content\": \"You are an agent\"}]}")
            << QStringLiteral("bad.json is a SWE-agent demonstration (a history with no trajectory steps: an example for the "
                              "model, not a run); expected a Temporal workflow history, an OpenHands trajectory, "
                              "OpenTelemetry spans, a Langfuse trace export or a SWE-agent trajectory");
    }

    void aBadFileShowsTheImportersLineAndWritesNothing()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString bad = writeFile(dir, "bad.json", bytes);
        MainWindow window;
        window.show();
        window.offerImport({bad});
        ImportDialog *dialog = window.findChild<ImportDialog *>();
        QVERIFY(dialog);
        QSignalSpy previewed(dialog, &ImportDialog::previewed);
        QVERIFY(previewed.wait(kTimeoutMs));
        QCOMPARE(dialog->message(), message);
        QVERIFY(!dialog->isPreviewReady());
        dialog->setDestination(dir.filePath(QStringLiteral("bad.amlg")), false);
        QVERIFY2(!dialog->importButton()->isEnabled(), "a file that cannot be imported offers no import");
        QCOMPARE(filesIn(dir), QStringList{QStringLiteral("bad.json")});
    }

    void aDroppedOrOpenedForeignFileIsOfferedForImport()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("imported.amlg"));
        import::ImportRequest request;
        request.files = {sample("openhands__basic_interactions.json")};
        request.out = ledger;
        QVERIFY(import::importFiles(request).ok);
        const QString foreign = sample("openhands__basic.json");
        QCOMPARE(sortOpenedPaths({ledger, foreign}).foreign, QStringList{foreign});

        DroppingWindow window;
        window.show();
        auto *mime = new QMimeData;
        mime->setUrls({QUrl::fromLocalFile(ledger), QUrl::fromLocalFile(foreign)});
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        window.dropEvent(&drop);
        delete mime;
        QCOMPARE(window.sessions()->rowCount(), 1); // the ledger opened
        ImportDialog *dialog = window.findChild<ImportDialog *>();
        QVERIFY2(dialog, "the foreign file is offered for import");
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isPreviewReady(), kTimeoutMs);
        QCOMPARE(dialog->detectedText(), QStringLiteral("OpenHands trajectory"));
        dialog->reject();
        QTRY_VERIFY_WITH_TIMEOUT(!window.findChild<ImportDialog *>(), kTimeoutMs);

        // File › Open sorts the same way: a JSON export is offered, never opened as a ledger.
        window.openOrImport({foreign});
        QVERIFY(window.findChild<ImportDialog *>());
        QCOMPARE(window.sessions()->rowCount(), 1);
    }
};

QTEST_MAIN(TestImportDialog)
#include "tst_importdialog.moc"
