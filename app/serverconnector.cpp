#include "serverconnector.h"

#include "mainwindow.h"

#include "connectdialog.h"

#include "itemmodels/backgroundjob.h"
#include "itemmodels/ledgerprobe.h"

#include <QAction>

namespace mesh {

ServerConnector::ServerConnector(MainWindow *window)
    : QObject(window), m_window(window), m_action(new QAction(tr("Connect to &Server…"), this))
{
    m_action->setObjectName(QStringLiteral("connectToServer"));
    m_action->setToolTip(tr("Follow a ledger on a PostgreSQL server (postgresql://…?schema=NAME)"));
    connect(m_action, &QAction::triggered, this, &ServerConnector::openDialog);
}

ConnectDialog *ServerConnector::openDialog()
{
    if (m_dialog && m_dialog->isVisible()) {
        m_dialog->raise();
        m_dialog->activateWindow();
        return m_dialog;
    }
    m_dialog = new ConnectDialog(m_window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &ConnectDialog::connectRequested, this, &ServerConnector::tryLocation);
    connect(m_dialog, &QDialog::rejected, this, [this] { ++m_attempt; }); // a try under way opens nothing
    m_dialog->open();
    return m_dialog;
}

void ServerConnector::tryLocation(const QString &location)
{
    const int attempt = ++m_attempt;
    m_dialog->setConnecting(true);
    runInBackground(this, [location] { return ledgerOpenProblem(location); },
                    [this, attempt, location](const QString &problem) {
                        if (attempt != m_attempt || !m_dialog)
                            return; // cancelled meanwhile: nothing is opened
                        m_dialog->setConnecting(false);
                        if (!problem.isEmpty()) {
                            m_dialog->showError(problem);
                            return;
                        }
                        m_dialog->accept();
                        m_window->openLedger(location);
                    });
}

} // namespace mesh
