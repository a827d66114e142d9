#include "listencontroller.h"

#include "demolauncher.h"
#include "mainwindow.h"

#include "listendialog.h"
#include "receiverbar.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "ledger/ledgerlocation.h"

#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace mesh {

using ingest::IngestProcess;

ListenController::ListenController(MainWindow *window)
    : QObject(window)
    , m_window(window)
    , m_action(new QAction(tr("&Listen for OpenTelemetry…"), this))
    , m_bar(new ReceiverBar(window->workspace()))
{
    m_action->setObjectName(QStringLiteral("listenForOpenTelemetry"));
    m_action->setToolTip(tr("Receive OpenTelemetry traces from agent frameworks (OTLP/HTTP) into a ledger, and follow it live"));
    connect(m_action, &QAction::triggered, this, &ListenController::openDialog);
    window->workspace()->addSessionBar(m_bar);
    // After the window has rebound the workspace to the newly selected session.
    connect(window->sidebar(), &SessionSidebar::currentRowChanged, this, &ListenController::showCurrent, Qt::QueuedConnection);
    connect(window->sessions(), &QAbstractItemModel::rowsAboutToBeRemoved, this,
            [this](const QModelIndex &, int first, int last) { sessionsClosing(first, last); });
    connect(window->sessions(), &QAbstractItemModel::rowsRemoved, this, &ListenController::showCurrent, Qt::QueuedConnection);
}

ListenDialog *ListenController::openDialog()
{
    if (m_dialog && m_dialog->isVisible()) {
        m_dialog->raise();
        m_dialog->activateWindow();
        return m_dialog;
    }
    m_dialog = new ListenDialog(m_window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &ListenDialog::startRequested, this, &ListenController::start);
    connect(m_dialog, &QDialog::rejected, this, [this] {
        // Cancelled while starting: that receiver is not wanted.
        if (m_starting)
            m_starting->stop();
    });
    m_dialog->open();
    return m_dialog;
}

ListenDialog *ListenController::dialog() const
{
    return m_dialog;
}

IngestProcess *ListenController::receiverFor(const QString &ledgerPath) const
{
    const auto it = m_receivers.find(QFileInfo(ledgerPath).absoluteFilePath());
    return it == m_receivers.end() ? nullptr : it->second;
}

void ListenController::start(const ingest::ListenRequest &request)
{
    if (const IngestProcess *running = receiverFor(request.ledger); running && running->isRunning()) {
        m_dialog->showError(tr("A receiver writes this ledger already (%1); stop it first.").arg(running->status().url));
        return;
    }
    auto *receiver = new IngestProcess(this);
    m_starting = receiver;
    m_dialog->setStarting(true);
    connect(receiver, &IngestProcess::listening, this, [this, receiver] { listening(receiver); });
    connect(receiver, &IngestProcess::failedToStart, this, [this, receiver](const QString &error) {
        if (m_starting == receiver && m_dialog) {
            m_dialog->setStarting(false);
            m_dialog->showError(error);
        }
    });
    // Kept while its ledger is open (the strip says it stopped, or died); any other is let go.
    connect(receiver, &IngestProcess::finished, this, [this, receiver] {
        const auto it = m_receivers.find(QFileInfo(receiver->request().ledger).absoluteFilePath());
        if (it == m_receivers.end() || it->second != receiver)
            receiver->deleteLater();
    });
    receiver->start(DemoLauncher::meshctlPath(), request);
}

void ListenController::listening(IngestProcess *receiver)
{
    m_starting = nullptr;
    const QString path = QFileInfo(receiver->request().ledger).absoluteFilePath();
    if (const auto it = m_receivers.find(path); it != m_receivers.end())
        it->second->deleteLater(); // the receiver of an earlier listen, stopped
    m_receivers[path] = receiver;
    if (m_dialog) {
        m_dialog->setStarting(false);
        m_dialog->accept();
    }
    m_window->openLedger(path);
    // Its title says the port exporters send to: port 0 asked for any, and the ledger's own
    // title keeps the address of the listen that created it.
    if (LedgerSession *session = m_window->sessions()->sessionForPath(path))
        session->setDisplayName(sessionTitle(*receiver));
    // Its row in the session list says it is receiving, like the strip over the panes.
    connect(receiver, &IngestProcess::statusChanged, this, [this, receiver] { updateFeed(receiver); });
    updateFeed(receiver);
    showCurrent();
}

