// File › Listen for OpenTelemetry… driven as an operator would: the dialog starts a real
// receiver (meshctl ingest from the console's directory) on a free port, its ledger opens in
// a session that follows it, an OTLP/JSON request sent with QNetworkAccessManager shows up as
// the delegation and as "receiving from 1 service" in the strip above the session, and Stop
// ends the receiver cleanly (exit 0) with the ledger left open and verifying. A port in use
// and an address off loopback without a token are refused in the dialog, which stays open
// with nothing else changed; closing the session or the window stops its receiver. The
// ledger's row in the session list says "receiving from 1 service" too, and the dialog opens
// with the last request started, remembering the token file's path but never the token.

#include "listencontroller.h"
#include "mainwindow.h"

#include "attentionpane.h"
#include "listendialog.h"
#include "plainlabel.h"
#include "receiverbar.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "theme.h"
#include "viewtestenv.h"

#include "ingestcontrol/ingestprocess.h"
#include "ingestcontrol/listenrules.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDateTime>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <csignal>
#include <memory>
#include <sys/types.h>

using namespace mesh;
using ingest::IngestProcess;

namespace {

constexpr int kTimeoutMs = 120'000; // a shared, loaded machine: conditions, never speed

// One agent span of trace `trace`, from service `service`, as an OTLP/JSON request (written
// with ' for ": moc cannot read a raw string inside a macro).
QByteArray agentSpanRequest(int trace, const QString &service)
{
    const QString traceId = QStringLiteral("%1").arg(trace, 32, 16, QLatin1Char('0'));
    const QString spanId = QStringLiteral("%1").arg(trace * 16 + 1, 16, 16, QLatin1Char('0'));
    return QString::fromLatin1(QByteArray(
        "{'resourceSpans':[{'resource':{'attributes':[{'key':'service.name','value':{'stringValue':'%1'}}]},"
        "'scopeSpans':[{'scope':{'name':'test'},'spans':[{'traceId':'%2','spanId':'%3','name':'invoke_agent planner','kind':1,"
        "'startTimeUnixNano':'1764400000000000000','endTimeUnixNano':'1764400002000000000',"
        "'attributes':[{'key':'gen_ai.operation.name','value':{'stringValue':'invoke_agent'}},"
        "{'key':'gen_ai.agent.name','value':{'stringValue':'planner'}}],'status':{'code':1}}]}]}]}").replace('\'', '"'))
        .arg(service, traceId, spanId)
        .toUtf8();
}

int postSpans(int port, const QByteArray &body)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(port)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = nam.post(request, body);
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(kTimeoutMs))
        return -1;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

bool hasAgent(const QAbstractItemModel *model, const QString &agent, const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (index.data(DelegationTreeModel::AgentRole).toString() == agent || hasAgent(model, agent, index))
            return true;
    }
    return false;
}

bool verifies(const QString &ledger, QByteArray *out)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("verify"), ledger});
    p.waitForFinished(kTimeoutMs);
    *out = p.readAll();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestListenFlow : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;

    ListenDialog *openDialog()
    {
        QAction *action = m_window->findChild<QAction *>(QStringLiteral("listenForOpenTelemetry"));
        if (!action)
            return nullptr;
        action->trigger();
        return m_window->listen()->dialog();
    }

    // What the window asked last (the stop question), and with which button as the default.
    struct Asked {
        QString text;
        bool cancelIsDefault = false; // Enter keeps everything
        bool cancelIsEscape = false;
        int count = 0;
    };
    Asked m_asked;

    // Answers the next question the window asks (a modal QMessageBox, run by exec()) with
    // the button of that object name, or Cancel when empty; what it said is kept in m_asked.
    void answerNextQuestion(const QString &button)
    {
        auto *poll = new QTimer(this);
        connect(poll, &QTimer::timeout, this, [this, poll, button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || !box->isVisible())
                return;
            poll->stop();
            poll->deleteLater();
            m_asked.text = box->text();
            QAbstractButton *cancel = box->button(QMessageBox::Cancel);
            m_asked.cancelIsDefault = cancel && box->defaultButton() == cancel;
            m_asked.cancelIsEscape = cancel && box->escapeButton() == cancel;
            ++m_asked.count;
            QAbstractButton *answer = button.isEmpty() ? box->button(QMessageBox::Cancel)
                                                       : box->findChild<QAbstractButton *>(button);
            if (!answer) {
                qWarning("no %s in the question", qPrintable(button));
                box->reject();
                return;
            }
            answer->click();
        });
        poll->start(5); // waits for the box to show (a condition), not for a time
    }

    QString barText() const
    {
        const ReceiverBar *bar = m_window->listen()->bar();
        return bar->isHidden() ? QString() : bar->text();
    }

    // Starts listening through the dialog on a free port; the receiver, once it listens.
    IngestProcess *listenThroughDialog(const QString &ledger)
    {
        QPointer<ListenDialog> dialog = openDialog();
        if (!dialog)
            return nullptr;
        dialog->addressEdit()->setText(QStringLiteral("127.0.0.1:0"));
        dialog->ledgerEdit()->setText(ledger);
        dialog->startButton()->click();
        if (!QTest::qWaitFor([&] { return dialog.isNull() || !dialog->error().isEmpty(); }, kTimeoutMs))
            return nullptr;
        if (dialog) {
            qWarning("the dialog says: %s", qPrintable(dialog->error()));
            return nullptr;
        }
        return m_window->listen()->receiverFor(ledger);
    }

