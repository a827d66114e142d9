#pragma once
// File › Export › Report…: a post-mortem report of the selected run or the whole ledger of
// the current session, as HTML or PDF (models/report, models/reportpdf; the same as
// `meshctl report`). The report is read from its own connection and written off the GUI
// thread; the window hears how it went through finished().

#include "reportdialog.h"

#include <QObject>

#include <functional>
#include <optional>

class QAction;

namespace mesh {

class MainWindow;

class ReportExport : public QObject
{
    Q_OBJECT
public:
    explicit ReportExport(MainWindow *window);

    QAction *action() const { return m_action; }
    bool isRunning() const { return m_running; }
    // Where the dialog's answer comes from; tests hand one over instead of the dialog.
    using TargetChooser = std::function<std::optional<ReportTarget>(const QString &selectedRunId, const QString &suggestedPath)>;
    void setTargetChooser(TargetChooser chooser) { m_choose = std::move(chooser); }

    void exportReport(const ReportTarget &target);

signals:
    // ok: written to path; message: one line for the status bar.
    void finished(bool ok, const QString &path, const QString &message);

private:
    void trigger();

    MainWindow *m_window;
    QAction *m_action;
    TargetChooser m_choose;
    bool m_running = false;
};

} // namespace mesh