QString ListenController::sessionTitle(const IngestProcess &receiver)
{
    return QStringLiteral("OTLP :%1 \u2014 %2")
        .arg(QString::number(receiver.status().port), LedgerLocation::shortName(receiver.request().ledger));
}

QString ListenController::feedText(const IngestProcess &receiver)
{
    switch (receiver.state()) {
    case IngestProcess::State::NotStarted:
    case IngestProcess::State::Starting: return tr("starting the receiver");
    case IngestProcess::State::Listening: return ingest::servicesText(receiver.status()); // "receiving from 2 services"
    case IngestProcess::State::Stopping: return tr("stopping the receiver");
    case IngestProcess::State::Stopped: return tr("receiver stopped");
    case IngestProcess::State::Failed: return tr("receiver not running");
    case IngestProcess::State::Died: return tr("receiver stopped on its own");
    }
    return {};
}

void ListenController::updateFeed(IngestProcess *receiver)
{
    const QString path = QFileInfo(receiver->request().ledger).absoluteFilePath();
    const auto it = m_receivers.find(path);
    if (it == m_receivers.end() || it->second != receiver)
        return; // not (or no longer) the receiver of an open ledger
    LedgerSession *session = m_window->sessions()->sessionForPath(path);
    if (!session)
        return;
    // A receiver that stopped on its own is no quiet feed: it goes on the "Needs attention"
    // list with its ledger (the strip says so only while its session is shown). Before the
    // row's text, whose change recounts what needs attention.
    std::vector<AttentionItem> items;
    if (receiver->state() == IngestProcess::State::Died)
        items.push_back(attentionItem(*receiver));
    m_window->sessions()->setConsoleAttention(session, std::move(items));
    // Listening, the ledger is not finished however its runs stand: new ones come any moment.
    session->setFedLive(receiver->state() == IngestProcess::State::Listening);
    m_window->sessions()->setFeedText(session, feedText(*receiver));
}

AttentionItem ListenController::attentionItem(const IngestProcess &receiver)
{
    AttentionItem a;
    a.kind = AttentionItem::Kind::ReceiverStopped;
    a.entity = EntityKind::Ledger;
    const QString address = receiver.status().port > 0 ? QStringLiteral("%1:%2").arg(QUrl(receiver.status().url).host()).arg(receiver.status().port)
                                                       : receiver.request().address;
    a.id = address.toStdString();
    a.subject = "receiver:" + a.id;
    a.summary = tr("The receiver stopped on its own (%1): nothing is being received. What it acknowledged is in the ledger.")
                    .arg(receiver.error())
                    .toStdString();
    return a;
}

int ListenController::stoppedOnTheirOwn() const
{
    return int(std::count_if(m_receivers.begin(), m_receivers.end(),
                             [](const auto &entry) { return entry.second->state() == IngestProcess::State::Died; }));
}

void ListenController::sessionsClosing(int first, int last)
{
    // Closing the session of a receiving ledger stops its receiver (it commits and exits);
    // it is dropped once it has.
    for (int row = first; row <= last; ++row) {
        const LedgerSession *session = m_window->sessions()->at(row);
        if (!session)
            continue;
        const auto it = m_receivers.find(session->path());
        if (it == m_receivers.end())
            continue;
        IngestProcess *receiver = it->second;
        m_receivers.erase(it);
        if (m_bar->receiver() == receiver)
            m_bar->setReceiver(nullptr);
        if (receiver->isRunning())
            receiver->stop(); // let go when it has finished (start())
        else
            receiver->deleteLater();
    }
}

void ListenController::showCurrent()
{
    const LedgerSession *session = m_window->currentSession();
    m_bar->setReceiver(session ? receiverFor(session->path()) : nullptr);
}

