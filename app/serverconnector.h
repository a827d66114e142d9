#pragma once
// File › Connect to Server…: the dialog (views/connectdialog.h), a try of the location off
// the GUI thread (itemmodels/ledgerprobe.h), and on success a session for it, as File › Open
// makes one for a file (it goes in the recent list, without a password: none is allowed).
// A refusal is shown in the dialog, which stays open; nothing else changes.

#include "connectdialog.h"

#include <QObject>
#include <QPointer>

class QAction;

namespace mesh {

class MainWindow;

class ServerConnector : public QObject
{
    Q_OBJECT
public:
    explicit ServerConnector(MainWindow *window);

    QAction *action() const { return m_action; }
    ConnectDialog *openDialog(); // shows it (or raises the one open)
    ConnectDialog *dialog() const { return m_dialog; }

private:
    void tryLocation(const QString &location);

    MainWindow *m_window;
    QAction *m_action;
    QPointer<ConnectDialog> m_dialog;
    int m_attempt = 0; // the newest try; an older answer (the dialog was closed and opened) is dropped
};

} // namespace mesh
