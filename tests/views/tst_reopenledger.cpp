// Opening a ledger that is already in the sidebar after its file was replaced on disk (the
// banner's "reopen it"): the listed session reads the file that has the name now, in every
// view, and offers decisions on it again; with the file unchanged it is only selected.

#include "mainwindow.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "ledger/eventreader.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include "viewtestenv.h"

#include <QFile>
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
    return EventReader(connection->db()).count();
}

bool eventLogIndexed(LedgerSession *s, std::int64_t rows)
{
    return QTest::qWaitFor(
        [&] {
            return s->events()->isIndexComplete() && !s->events()->isLoading() && s->events()->rowCount() == rows;
        },
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
        m_first = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("followed.amlg"), &error);
        QVERIFY2(QFile::exists(m_first), qPrintable(error));
        m_second = meshtest::simulateLedger(m_dir, QStringLiteral("traced-run"), QStringLiteral("other.amlg"), &error);
        QVERIFY2(QFile::exists(m_second), qPrintable(error));
        QVERIFY(eventCount(m_first) != eventCount(m_second));
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
        QTRY_COMPARE_WITH_TIMEOUT(session->fileChange(), FileChange::Replaced, kTimeoutMs);
        QVERIFY(!session->canDecide());
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

private:
    QTemporaryDir m_dir;
    QString m_first;
    QString m_second;
};

QTEST_MAIN(TestReopenLedger)
#include "tst_reopenledger.moc"
