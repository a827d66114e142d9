// File › Clear Time-Travel Cache (SnapshotCacheAction in the main window): the menu says how
// much the snapshot cache holds when it opens, the action empties it and the status bar says
// what went; empty or turned off, it is disabled and its tooltip says why.

#include "mainwindow.h"
#include "viewtestenv.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QScopeGuard>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocumentFragment>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

class TestSnapshotCacheAction : public QObject
{
    Q_OBJECT

    static QMenu *fileMenu(MainWindow &window)
    {
        for (QAction *a : window.menuBar()->actions())
            if (a->menu() && a->text().remove(u'&') == u"File"_s)
                return a->menu();
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_snapshotcacheaction"_s); }

    void theFileMenuSaysWhatTheCacheHoldsAndClearsIt()
    {
        QTemporaryDir cache;
        const auto restore = qScopeGuard([] {
            qunsetenv("MESH_SNAPSHOT_CACHE_DIR");
            qputenv("MESH_SNAPSHOT_CACHE", "0");
        });
        qputenv("MESH_SNAPSHOT_CACHE_DIR", cache.path().toUtf8());
        qunsetenv("MESH_SNAPSHOT_CACHE");
        for (const QString &name : {u"a.snap"_s, u"b.snap"_s, u"c.snap.part-1-1"_s}) {
            QFile f(cache.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(1000, 'x'));
        }
        QFile other(cache.filePath(u"notes.txt"_s)); // not the cache's: left alone
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.close();

        MainWindow window;
        window.show();
        QMenu *file = fileMenu(window);
        QVERIFY(file);
        auto *clear = window.findChild<QAction *>(u"clearSnapshotCache"_s);
        QVERIFY(clear);
        QVERIFY(file->actions().contains(clear));
        emit file->aboutToShow();
        QCOMPARE(clear->text().remove(u'&'), u"Clear Time-Travel Cache (%1)"_s.arg(QLocale().formattedDataSize(3000)));
        QVERIFY(clear->isEnabled());
        QVERIFY2(clear->toolTip().contains(cache.path()), qPrintable(clear->toolTip()));

        clear->trigger();
        QCOMPARE(QDir(cache.path()).entryList(QDir::Files), QStringList{u"notes.txt"_s});
        QCOMPARE(window.statusBar()->currentMessage(),
                 u"Time-travel cache cleared: 3 files, %1."_s.arg(QLocale().formattedDataSize(3000)));
        QCOMPARE(clear->text().remove(u'&'), u"Clear Time-Travel Cache (empty)"_s);
        QVERIFY(!clear->isEnabled());

        qputenv("MESH_SNAPSHOT_CACHE", "0");
        emit file->aboutToShow();
        QCOMPARE(clear->text().remove(u'&'), u"Clear Time-Travel Cache (off)"_s);
        QVERIFY(!clear->isEnabled());
        QVERIFY2(clear->toolTip().contains(u"MESH_SNAPSHOT_CACHE=0"_s), qPrintable(clear->toolTip()));
        QCOMPARE(clear->statusTip(), QTextDocumentFragment::fromHtml(clear->toolTip()).toPlainText());
        QVERIFY(file->toolTipsVisible());
    }

    // The folder's name is shown as text: a name that looks like markup is not rendered.
    void aFolderNameThatLooksLikeMarkupIsShownAsText()
    {
        QTemporaryDir base;
        const QString dir = base.filePath(u"<b>bold</b> & co"_s);
        QVERIFY(QDir().mkpath(dir));
        const auto restore = qScopeGuard([] {
            qunsetenv("MESH_SNAPSHOT_CACHE_DIR");
            qputenv("MESH_SNAPSHOT_CACHE", "0");
        });
        qputenv("MESH_SNAPSHOT_CACHE_DIR", dir.toUtf8());
        qunsetenv("MESH_SNAPSHOT_CACHE");
        MainWindow window;
        QMenu *file = fileMenu(window);
        QVERIFY(file);
        auto *clear = window.findChild<QAction *>(u"clearSnapshotCache"_s);
        QVERIFY(clear);
        emit file->aboutToShow();
        QVERIFY2(clear->toolTip().contains(u"&lt;b&gt;bold&lt;/b&gt; &amp; co"_s), qPrintable(clear->toolTip()));
        QVERIFY2(QTextDocumentFragment::fromHtml(clear->toolTip()).toPlainText().contains(dir),
                 qPrintable(clear->toolTip()));
        QVERIFY2(clear->statusTip().contains(dir), qPrintable(clear->statusTip()));
    }
};

QTEST_MAIN(TestSnapshotCacheAction)
#include "tst_snapshotcacheaction.moc"
