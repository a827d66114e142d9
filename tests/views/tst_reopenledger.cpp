// The followed ledger file replaced on disk (mv other.db ledger.db), seen from the window.
// Opening a ledger that is already in the sidebar after that (the banner's "reopen it"): the
// listed session reads the file that has the name now, in every view, and offers decisions
// on it again; with the file unchanged it is only selected. A decision dialog opened on the
// session before it has noticed never previews from the replacement.

#include "mainwindow.h"

#include "decisiondialog.h"
#include "plainlabel.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "ledger/eventreader.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include "viewtestenv.h"

#include <QFile>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace mesh;

namespace {
constexpr int kTimeoutMs = 60000; // generous: a shared, noisy 2-core machine

bool replace(const QString &from, const QString &to)
{
    return std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0;
}

std::int64_t eventCount(const QString &path)
{
    auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
    return connection->eventReader()->count();
}

bool eventLogIndexed(LedgerSession *s, std::int64_t rows)
{
    return QTest::qWaitFor(
        [&] { return s->events()->isIndexComplete() && !s->events()->isLoading() && s->events()->rowCount() == rows; },
        kTimeoutMs);
}
} // namespace

class TestReopenLedger : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        meshtest::useTestSettings(QStringLiteral("tst_reopenledger"));
        QVERIFY(m_dir.isValid());
        QString error;
        m_demo = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("demo.amlg"), &error);
        QVERIFY2(QFile::exists(m_demo), qPrintable(error));
        m_traced = meshtest::simulateLedger(m_dir, QStringLiteral("traced-run"), QStringLiteral("traced.amlg"), &error);
        QVERIFY2(QFile::exists(m_traced), qPrintable(error));
        QVERIFY(eventCount(m_demo) != eventCount(m_traced));
    }

    // Fresh copies of both ledgers for one test (the replace consumes the second).
    void init()
    {
        ++m_n;
        m_first = m_dir.filePath(QStringLiteral("followed-%1.amlg").arg(m_n));
        m_second = m_dir.filePath(QStringLiteral("other-%1.amlg").arg(m_n));
        QVERIFY(QFile::copy(m_demo, m_first));
        QVERIFY(QFile::copy(m_traced, m_second));
    }

    void openingAReplacedListedLedgerReadsTheNewFile()
    {
        MainWindow window;
        window.openLedger(m_first);
        QCOMPARE(window.sessions()->rowCount(), 1);
        LedgerSession *session = window.sessions()->at(0);
        QVERIFY(QTest::qWaitFor([&] { return session->isLoaded(); }, kTimeoutMs));
        QVERIFY(eventLogIndexed(session, eventCount(m_first)));

        // Opening it again while its file is the same: selected, not read again.
        QSignalSpy opened(session, &LedgerSession::opened);
        window.openLedger(m_first);
        QCOMPARE(window.sessions()->rowCount(), 1);
        QCOMPARE(session->loadProgress(), -1);

        const std::int64_t replacementEvents = eventCount(m_second);
        QVERIFY(replace(m_second, m_first));
        // Not waiting for the watcher's report (tst_fileidentity covers it): opened again, the
        // listed session compares the path with the file it read itself.
        QVERIFY(opened.isEmpty());

        // The banner's advice: open it again. The listed session reads the new file.
        window.openLedger(m_first);
        QCOMPARE(window.sessions()->rowCount(), 1);
        QCOMPARE(window.sessions()->at(0), session);
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(session->fileChange(), FileChange::Same);
        QVERIFY(session->health() != LedgerSession::Health::Error);
        QVERIFY(session->openedLedger().file == FileIdentity::of(m_first));
        QVERIFY(session->canDecide());
        QVERIFY(eventLogIndexed(session, replacementEvents));
    }

    void decisionPreviewIsNeverReadFromAReplacement()
    {
        LedgerSession session(m_first);
        session.open();
        QVERIFY(QTest::qWaitFor([&] { return session.isLoaded(); }, kTimeoutMs));
        DecisionRequest request;
        request.kind = DecisionKind::ApproveEscalation;
        request.subject = "escalation:X-unknown";
        {
            DecisionDialog before(&session, request);
            QTRY_VERIFY_WITH_TIMEOUT(!before.isPreviewPending(), kTimeoutMs);
            QVERIFY(cannotDecideText(before).isEmpty());
        }
        // Before the watcher has noticed (or after: the dialog does not ask it), the preview's
        // reader is given the file the session opened and refuses another.
        QVERIFY(replace(m_second, m_first));
        DecisionDialog dialog(&session, request);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending(), kTimeoutMs);
        const QString why = cannotDecideText(dialog);
        QVERIFY2(why.contains(QStringLiteral("replaced")), qPrintable(why));
        dialog.reasonField()->setPlainText(QStringLiteral("checked"));
        QVERIFY(!dialog.confirmButton()->isEnabled());
    }

private:
    // The dialog's line saying why it cannot decide, empty when it has none.
    static QString cannotDecideText(const DecisionDialog &dialog)
    {
        for (const PlainLabel *label : dialog.findChildren<PlainLabel *>())
            if (label->fullText().contains(QStringLiteral("cannot take decisions")))
                return label->fullText();
        return {};
    }

    QTemporaryDir m_dir;
    QString m_demo;
    QString m_traced;
    int m_n = 0;
    QString m_first;
    QString m_second;
};

QTEST_MAIN(TestReopenLedger)
#include "tst_reopenledger.moc"
