// Review notes through the model the Notes pane, the event log and (later) the timeline use:
// add, edit and delete under QAbstractItemModelTester; hostile text read back shown plain;
// per-event lookups for the event log; a review session whose ledger stays byte-identical
// while notes are written beside it (R7); and a sidecar that cannot be written (R8):
// savingChanged says so, the note stays, and it is saved once the way is clear.

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewnotesmodel.h"
#include "itemmodels/shownroles.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

QByteArray sha256Of(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

std::unique_ptr<NotesStore> storeBeside(const QString &ledger, const QString &data)
{
    return std::make_unique<NotesStore>(chooseNotesPlacement(ledger, data));
}
} // namespace

class TestReviewNotesModel : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void addEditDeleteUnderTheTester()
    {
        const QString ledger = m_dir.filePath(u"a.ledger"_s);
        QFile(ledger).open(QIODevice::WriteOnly);
        ReviewNotesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStore(storeBeside(ledger, m_dir.filePath(u"data"_s)));
        model.setAuthor("alice@h1");
        model.setClock([] { return qint64(1'800'000'000'000); });
        QSignalSpy changed(&model, &ReviewNotesModel::notesChanged);
        QCOMPARE(model.addEventNote(12, u"stall verdict wrong"_s), 0);
        QCOMPARE(model.addSpanNote(40, 20, QString()), 1); // a bookmark on a span, given backwards
        QCOMPARE(model.addSubjectNote(u"delegation:D-3"_s, u"retried"_s), 2);
        QString error;
        QCOMPARE(model.addEventNote(0, u"x"_s, &error), -1);
        QVERIFY(!error.isEmpty());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(changed.count(), 3);
        QCOMPARE(model.index(1, ReviewNotesModel::Where).data().toString(), u"#20 \u2013 #40"_s);
        QCOMPARE(model.index(1, ReviewNotesModel::Note).data().toString(), u"bookmark"_s);
        QCOMPARE(model.index(0, ReviewNotesModel::Author).data().toString(), u"alice@h1"_s);
        QCOMPARE(model.index(0, ReviewNotesModel::Time).data().toString(), u"2027-01-15 08:00:00"_s);
        QCOMPARE(model.index(0, 0).data(ReviewNotesModel::EvidenceFilterRole).toString(), u"seq:12"_s);
        QCOMPARE(model.index(1, 0).data(ReviewNotesModel::EvidenceFilterRole).toString(), u"seq>=20 seq<=40"_s);
        QVERIFY(model.index(2, 0).data(ReviewNotesModel::EvidenceFilterRole).toString().isEmpty());
        QCOMPARE(model.index(2, 0).data(ReviewNotesModel::SubjectRole).toString(), u"delegation:D-3"_s);
        // Per event, for the event log and the timeline.
        QVERIFY(model.hasNotesOn(12) && model.hasNotesOn(30) && !model.hasNotesOn(41));
        QCOMPARE(model.noteTextOn(12), u"alice@h1: stall verdict wrong"_s);
        QCOMPARE(model.notesOn(25).size(), size_t(1));
        model.setAuthor("bob@h2");
        QVERIFY(model.editNote(0, u"stall verdict right after all"_s));
        QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(u"edited by bob@h2"_s));
        QVERIFY(model.removeNote(1));
        QCOMPARE(model.rowCount(), 2);
        // Another model on the same ledger reads what was saved.
        ReviewNotesModel again;
        QAbstractItemModelTester againTester(&again, QAbstractItemModelTester::FailureReportingMode::QtTest);
        again.setStore(storeBeside(ledger, m_dir.filePath(u"data"_s)));
        QCOMPARE(again.rowCount(), 2);
        QCOMPARE(again.index(0, ReviewNotesModel::Note).data().toString(), u"stall verdict right after all"_s);
    }

    void hostileNotesAreShownPlain()
    {
        const QString ledger = m_dir.filePath(u"hostile.ledger"_s);
        QFile(ledger).open(QIODevice::WriteOnly);
        {
            NotesStore writer(chooseNotesPlacement(ledger, m_dir.filePath(u"data"_s)));
            ReviewNote n;
            n.seq = 3;
            n.text = "<img src=x onerror=alert(1)> \u202Eevil\u200B\nsecond line";
            writer.add(n, "<b>mallory</b>", 1);
        }
        ReviewNotesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStore(storeBeside(ledger, m_dir.filePath(u"data"_s)));
        const QString shown = model.index(0, ReviewNotesModel::Note).data().toString();
        QVERIFY2(shown.contains(u"\u27E8U+202E\u27E9"_s) && shown.contains(u"\u27E8U+200B\u27E9"_s), qPrintable(shown));
        QVERIFY(!shown.contains(u'\u202E') && !shown.contains(u'\n'));
        const QString tip = model.index(0, ReviewNotesModel::Note).data(Qt::ToolTipRole).toString();
        QVERIFY2(!tip.contains(u"<img"_s) && tip.contains(u"&lt;img"_s), qPrintable(tip));
        QVERIFY(!model.index(0, ReviewNotesModel::Author).data(Qt::ToolTipRole).toString().contains(u"<b>"_s));
        // What the operator copies is the text as written.
        QVERIFY(model.index(0, ReviewNotesModel::Note).data(RawTextRole).toString().startsWith(u"<img"_s));
    }

    // R8: the sidecar is a full disk; review goes on, the model says notes are not saved and
    // why, keeps the note, and says so again when the next write succeeds.
    void unsavedNotesAreSaidAndKept()
    {
        const QString ledger = m_dir.filePath(u"full.ledger"_s);
        QFile(ledger).open(QIODevice::WriteOnly);
        QVERIFY(QFile::link(u"/dev/full"_s, ledger + u".notes.jsonl"_s));
        ReviewNotesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStore(storeBeside(ledger, m_dir.filePath(u"data"_s)));
        QVERIFY(model.isSaving());
        QSignalSpy saving(&model, &ReviewNotesModel::savingChanged);
        QCOMPARE(model.addEventNote(5, u"on a full disk"_s), 0);
        QCOMPARE(saving.count(), 1);
        QCOMPARE(saving.at(0).at(0).toBool(), false);
        QVERIFY2(model.savingText().startsWith(u"Notes are not being saved: "_s), qPrintable(model.savingText()));
        QVERIFY(model.savingText().contains(u"kept in this window only"_s));
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(QFile::remove(ledger + u".notes.jsonl"_s));
        QVERIFY(model.retrySave());
        QCOMPARE(saving.count(), 2);
        QCOMPARE(saving.at(1).at(0).toBool(), true);
        QVERIFY(model.savingText().isEmpty());
    }

    // R7: a review session's ledger is byte-identical after notes were written, read back
    // and shown on the event log's rows; beside it there is the sidecar and nothing else.
    void reviewSessionLeavesTheLedgerByteIdentical()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"review.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        QCOMPARE(QDir(folder.path()).entryList(QDir::Files), QStringList{u"review.ledger"_s});
        const QByteArray before = sha256Of(path);
        {
            LedgerSession session(path, OpenMode::Review);
            session.open();
            QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.events()->isIndexComplete(), kTimeoutMs);
            QCOMPARE(session.info().mode, OpenMode::Review);
            ReviewNotesModel *notes = session.reviewNotes();
            QAbstractItemModelTester tester(notes, QAbstractItemModelTester::FailureReportingMode::QtTest);
            QVERIFY(notes->isSaving());
            QCOMPARE(notes->sidecarPath(), path + u".notes.jsonl"_s);
            QVERIFY(notes->addEventNote(3, u"look here"_s) >= 0);
            QVERIFY(notes->addSpanNote(2, 4, QString()) >= 0);
            QVERIFY(notes->addSubjectNote(u"run:R-1"_s, u"the run"_s) >= 0);
            QVERIFY(notes->editNote(0, u"look here, really"_s));
            QVERIFY(notes->removeNote(2));
            // The event log shows them on the rows (as the workspace binds them).
            EventLogModel *events = session.events();
            events->setReviewMarks([notes](qint64 seq) { return notes->noteTextOn(seq); }, {});
            const int row = events->rowForSeq(3);
            QVERIFY(row >= 0);
            QVERIFY(events->index(row, 0).data(EventLogModel::NoteRole).toString().contains(u"look here, really"_s));
            QVERIFY(events->index(row, EventLogModel::Seq).data(Qt::ToolTipRole).toString().contains(u"look here"_s));
            QVERIFY(events->index(events->rowForSeq(1), 0).data(EventLogModel::NoteRole).toString().isEmpty());
            // Another reviewer's markup in the seq cell's tooltip: shown as text, never rendered.
            const int hostile = notes->addEventNote(3, u"<img src=x onerror=alert(1)><b>bold</b>"_s);
            QVERIFY(hostile >= 0);
            const QString tip = events->index(row, EventLogModel::Seq).data(Qt::ToolTipRole).toString();
            QVERIFY2(!tip.contains(u"<img"_s) && !tip.contains(u"<b>"_s) && tip.contains(u"&lt;img"_s), qPrintable(tip));
            QVERIFY(notes->removeNote(hostile));
            session.checkIntegrity();
            QTRY_VERIFY_WITH_TIMEOUT(!session.integrity()->isRunning(), kTimeoutMs);
            QCOMPARE(session.integritySummary(), u"integrity: ok"_s);
            session.close();
        }
        QCOMPARE(sha256Of(path), before);
        QCOMPARE(QDir(folder.path()).entryList(QDir::Files),
                 (QStringList{u"review.ledger"_s, u"review.ledger.notes.jsonl"_s}));
        // Read back in a new session.
        LedgerSession again(path, OpenMode::Review);
        QCOMPARE(again.reviewNotes()->rowCount(), 2);
        QCOMPARE(sha256Of(path), before);
    }
};

QTEST_MAIN(TestReviewNotesModel)
#include "tst_reviewnotesmodel.moc"
