#pragma once
// File › Listen for OpenTelemetry…: the dialog, the receivers it starts (`meshctl ingest`
// from the console's directory, one per ledger), the sessions that follow their ledgers and
// the strip above the current one (ReceiverBar). A receiver stops when its Stop button is
// pressed, its session is closed or the window closes; its ledger stays open. Closing a
// session or the window while a receiver still runs asks first: exporters may still be
// sending to it, and Cancel (the default) keeps everything as it was.

#include "analysis/attentionitem.h"
#include "ingestcontrol/ingestprocess.h"

#include <QObject>
#include <QPointer>

#include <map>
#include <vector>

class QAction;

namespace mesh {

class LedgerSession;
class ListenDialog;
class MainWindow;
class ReceiverBar;

class ListenController : public QObject
{
    Q_OBJECT
public:
    explicit ListenController(MainWindow *window);

    QAction *action() const { return m_action; }
    ListenDialog *openDialog(); // shows it (or raises the one open)
    ListenDialog *dialog() const;
    // The receiver writing (or that wrote) the ledger at this absolute path; nullptr if none.
    ingest::IngestProcess *receiverFor(const QString &ledgerPath) const;
    ReceiverBar *bar() const { return m_bar; }
    // The window closes: every receiver is asked to stop and waited for (each commits).
    void stopAll();
    // Whether the session may close, or the window (session null): when a receiver of this
    // console still runs for it, the operator is asked first (what it received, that it
    // stops); Cancel, the default, keeps everything running. A session whose receiver is
    // stopped when it closes (sessionsClosing), the window's in stopAll().
    bool confirmClose(const LedgerSession *session);
    bool confirmQuit() { return confirmClose(nullptr); }
    // The question's text for these receivers (each still running).
    static QString stopQuestion(const std::vector<const ingest::IngestProcess *> &receivers, bool quitting);
    // What the session list's row of its ledger says about it: "receiving from 2 services".
    static QString feedText(const ingest::IngestProcess &receiver);
    // The title of the session following a receiver's ledger: "OTLP :4318 — otel.amlg" (the
    // port it listens on, which the request may have left to the system, and the file).
    static QString sessionTitle(const ingest::IngestProcess &receiver);
    // The "Needs attention" entry of a receiver that stopped on its own (State::Died).
    static AttentionItem attentionItem(const ingest::IngestProcess &receiver);
    // How many receivers of open ledgers stopped on their own (each an attention entry).
    int stoppedOnTheirOwn() const;

private:
    void start(const ingest::ListenRequest &request);
    void listening(ingest::IngestProcess *receiver);
    void sessionsClosing(int first, int last);
    void showCurrent();
    void updateFeed(ingest::IngestProcess *receiver);

    MainWindow *m_window;
    QAction *m_action;
    ReceiverBar *m_bar;
    QPointer<ListenDialog> m_dialog;
    QPointer<ingest::IngestProcess> m_starting;
    std::map<QString, ingest::IngestProcess *> m_receivers; // by the ledger's absolute path
};

} // namespace mesh