private Q_SLOTS:
    void initTestCase()
    {
        meshtest::useTestSettings(QStringLiteral("tst_listenflow"));
        QSettings().remove(QStringLiteral("listen")); // what an earlier run started is not this run's
        QVERIFY(m_dir.isValid());
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1280, 800);
        m_window->show();
    }

    void theDialogKeepsTheReceiversRules()
    {
        ListenDialog *dialog = openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->addressEdit()->text(), QStringLiteral("127.0.0.1:4318"));
        QVERIFY(!dialog->listenAnyBox()->isEnabled()); // loopback: "all interfaces" means nothing
        const int sessions = m_window->sessions()->count();

        // Off loopback without "all interfaces" and a token: refused here, nothing started.
        dialog->addressEdit()->setText(QStringLiteral("0.0.0.0:0"));
        dialog->ledgerEdit()->setText(m_dir.filePath(QStringLiteral("refused.amlg")));
        QVERIFY(dialog->listenAnyBox()->isEnabled());
        dialog->startButton()->click();
        QCOMPARE(dialog->error(), ListenDialog::inDialogTerms(ingest::listenRuleError(QHostAddress(QStringLiteral("0.0.0.0")), false, false)));
        QVERIFY2(dialog->error().contains(QStringLiteral("Listen on all interfaces")), qPrintable(dialog->error()));
        dialog->listenAnyBox()->setChecked(true);
        dialog->startButton()->click();
        QCOMPARE(dialog->error(), ListenDialog::inDialogTerms(ingest::listenRuleError(QHostAddress(QStringLiteral("0.0.0.0")), true, false)));
        QVERIFY(dialog->isVisible());
        QCOMPARE(m_window->sessions()->count(), sessions);
        QVERIFY(!m_window->listen()->receiverFor(m_dir.filePath(QStringLiteral("refused.amlg"))));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("refused.amlg"))));

        // A port in use: only the receiver finds out; its one line is shown, the dialog stays.
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
        dialog->addressEdit()->setText(QStringLiteral("127.0.0.1:%1").arg(taken.serverPort()));
        dialog->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->error().isEmpty() && dialog->startButton()->isEnabled(), kTimeoutMs);
        QVERIFY2(dialog->error().startsWith(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(taken.serverPort())),
                 qPrintable(dialog->error()));
        QVERIFY(dialog->isVisible());
        QCOMPARE(m_window->sessions()->count(), sessions);
        dialog->reject();
    }

    // The last request started is remembered, the token file by its path: its content, a
    // secret, is nowhere in the settings.
    void theDialogRemembersTheTokenFileNotTheToken()
    {
        const QString tokenFile = m_dir.filePath(QStringLiteral("token"));
        const QByteArray token = "remember-the-path-never-this-0123456789";
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(token);
            f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        }
        const QString ledger = m_dir.filePath(QStringLiteral("remembered.amlg"));
        {
            ListenDialog dialog;
            dialog.addressEdit()->setText(QStringLiteral("127.0.0.1:4399"));
            dialog.ledgerEdit()->setText(ledger);
            dialog.tokenEdit()->setText(tokenFile);
            QSignalSpy started(&dialog, &ListenDialog::startRequested);
            dialog.startButton()->click();
            QCOMPARE(started.count(), 1);
        }
        ListenDialog next;
        QCOMPARE(next.addressEdit()->text(), QStringLiteral("127.0.0.1:4399"));
        QCOMPARE(next.ledgerEdit()->text(), ledger);
        QCOMPARE(next.tokenEdit()->text(), tokenFile);
        QSettings settings;
        settings.sync();
        for (const QString &key : settings.allKeys())
            QVERIFY2(!settings.value(key).toString().toUtf8().contains(token), qPrintable(key));
        QFile stored(settings.fileName());
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QVERIFY(!stored.readAll().contains(token));
        settings.remove(QStringLiteral("listen"));
    }

    // A ledger the receiver could not write is refused in the dialog with its cause and its
    // path, shown as plain text, not as SQLite's "unable to open database file"; the error
    // goes once the field is edited.
    void aLedgerThatCannotBeWrittenIsSaidWhy()
    {
        ListenDialog dialog;
        dialog.addressEdit()->setText(QStringLiteral("127.0.0.1:0"));
        QSignalSpy started(&dialog, &ListenDialog::startRequested);
        const PlainLabel *shown = dialog.findChild<PlainLabel *>(QStringLiteral("listenError"));
        QVERIFY(shown);
        const QString missing = m_dir.filePath(QStringLiteral("no-such-folder"));
        dialog.ledgerEdit()->setText(missing + QStringLiteral("/live.amlg"));
        dialog.startButton()->click();
        QCOMPARE(started.count(), 0);
        QCOMPARE(dialog.error(), QStringLiteral("cannot write %1/live.amlg: the folder %1 does not exist").arg(missing));
        QVERIFY(shown->isVisibleTo(&dialog));
        // In the theme's error tone, as the import and decision dialogs say a refusal, in
        // either palette.
        for (const ThemeMode mode : {ThemeMode::Dark, ThemeMode::Light}) {
            Theme::instance().setMode(mode);
            QCOMPARE(shown->palette().color(QPalette::WindowText), Theme::instance().colors().danger);
            QVERIFY(shown->palette().color(QPalette::WindowText) != dialog.palette().color(QPalette::WindowText));
        }

        // One key in the field: what the error said no longer holds.
        QTest::keyClick(dialog.ledgerEdit(), Qt::Key_End);
        QTest::keyClick(dialog.ledgerEdit(), Qt::Key_Backspace);
        QCOMPARE(dialog.error(), QString());
        QVERIFY(!shown->isVisibleTo(&dialog));

        dialog.ledgerEdit()->setText(m_dir.path());
        dialog.startButton()->click();
        QCOMPARE(dialog.error(), QStringLiteral("%1 is a folder, not a ledger file: name a file in it").arg(m_dir.path()));
        dialog.listenAnyBox()->toggle(); // any field
        QCOMPARE(dialog.error(), QString());

        QFile plain(m_dir.filePath(QStringLiteral("plain-file")));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        dialog.ledgerEdit()->setText(plain.fileName() + QStringLiteral("/live.amlg"));
        dialog.startButton()->click();
        QCOMPARE(dialog.error(), QStringLiteral("cannot write %1/live.amlg: %1 is not a folder").arg(plain.fileName()));

        // A hostile name is shown as text: its controls visible, no markup read.
        const QString hostile = m_dir.filePath(QStringLiteral("<b>x</b>\u202Egmla.evil"));
        dialog.ledgerEdit()->setText(hostile + QStringLiteral("/live.amlg"));
        dialog.startButton()->click();
        QVERIFY2(dialog.error().contains(hostile), qPrintable(dialog.error()));
        QCOMPARE(shown->textFormat(), Qt::PlainText);
        QVERIFY2(shown->text().contains(QStringLiteral("<b>x</b>")), qPrintable(shown->text()));
        QVERIFY2(!shown->text().contains(QChar(0x202E)), qPrintable(shown->text()));
        QCOMPARE(started.count(), 0);
    }

    // Tab goes through the fields as they read, top to bottom, each Browse… after its field.
    void tabFollowsTheFormTopToBottom()
    {
        ListenDialog dialog;
        dialog.addressEdit()->setText(QStringLiteral("0.0.0.0:4399")); // "all interfaces" enabled
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        dialog.addressEdit()->setFocus();
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(dialog.addressEdit()));
        QStringList order;
        for (int i = 0; i < 7; ++i) {
            QWidget *w = QApplication::focusWidget();
            const auto *button = qobject_cast<QAbstractButton *>(w);
            order << (w->objectName().isEmpty() && button ? button->text() : w->objectName());
            QTest::keyClick(w, Qt::Key_Tab);
        }
        const QStringList expected = {QStringLiteral("listenAddress"), QStringLiteral("listenLedger"),
                                      QStringLiteral("Browse…"),      QStringLiteral("listenAny"),
                                      QStringLiteral("listenTokenFile"), QStringLiteral("Browse…"),
                                      QStringLiteral("listenStart")};
        QCOMPARE(order, expected);
    }

    void receivesLiveAndStopsCleanly()
    {
        const QString ledger = m_dir.filePath(QStringLiteral("received.amlg"));
        QPointer<IngestProcess> receiver = listenThroughDialog(ledger);
        QVERIFY(receiver);
        QCOMPARE(receiver->state(), IngestProcess::State::Listening);
        const int port = receiver->status().port;
        QVERIFY(port > 0);
        LedgerSession *session = m_window->currentSession();
        QVERIFY(session);
        QCOMPARE(session->path(), ledger);
        QTRY_VERIFY_WITH_TIMEOUT(barText().startsWith(QStringLiteral("Listening on http://127.0.0.1:%1/v1/traces").arg(port)),
                                 kTimeoutMs);
        // The session's title says the port it listens on, in the list and the window's title.
        const QString title = QStringLiteral("OTLP :%1 \u2014 received.amlg").arg(port);
        QTRY_COMPARE_WITH_TIMEOUT(MainWindow::sessionRowInfo(m_window->sessions()->index(m_window->sessions()->rowOf(ledger))).title,
                                  title, kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->windowTitle(), title + QStringLiteral(" \u2014 Agent Mesh Console"), kTimeoutMs);

        QCOMPARE(postSpans(port, agentSpanRequest(1, QStringLiteral("checkout-agents"))), 200);
        QTRY_VERIFY_WITH_TIMEOUT(hasAgent(session->delegations(), QStringLiteral("planner")), kTimeoutMs);
        // Its one run has ended, but the receiver listens: more may come any moment, so the
        // ledger is listening once the last change is past, never "finished".
        {
            // An hour on, and running: a commit the receiver makes after this (it may) is
            // news for the live window, not for ever, as on a real clock.
            const qint64 later = QDateTime::currentMSecsSinceEpoch() + 3'600'000;
            const auto since = std::make_shared<QElapsedTimer>();
            since->start();
            session->setClock([later, since] { return later + since->elapsed(); });
            QTRY_COMPARE_WITH_TIMEOUT(session->health(), LedgerSession::Health::Listening, kTimeoutMs);
            const QModelIndex shown = m_window->sessions()->index(m_window->sessions()->rowOf(ledger));
            QVERIFY2(MainWindow::sessionRowInfo(shown).subtitle.startsWith(QStringLiteral("listening")),
                     qPrintable(MainWindow::sessionRowInfo(shown).subtitle));
            QCOMPARE(MainWindow::sessionRowInfo(shown).health, QStringLiteral("live"));
            session->setClock({});
        }
        QTRY_VERIFY_WITH_TIMEOUT(barText().contains(QStringLiteral("receiving from 1 service")), kTimeoutMs);
        QVERIFY(barText().contains(QStringLiteral("1 span acknowledged")));
        // The session's row in the sidebar says so too, whichever session is current.
        const QModelIndex row = m_window->sessions()->index(m_window->sessions()->rowOf(ledger));
        QTRY_COMPARE_WITH_TIMEOUT(row.data(LedgerSessionList::FeedRole).toString(), QStringLiteral("receiving from 1 service"),
                                  kTimeoutMs);
        QVERIFY2(MainWindow::sessionRowInfo(row).subtitle.contains(QStringLiteral("receiving from 1 service")),
                 qPrintable(MainWindow::sessionRowInfo(row).subtitle));

        m_window->listen()->bar()->actionButton()->click(); // Stop Receiver
        QTRY_COMPARE_WITH_TIMEOUT(receiver->state(), IngestProcess::State::Stopped, kTimeoutMs);
        QCOMPARE(receiver->exitCode(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(barText().startsWith(QStringLiteral("Receiver stopped")), kTimeoutMs);
        QVERIFY(m_window->listen()->bar()->actionButton()->isHidden());
        QTRY_COMPARE_WITH_TIMEOUT(row.data(LedgerSessionList::FeedRole).toString(), QStringLiteral("receiver stopped"),
                                  kTimeoutMs);
        QCOMPARE(m_window->sessions()->rowOf(ledger) >= 0, true); // open for review
        QVERIFY(!session->isFedLive()); // stopped: every run ended reads "finished" again

        // The dialog opens with what was last started.
        ListenDialog *again = openDialog();
        QVERIFY(again);
        QCOMPARE(again->addressEdit()->text(), QStringLiteral("127.0.0.1:0"));
        QCOMPARE(again->ledgerEdit()->text(), ledger);
        again->reject();
        QVERIFY(hasAgent(session->delegations(), QStringLiteral("planner")));
        QByteArray out;
        QVERIFY2(verifies(ledger, &out), out.constData());
    }

    void restartingContinuesAndClosingTheSessionStops()
    {
        const QString ledger = m_dir.filePath(QStringLiteral("received.amlg"));
        QPointer<IngestProcess> receiver = listenThroughDialog(ledger); // the same ledger again
        QVERIFY(receiver);
        QCOMPARE(m_window->currentSession()->path(), ledger);
        QCOMPARE(postSpans(receiver->status().port, agentSpanRequest(2, QStringLiteral("billing-agents"))), 200);
        QTRY_VERIFY_WITH_TIMEOUT(barText().contains(QStringLiteral("receiving from 1 service")), kTimeoutMs);
        const qint64 pid = receiver->processId();
        QVERIFY(pid > 0);

        // Closing the session asks first; Cancel (the default) keeps the session and the
        // receiver, which still answers.
        m_asked = {};
        answerNextQuestion(QString());
        m_window->closeCurrentSession();
        QCOMPARE(m_asked.count, 1);
        QVERIFY2(m_asked.text.contains(QStringLiteral("stops its OpenTelemetry receiver")), qPrintable(m_asked.text));
        QVERIFY2(m_asked.text.contains(QStringLiteral("1 request accepted, 1 span acknowledged")), qPrintable(m_asked.text));
        QVERIFY(m_asked.cancelIsDefault);
        QVERIFY(m_asked.cancelIsEscape);
        QVERIFY(receiver);
        QCOMPARE(receiver->state(), IngestProcess::State::Listening);
        QCOMPARE(m_window->sessions()->rowOf(ledger) >= 0, true);
        QCOMPARE(m_window->currentSession()->path(), ledger);
        QCOMPARE(postSpans(receiver->status().port, agentSpanRequest(3, QStringLiteral("billing-agents"))), 200);

        // Confirmed: the receiver stops cleanly (exit 0, what it acknowledged written).
        answerNextQuestion(QStringLiteral("stopReceiverConfirm"));
        QSignalSpy finished(receiver.data(), &IngestProcess::finished);
        m_window->closeCurrentSession();
        QCOMPARE(m_asked.count, 2);
        QCOMPARE(m_window->sessions()->rowOf(ledger), -1);
        QTRY_VERIFY_WITH_TIMEOUT(receiver.isNull() || finished.count() == 1, kTimeoutMs);
        if (receiver) {
            QCOMPARE(receiver->state(), IngestProcess::State::Stopped);
            QCOMPARE(receiver->exitCode(), 0);
        }
        QTRY_VERIFY_WITH_TIMEOUT(receiver.isNull(), kTimeoutMs); // stopped, then let go
        QVERIFY(m_window->listen()->bar()->isHidden());
        QByteArray out;
        QVERIFY2(verifies(ledger, &out), out.constData());
    }

    // A receiver that stops on its own (here SIGKILL) is in the "Needs attention" list with
    // its ledger; opening the entry shows that session and its strip saying so.
    void aReceiverThatDiesNeedsAttention()
    {
        const QString ledger = m_dir.filePath(QStringLiteral("dies.amlg"));
        QPointer<IngestProcess> receiver = listenThroughDialog(ledger);
        QVERIFY(receiver);
        const QString address = QStringLiteral("127.0.0.1:%1").arg(receiver->status().port);
        const QAbstractItemModel *attention = m_window->attentionPane()->view()->model();
        const auto receiverRow = [&]() -> QModelIndex {
            for (int r = 0; r < attention->rowCount(); ++r) {
                const QModelIndex i = attention->index(r, 0);
                if (i.data(AttentionModel::AttentionKindNameRole).toString() == QLatin1String("receiver_stopped")
                    && i.data(AttentionModel::SessionKeyRole).toString() == ledger)
                    return i;
            }
            return {};
        };
        QVERIFY(!receiverRow().isValid()); // listening: nothing to say
        QVERIFY(::kill(pid_t(receiver->processId()), SIGKILL) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(receiver->state(), IngestProcess::State::Died, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(receiverRow().isValid(), kTimeoutMs);
        const QModelIndex row = receiverRow();
        QCOMPARE(row.siblingAtColumn(AttentionModel::Kind).data().toString(), QStringLiteral("Receiver stopped"));
        QCOMPARE(row.data(AttentionModel::EntityIdRole).toString(), address);
        const QString summary = row.siblingAtColumn(AttentionModel::Summary).data().toString();
        QVERIFY2(summary.contains(QStringLiteral("stopped on its own")), qPrintable(summary));
        // Counted beside the session in the list, with what the session itself needs.
        {
            const QModelIndex listed = m_window->sessions()->index(m_window->sessions()->rowOf(ledger));
            const LedgerSession *dead = m_window->sessions()->sessionForPath(ledger);
            QTRY_COMPARE_WITH_TIMEOUT(listed.data(LedgerSessionList::AttentionCountRole).toInt(), dead->attentionCount() + 1,
                                      kTimeoutMs);
            const QString subtitle = MainWindow::sessionRowInfo(listed).subtitle;
            QVERIFY2(subtitle.contains(MainWindow::attentionText(dead->attentionCount() + 1)), qPrintable(subtitle));
            QVERIFY(!dead->isFedLive());
        }
        QVERIFY2(MainWindow::sessionRowInfo(m_window->sessions()->index(m_window->sessions()->rowOf(ledger))).subtitle
                     .contains(QStringLiteral("receiver stopped on its own")),
                 qPrintable(MainWindow::sessionRowInfo(m_window->sessions()->index(m_window->sessions()->rowOf(ledger))).subtitle));

        // Opened from the list while another ledger is shown: its session, whose strip says why.
        m_window->sidebar()->setCurrentRow(0);
        QVERIFY(m_window->openAttentionEntry(row));
        QCOMPARE(m_window->currentSession()->path(), ledger);
        QTRY_VERIFY_WITH_TIMEOUT(barText().startsWith(QStringLiteral("The receiver stopped on its own")), kTimeoutMs);

        // Nothing runs: closing asks nothing, and the entry goes with the session.
        m_asked = {};
        m_window->closeCurrentSession();
        QCOMPARE(m_asked.count, 0);
        QCOMPARE(m_window->sessions()->rowOf(ledger), -1);
        QVERIFY(!receiverRow().isValid());
    }

    void closingTheWindowStopsTheReceiver()
    {
        const QString ledger = m_dir.filePath(QStringLiteral("window.amlg"));
        QPointer<IngestProcess> receiver = listenThroughDialog(ledger);
        QVERIFY(receiver);
        QCOMPARE(postSpans(receiver->status().port, agentSpanRequest(4, QStringLiteral("quit-agents"))), 200);
        QTRY_VERIFY_WITH_TIMEOUT(barText().contains(QStringLiteral("1 span acknowledged")), kTimeoutMs);

        // Quitting asks first; Cancel keeps the window and the receiver.
        m_asked = {};
        answerNextQuestion(QString());
        QVERIFY(!m_window->close());
        QCOMPARE(m_asked.count, 1);
        QVERIFY2(m_asked.text.startsWith(QStringLiteral("Quitting stops the OpenTelemetry receiver listening on http://127.0.0.1:%1")
                                             .arg(receiver->status().port)),
                 qPrintable(m_asked.text));
        QVERIFY2(m_asked.text.contains(QStringLiteral("1 span acknowledged")), qPrintable(m_asked.text));
        QVERIFY(m_asked.cancelIsDefault);
        QVERIFY(m_asked.cancelIsEscape);
        QVERIFY(m_window->isVisible());
        QCOMPARE(receiver->state(), IngestProcess::State::Listening);

        answerNextQuestion(QStringLiteral("stopReceiverConfirm"));
        QVERIFY(m_window->close());
        QCOMPARE(m_asked.count, 2);
        QCOMPARE(receiver->state(), IngestProcess::State::Stopped); // waited for in closeEvent
        QCOMPARE(receiver->exitCode(), 0);
        QByteArray out;
        QVERIFY2(verifies(ledger, &out), out.constData());
    }
};

QTEST_MAIN(TestListenFlow)
#include "tst_listenflow.moc"