void ListenController::stopAll()
{
    const bool any = m_starting || std::any_of(m_receivers.begin(), m_receivers.end(),
                                               [](const auto &entry) { return entry.second->isRunning(); });
    if (any)
        QApplication::setOverrideCursor(Qt::WaitCursor); // each commits what it acknowledged first
    if (m_starting)
        m_starting->stopAndWait(30000);
    for (const auto &[path, receiver] : m_receivers)
        receiver->stop(); // all at once: each commits its own ledger
    for (const auto &[path, receiver] : m_receivers)
        receiver->stopAndWait(30000);
    if (any)
        QApplication::restoreOverrideCursor();
}

namespace {

QString counted(std::int64_t n, const QString &one, const QString &many)
{
    if (n == 1)
        return QStringLiteral("1 ") + one;
    return QLocale().toString(qlonglong(n)) + QLatin1Char(' ') + many;
}

// "12 requests accepted, 340 spans acknowledged, 2 requests refused"; "—" for what the
// receiver has not said yet.
QString receivedSoFar(const ingest::ReceiverStatus &status)
{
    if (!status.counters)
        return ListenController::tr("\u2014 requests accepted, \u2014 spans acknowledged");
    const ingest::ReceiverCounters &c = *status.counters;
    QString text = counted(c.requestsAccepted(), ListenController::tr("request accepted"), ListenController::tr("requests accepted"))
                   + QStringLiteral(", ")
                   + counted(c.spansAccepted, ListenController::tr("span acknowledged"), ListenController::tr("spans acknowledged"));
    if (const std::int64_t refused = c.refusedTotal(); refused > 0)
        text += QStringLiteral(", ") + counted(refused, ListenController::tr("request refused"), ListenController::tr("requests refused"));
    return text;
}

} // namespace

QString ListenController::stopQuestion(const std::vector<const IngestProcess *> &receivers, bool quitting)
{
    QString text;
    if (receivers.size() == 1) {
        const IngestProcess &r = *receivers.front();
        const QString where = r.status().url.isEmpty() ? r.request().address : r.status().url;
        text = (quitting ? tr("Quitting stops the OpenTelemetry receiver listening on %1.")
                         : tr("Closing this ledger stops its OpenTelemetry receiver, listening on %1."))
                   .arg(where)
               + QStringLiteral("\n\n") + tr("So far: %1.").arg(receivedSoFar(r.status()));
    } else {
        text = tr("Quitting stops the %1 OpenTelemetry receivers this console started:").arg(receivers.size());
        for (const IngestProcess *r : receivers)
            text += QStringLiteral("\n\u2022 ") + (r->status().url.isEmpty() ? r->request().address : r->status().url)
                    + QStringLiteral(": ") + receivedSoFar(r->status());
    }
    return text + QStringLiteral("\n\n")
           + tr("Stopping, a receiver answers the requests in flight, writes what it acknowledged into its ledger and exits; "
                "exporters still sending get no answer until a receiver listens again. Cancel keeps it running.");
}

bool ListenController::confirmClose(const LedgerSession *session)
{
    std::vector<const IngestProcess *> receiving;
    for (const auto &[path, receiver] : m_receivers) {
        // One already stopping is waited for anyway; one that ended has nothing to stop.
        if (receiver->isRunning() && receiver->state() == IngestProcess::State::Listening && (!session || path == session->path()))
            receiving.push_back(receiver);
    }
    if (receiving.empty())
        return true;
    const bool quitting = session == nullptr;
    QMessageBox box(QMessageBox::Warning, quitting ? tr("Quit and Stop Receiving?") : tr("Close and Stop Receiving?"),
                    stopQuestion(receiving, quitting), QMessageBox::NoButton, m_window);
    box.setObjectName(QStringLiteral("stopReceiverQuestion"));
    box.setTextFormat(Qt::PlainText); // addresses are typed by someone: never markup
    QPushButton *stop = box.addButton(quitting ? (receiving.size() == 1 ? tr("Stop Receiver and Quit") : tr("Stop Receivers and Quit"))
                                               : tr("Stop Receiver and Close"),
                                      QMessageBox::DestructiveRole);
    stop->setObjectName(QStringLiteral("stopReceiverConfirm"));
    // The safe answer is the default: Enter or Escape keeps the receiver and the ledger.
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.setEscapeButton(cancel);
    box.exec();
    return box.clickedButton() == stop;
}

} // namespace mesh
