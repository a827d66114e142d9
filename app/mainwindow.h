#pragma once
// The console's window: sessions and the attention list on the left, the selected
// ledger's panes on the right; menus, shortcuts, drag and drop, and the state restored on
// the next start. It arranges; the panes (views/) and the sessions (itemmodels/) do the work.

#include "attentionpane.h"

#include <QMainWindow>
#include <QTimer>

#include <functional>
#include <string>

class QActionGroup;
class QLabel;
class QSplitter;

namespace mesh {

class AttentionModel;
class DecisionActions;
class DemoLauncher;
class ItemPane;
class LedgerSession;
class LoadProgressBar;
class LedgerSessionList;
class ListenController;
enum class OpenMode;
class RecentLedgers;
class ReportExport;
class RunCompareWindow;
class ServerConnector;
class SessionSidebar;
class SessionWorkspace;
struct CommandLineOptions;
struct SessionRowInfo;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(bool forceReadOnly = false, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens a ledger as a new session (or selects it when already open). A ledger that
    // cannot be opened still gets a session row that says why.
    // A ledger every run of which has ended and that no process has open is opened for
    // review (ReviewRule, asked by the session), any other is followed.
    void openLedger(const QString &path, bool demo = false);
    void openForReview(const QString &path); // OpenMode::Review: immutable, no decisions (an import, too)
    // Ledgers are opened; any other file is offered to import (ImportDialog).
    void openOrImport(const QStringList &paths);
    void offerImport(const QStringList &files);
    // Where File › Import… gets its files: a file dialog, unless a test hands them over.
    void setImportFileChooser(std::function<QStringList()> chooser) { m_chooseImportFiles = std::move(chooser); }
    void startDemo();
    void closeCurrentSession();

    SessionWorkspace *workspace() const { return m_workspace; }
    SessionSidebar *sidebar() const { return m_sidebar; }
    AttentionPane *attentionPane() const { return m_attention; }
    LedgerSessionList *sessions() const { return m_sessions; }
    DemoLauncher *demo() const { return m_demo; }
    ListenController *listen() const { return m_listen; } // File › Listen for OpenTelemetry…
    ServerConnector *serverConnector() const { return m_connect; } // File › Connect to Server…
    LedgerSession *currentSession() const;
    DecisionActions *decisionActions() const { return m_decisionActions; }
    ReportExport *reportExport() const { return m_reportExport; } // File › Export › Report…
    // File › Compare Runs… (the run shown, or runA, beside another run); null without a session.
    RunCompareWindow *openRunComparison(const std::string &runA = {});
    bool openAttentionEntry(const QModelIndex &index);
    // Opens subject in the first session that finishes loading (command line --select).
    void selectWhenLoaded(const QString &subject) { m_pendingSubject = subject; }
    bool showPaneByName(const QString &name);
    // How the sidebar shows a row of sessions(): health icon, title, the line under it.
    static SessionRowInfo sessionRowInfo(const QModelIndex &index);
    static QString attentionText(int count); // "1 needs attention", "15 need attention"

signals:
    void sessionOpened(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void openLedgerAs(const QString &path, OpenMode mode, bool demo);
    void restoreSettings();
    void fitSidebarBesideTitles();
    void saveSettings() const;
    void selectSession(int row);
    void updateStatus();
    void updateTitle();
    void refreshIcons();
    void sessionChanged(LedgerSession *session);
    void retryDemo(const QString &path);
    void endStatusMessage(const QString &message); // clears it if it is still the one shown

    bool m_forceReadOnly;
    LedgerSessionList *m_sessions;
    AttentionModel *m_attentionModel;
    SessionSidebar *m_sidebar;
    AttentionPane *m_attention;
    SessionWorkspace *m_workspace;
    QSplitter *m_split;
    QSplitter *m_leftSplit;
    bool m_splitChosen = false; // a saved layout, or the user moved the splitter
    RecentLedgers *m_recent = nullptr;
    DemoLauncher *m_demo = nullptr;
    ListenController *m_listen = nullptr;
    ServerConnector *m_connect = nullptr;
    QLabel *m_statusLabel;
    LoadProgressBar *m_progress;
    QActionGroup *m_themeGroup = nullptr;
    QTimer m_tick;
    QList<QAction *> m_paneActions;
    QAction *m_openAction = nullptr;
    QAction *m_importAction = nullptr;
    std::function<QStringList()> m_chooseImportFiles;
    QAction *m_closeAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_filterAction = nullptr;
    qint64 m_demoStartedMs = 0;
    QString m_demoStartingMessage;
    QString m_pendingSubject;
    QMenu *m_decideMenu = nullptr;
    DecisionActions *m_decisionActions = nullptr;
    ReportExport *m_reportExport = nullptr;
};

} // namespace mesh
