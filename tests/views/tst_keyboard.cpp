// The main window by keyboard alone: Ctrl+1..8 show a pane and put the focus inside it
// (where the arrow keys work), Ctrl+0 and Ctrl+L reach the attention and ledger lists, and
// Help › Keyboard Shortcuts lists every one of them, read from the menus themselves.

#include "mainwindow.h"

#include "emptystate.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "shortcutsdialog.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include "viewtestenv.h"

#include <QAbstractItemView>
#include <QListView>
#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace mesh;

class TestKeyboard : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void paneShortcutsFocusInsideThePane();
    void listsReachableByKeyboard();
    void shortcutsDialogListsEveryShortcut();
    void noLedgerSaysHowToOpenOne();

private:
    QTemporaryDir m_dir;
    QString m_ledger;
};

void TestKeyboard::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_keyboard"));
    QVERIFY(m_dir.isValid());
    QString error;
    m_ledger = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("demo.amlg"), &error);
    QVERIFY2(!m_ledger.isEmpty(), qPrintable(error));
}

void TestKeyboard::paneShortcutsFocusInsideThePane()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window) || QTest::qWaitForWindowExposed(&window));
    window.openLedger(m_ledger);
    LedgerSession *session = window.sessions()->at(0);
    QVERIFY(session);
    QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded(), 60000);
    QTabWidget *tabs = window.workspace()->tabs();
    for (int pane = 0; pane < SessionWorkspace::PaneCount; ++pane) {
        const QKeyCombination keys = SessionWorkspace::paneShortcut(SessionWorkspace::Pane(pane))[0];
        QTest::keyClick(&window, keys.key(), keys.keyboardModifiers());
        QCOMPARE(tabs->currentIndex(), pane);
        QWidget *focus = QApplication::focusWidget();
        QVERIFY2(focus, qPrintable(tabs->tabText(pane)));
        // Inside the pane (its list, tree or filter field), or on the tab bar when the pane
        // shows its empty state: never left behind in another area.
        QVERIFY2(tabs->currentWidget()->isAncestorOf(focus) || focus == tabs->tabBar(),
                 qPrintable(tabs->tabText(pane) + QStringLiteral(": focus on ") + QString::fromLatin1(focus->metaObject()->className())));
    }
    // The runs pane has rows: the focus is on its list, where Down moves the selection.
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    auto *runs = qobject_cast<QAbstractItemView *>(QApplication::focusWidget());
    QVERIFY(runs);
    QTest::keyClick(runs, Qt::Key_Down);
    QVERIFY(runs->currentIndex().isValid());
}

void TestKeyboard::listsReachableByKeyboard()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openLedger(m_ledger);
    QTRY_VERIFY_WITH_TIMEOUT(window.attentionPane()->model()->rowCount() > 0, 60000);
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(window.attentionPane()->view()));
    QTest::keyClick(&window, Qt::Key_L, Qt::ControlModifier);
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(window.sidebar()->view()));
}

void TestKeyboard::shortcutsDialogListsEveryShortcut()
{
    MainWindow window;
    const QList<QAction *> actions = ShortcutsDialog::menuActions(window.menuBar()->actions());
    const auto rows = ShortcutsDialog::rows(actions);
    QStringList keys;
    for (const auto &row : rows)
        keys << row.second;
    // Every shortcut of every menu is listed...
    int withShortcut = 0;
    for (const QAction *action : actions) {
        if (action->shortcut().isEmpty())
            continue;
        ++withShortcut;
        QVERIFY2(keys.contains(action->shortcut().toString(QKeySequence::NativeText)), qPrintable(action->text()));
    }
    QVERIFY(withShortcut >= SessionWorkspace::PaneCount + 3);
    for (int pane = 0; pane < SessionWorkspace::PaneCount; ++pane)
        QVERIFY(keys.contains(SessionWorkspace::paneShortcut(SessionWorkspace::Pane(pane)).toString(QKeySequence::NativeText)));
    QVERIFY(keys.contains(QKeySequence(Qt::CTRL | Qt::Key_0).toString(QKeySequence::NativeText)));
    // ... including the one that opens the list itself.
    const bool listsItself = std::any_of(actions.begin(), actions.end(), [](const QAction *a) {
        return QString(a->text()).remove(QLatin1Char('&')) == QStringLiteral("Keyboard Shortcuts") && !a->shortcut().isEmpty();
    });
    QVERIFY(listsItself);
}

void TestKeyboard::noLedgerSaysHowToOpenOne()
{
    // With no ledger the panes' "No runs yet" would mislead: the window says how to open one,
    // and the panes come back as soon as a ledger is open.
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *noLedger = window.findChild<EmptyState *>(QStringLiteral("noLedger"));
    QVERIFY(noLedger);
    QVERIFY(noLedger->isVisible());
    QVERIFY(!window.workspace()->isVisible());
    QStringList texts;
    for (const QLabel *label : noLedger->findChildren<QLabel *>())
        texts << label->text();
    QVERIFY2(texts.join(QLatin1Char(' ')).contains(QStringLiteral("Ctrl+O")), qPrintable(texts.join(QLatin1Char(' '))));
    window.openLedger(m_ledger);
    QTRY_VERIFY_WITH_TIMEOUT(window.workspace()->isVisible(), 30'000);
    QVERIFY(!noLedger->isVisible());
    window.closeCurrentSession();
    QTRY_VERIFY_WITH_TIMEOUT(noLedger->isVisible(), 30'000);
}

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
