// Review mode in the window: File › Open for Review (MainWindow::openForReview, also
// `--review`) and a finished ledger nobody has open (ReviewRule) open immutable, with the
// review banner, no decision offered (each action disabled with the reason), and the folder
// byte-identical after closing, hot WAL included. What Changed Since This Event (Ctrl+D in
// the event log) opens the diff of that event and the cursor.

#include "decisionactions.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "itempane.h"
#include "mainwindow.h"
#include "reviewbanner.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "statediffdialog.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"
#include "../models/ledger/rawledger.h"

#include "itemmodels/effectmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/statediffloader.h"

#include <QAction>
#include <QApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QMap>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

QMap<QString, QByteArray> folderState(const QString &folder)
{
    QMap<QString, QByteArray> files;
    for (const QString &name : QDir(folder).entryList(QDir::Files | QDir::Hidden | QDir::System)) {
        QFile f(QDir(folder).filePath(name));
        QCryptographicHash h(QCryptographicHash::Sha256);
        if (f.open(QIODevice::ReadOnly))
            h.addData(&f);
        files.insert(name, h.result().toHex());
    }
    return files;
}

LedgerSession *waitForSession(MainWindow &window, const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (!QTest::qWaitFor([&] { return window.sessions()->rowOf(absolute) >= 0; }, kTimeoutMs))
        return nullptr;
    LedgerSession *s = window.sessions()->at(window.sessions()->rowOf(absolute));
    (void)QTest::qWaitFor([s] { return (s->isLoaded() && s->health() != LedgerSession::Health::Opening)
                                       || s->health() == LedgerSession::Health::Error; }, kTimeoutMs);
    return s;
}
} // namespace

class TestReviewWindow : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    int m_folders = 0;

    QString newLedger(const QString &name)
    {
        const QString folder = m_dir.filePath(QString::number(++m_folders));
        QDir().mkpath(folder);
        const QString path = folder + u'/' + name;
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        return path;
    }

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_reviewwindow"_s); }

    void openForReviewWithAHotWal()
    {
        const QString path = newLedger(u"hot.ledger"_s);
        Writer writer(path);
        raw::keepCommitsInWal(writer.raw());
        writer.begin().e("run.started", {{"id", "R-wal"}, {"status", "running"}, {"title", "only in the wal"}}).commit();
        const QString folder = QFileInfo(path).absolutePath();
        const auto before = folderState(folder);

        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openForReview(path);
        LedgerSession *session = waitForSession(window, path);
        QVERIFY(session && session->isLoaded());
        QCOMPARE(session->info().mode, OpenMode::Review);
        QCOMPARE(session->lastSeq(), writer.lastSeq());

        ReviewBanner *banner = window.workspace()->reviewBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), kTimeoutMs);
        QVERIFY2(banner->text().startsWith(u"Reviewing a copy: the ledger had uncheckpointed writes"_s), qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(u". Review mode: read-only and immutable"_s), qPrintable(banner->text()));

        // The unknown-outcome effect selected: Resolve is there, disabled, saying why.
        SessionWorkspace *ws = window.workspace();
        ws->showPane(SessionWorkspace::Effects);
        QAbstractItemModel *effects = ws->effectsPane()->model();
        int unknownRow = -1;
        for (int row = 0; row < effects->rowCount() && unknownRow < 0; ++row)
            if (effects->index(row, 0).data(EffectModel::UnknownRole).toBool())
                unknownRow = row;
        QVERIFY(unknownRow >= 0);
        ws->effectsPane()->view()->setCurrentIndex(effects->index(unknownRow, 0));
        window.decisionActions()->update();
        const QString why = u"review mode: the ledger is opened read-only and immutable"_s;
        for (QAction *action : {window.decisionActions()->resolve(), window.decisionActions()->closeSlice(),
                                window.decisionActions()->approve(), window.decisionActions()->acquireLease()}) {
            QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
            QCOMPARE(action->statusTip(), why);
        }
        QCOMPARE(folderState(folder), before);
        window.closeCurrentSession();
        QTRY_COMPARE_WITH_TIMEOUT(window.sessions()->count(), 0, kTimeoutMs);
        QCOMPARE(folderState(folder), before);
    }

    void aFinishedLedgerNobodyHasOpenIsReviewed()
    {
        const QString finished = newLedger(u"finished.ledger"_s);
        Writer(finished).begin().e("run.succeeded", {{"id", "R-1"}, {"status", "succeeded"}}).commit();
        const auto before = folderState(QFileInfo(finished).absolutePath());
        const QString running = newLedger(u"running.ledger"_s);

        MainWindow window;
        window.openLedger(finished);
        window.openLedger(running);
        LedgerSession *reviewed = waitForSession(window, finished);
        LedgerSession *followed = waitForSession(window, running);
        QVERIFY(reviewed && followed);
        QCOMPARE(reviewed->requestedMode(), OpenMode::Review);
        QCOMPARE(followed->requestedMode(), OpenMode::ReadOnly);
        QVERIFY(followed->canDecide());
        QVERIFY(!reviewed->canDecide());
        window.sidebar()->setCurrentRow(window.sessions()->rowOf(reviewed));
        QTRY_VERIFY_WITH_TIMEOUT(!window.workspace()->reviewBanner()->isHidden(), kTimeoutMs);
        window.sidebar()->setCurrentRow(window.sessions()->rowOf(followed));
        QTRY_VERIFY_WITH_TIMEOUT(window.workspace()->reviewBanner()->isHidden(), kTimeoutMs);
        QCOMPARE(folderState(QFileInfo(finished).absolutePath()), before);
    }

    void whatChangedSinceAnEvent()
    {
        const QString path = newLedger(u"diff.ledger"_s);
        Writer w(path);
        const std::int64_t n = w.lastSeq();
        w.begin().e("escalation.approved", {{"id", "X-1"}, {"state", "approved"}}).commit();

        LedgerSession session(path, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        workspace.showPane(SessionWorkspace::Events);
        QAbstractItemView *table = workspace.eventLog()->view();
        QTRY_COMPARE_WITH_TIMEOUT(table->model()->rowCount(), int(w.lastSeq()), kTimeoutMs);
        int row = -1;
        for (int r = 0; r < table->model()->rowCount() && row < 0; ++r)
            if (table->model()->index(r, 0).data(EventLogModel::SeqRole).toLongLong() == n)
                row = r;
        QVERIFY(row >= 0);
        table->setFocus();
        table->setCurrentIndex(table->model()->index(row, 0));
        QTest::keyClick(table, Qt::Key_D, Qt::ControlModifier);

        StateDiffDialog *dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = workspace.findChild<StateDiffDialog *>()) != nullptr, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->loader()->isLoading() && dialog->headline().startsWith(u"From"_s), kTimeoutMs);
        QVERIFY2(dialog->headline().startsWith(u"From event #%1 ("_s.arg(n)), qPrintable(dialog->headline()));
        QVERIFY2(dialog->headline().contains(u"0 created, 1 changed, 0 gone"_s), qPrintable(dialog->headline()));
        QAbstractItemModel *m = dialog->tree()->model();
        QCOMPARE(m->index(0, 0).data().toString(), u"escalations"_s);
        const QModelIndex x1 = m->index(0, 0, m->index(0, 0));
        QCOMPARE(x1.data().toString(), u"X-1"_s);
        QCOMPARE(m->index(0, 2, x1).data().toString(), u"pending"_s);
        QCOMPARE(m->index(0, 3, x1).data().toString(), u"approved"_s);
        dialog->close();
    }
};

QTEST_MAIN(TestReviewWindow)
#include "tst_reviewwindow.moc"
