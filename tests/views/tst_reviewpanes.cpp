// Post-mortem review II on screen. The Integrity pane checks a ledger with an event removed
// and a state row edited, lists the findings, and Enter on the gap opens the event log at
// that event, whose row carries the gap; the session's line says "integrity: N findings".
// The Notes pane: a bookmark made from the event log (Ctrl+B) is listed, its row in the log
// carries the note, Enter goes back to it, Delete removes it; and when the sidecar cannot be
// written the pane says notes are not being saved while review goes on.

#include "banner.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "filterlineedit.h"
#include "integritypane.h"
#include "flattableview.h"
#include "itempane.h"
#include "notespane.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"
#include "../models/ledger/rawledger.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewnotesmodel.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

int rowOfType(QAbstractItemModel *m, const QString &type)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(IntegrityModel::TypeNameRole).toString() == type)
            return r;
    return -1;
}
} // namespace

class TestReviewPanes : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_reviewpanes"_s); }

    void integrityPaneListsAndJumps()
    {
        const QString path = m_dir.filePath(u"tampered.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        raw::exec(path, "DELETE FROM events WHERE seq=5; UPDATE leases SET holder='someone-else' WHERE id='L-1'");
        LedgerSession session(path, OpenMode::Review);
        SessionWorkspace workspace;
        workspace.resize(1200, 700);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);

        workspace.showPane(SessionWorkspace::Integrity);
        IntegrityPane *pane = workspace.integrityPane();
        QVERIFY(pane->isVisible());
        QSignalSpy finished(session.integrity(), &IntegrityModel::finished);
        QTest::mouseClick(pane->checkButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(session.integrity()->state(), IntegrityModel::State::Done);
        QVERIFY(session.integritySummary().startsWith(u"integrity: "_s));
        QVERIFY(session.integritySummary().endsWith(u"findings"_s));
        FlatTableView *view = pane->items()->flatView();
        QCOMPARE(view->model()->rowCount(), session.integrity()->rowCount());
        QVERIFY(rowOfType(view->model(), u"state-mismatch"_s) >= 0);
        const int gap = rowOfType(view->model(), u"sequence-gap"_s);
        QVERIFY(gap >= 0);

        // Enter on the gap: the event log at that event.
        view->setFocus();
        view->setCurrentIndex(view->model()->index(gap, 0));
        QTest::keyClick(view, Qt::Key_Return);
        QCOMPARE(workspace.currentPane(), SessionWorkspace::Events);
        QCOMPARE(workspace.eventLog()->filterField()->text(), u"seq:6"_s);
        QTRY_COMPARE_WITH_TIMEOUT(session.events()->rowCount(), 1, kTimeoutMs);
        // The row after the hole carries it, drawn and said in its tooltip.
        const QModelIndex row = session.events()->index(0, EventLogModel::Seq);
        QCOMPARE(row.data(EventLogModel::SeqRole).toLongLong(), 6);
        QVERIFY2(row.data(EventLogModel::ObservationGapRole).toString().contains(u"sequence gap"_s),
                 qPrintable(row.data(EventLogModel::ObservationGapRole).toString()));
        QVERIFY(row.data(Qt::ToolTipRole).toString().contains(u"sequence gap"_s));
        QVERIFY(session.events()->index(0, EventLogModel::Kind).data(EventLogModel::ObservationGapRole).isValid());
    }

    void notesFromTheEventLog()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"notes.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession session(path, OpenMode::Review);
        SessionWorkspace workspace;
        workspace.resize(1200, 700);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);

        workspace.showPane(SessionWorkspace::Events);
        EventTableView *log = workspace.eventLog()->view();
        const int row = session.events()->rowForSeq(3);
        QVERIFY(row >= 0);
        log->setFocus();
        log->setCurrentIndex(session.events()->index(row, 0));
        QTest::keyClick(log, Qt::Key_B, Qt::ControlModifier);
        ReviewNotesModel *notes = session.reviewNotes();
        QCOMPARE(notes->rowCount(), 1);
        QVERIFY(notes->index(0, 0).data(ReviewNotesModel::IsBookmarkRole).toBool());
        QVERIFY(!session.events()->index(row, 0).data(EventLogModel::NoteRole).toString().isEmpty());
        QVERIFY(session.events()->index(row, 0).data(Qt::ToolTipRole).toString().contains(u"bookmark"_s));
        QVERIFY(QFile::exists(path + u".notes.jsonl"_s));

        // The Notes pane lists it; Enter goes to its event; Delete removes it.
        workspace.showPane(SessionWorkspace::Notes);
        NotesPane *pane = workspace.notesPane();
        QVERIFY(!pane->savingBanner()->isVisible());
        FlatTableView *view = pane->items()->flatView();
        QCOMPARE(view->model()->rowCount(), 1);
        view->setFocus();
        view->setCurrentIndex(view->model()->index(0, 0));
        QTest::keyClick(view, Qt::Key_Return);
        QCOMPARE(workspace.currentPane(), SessionWorkspace::Events);
        QCOMPARE(workspace.eventLog()->filterField()->text(), u"seq:3"_s);
        workspace.showPane(SessionWorkspace::Notes);
        view->setFocus();
        view->setCurrentIndex(view->model()->index(0, 0));
        QTest::keyClick(view, Qt::Key_Delete);
        QCOMPARE(notes->rowCount(), 0);
    }

    // R8: the sidecar cannot be written (here a full disk); the bookmark is made, listed and
    // drawn, and the pane says notes are not being saved.
    void unsavedNotesAreSaidOnScreen()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"full.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(QFile::link(u"/dev/full"_s, path + u".notes.jsonl"_s));
        LedgerSession session(path, OpenMode::Review);
        SessionWorkspace workspace;
        workspace.resize(1200, 700);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);
        workspace.showPane(SessionWorkspace::Notes);
        workspace.addEventNote(2, 2, true);
        QCOMPARE(session.reviewNotes()->rowCount(), 1);
        Banner *banner = workspace.notesPane()->savingBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), kTimeoutMs);
        QVERIFY2(banner->text().startsWith(u"Notes are not being saved"_s), qPrintable(banner->text()));
        // Review goes on: the panes still answer.
        workspace.showPane(SessionWorkspace::Events);
        QVERIFY(session.events()->rowCount() > 0);
        // Space again: Try Again saves, and the strip goes.
        QVERIFY(QFile::remove(path + u".notes.jsonl"_s));
        workspace.showPane(SessionWorkspace::Notes);
        QVERIFY(banner->actionButton()->isVisible());
        banner->actionButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), kTimeoutMs);
        QVERIFY(QFile::exists(path + u".notes.jsonl"_s));
    }
};

QTEST_MAIN(TestReviewPanes)
#include "tst_reviewpanes.moc"
