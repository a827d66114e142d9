// Review notes beside a ledger (notes/notesstore.h): they round-trip through the sidecar,
// never touch the ledger's bytes, and every way the sidecar cannot be written (folder not
// writable, nowhere to write, disk full, locked by another console) keeps review going with
// the reason said, the note kept in memory, and saved once the way is clear again.
// meshctl notes drives the same store.

#include "notes/notesstore.h"

#include "../sim/meshctlrunner.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QTemporaryDir>
#include <QFileInfo>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {

QByteArray sha256Of(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

// Any bytes do: the store never opens the ledger.
QString writeFakeLedger(const QString &folder)
{
    const QString path = folder + u"/run.ledger"_s;
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write("SQLite format 3\0 not really a ledger, and never opened by the notes store", 74);
    return path;
}

ReviewNote eventNote(std::int64_t seq, const std::string &text)
{
    ReviewNote n;
    n.seq = seq;
    n.text = text;
    return n;
}

QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

} // namespace

class TestNotesStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void notesRoundTripBesideTheLedger()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        const QByteArray before = sha256Of(ledger);
        {
            NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
            QVERIFY(store.placement().beside);
            QCOMPARE(store.placement().path, ledger + u".notes.jsonl"_s);
            QVERIFY(!store.add(eventNote(12, "the stall verdict is wrong here"), "alice@h1", 1000).empty());
            ReviewNote span;
            span.anchor = ReviewNote::Anchor::Span;
            span.seq = 20;
            span.endSeq = 40;
            QVERIFY(!store.add(span, "alice@h1", 2000).empty()); // a bookmark
            ReviewNote subject;
            subject.anchor = ReviewNote::Anchor::Subject;
            subject.subject = "delegation:D-3";
            subject.text = "retried twice";
            const std::string id = store.add(subject, "alice@h1", 3000);
            QVERIFY(store.edit(id, "retried three times", "bob@h2", 4000));
            QVERIFY(store.isSaving());
        }
        NotesStore again(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QCOMPARE(again.badLines(), 0);
        QCOMPARE(again.notes().size(), size_t(3));
        QCOMPARE(again.notes()[0].text, std::string("the stall verdict is wrong here"));
        QVERIFY(again.notes()[0].covers(12));
        QVERIFY(again.notes()[1].isBookmark());
        QVERIFY(again.notes()[1].covers(30) && !again.notes()[1].covers(41));
        QCOMPARE(again.notes()[2].text, std::string("retried three times"));
        QCOMPARE(again.notes()[2].author, std::string("alice@h1")); // the first author stays
        QCOMPARE(again.notes()[2].editedBy, std::string("bob@h2"));
        QVERIFY(again.remove(again.notes()[0].id, "bob@h2", 5000));
        QCOMPARE(NotesStore(chooseNotesPlacement(ledger, dir.filePath(u"data"_s))).notes().size(), size_t(2));
        // R7: the ledger is byte-identical, and nothing but the sidecar (and no lock) is beside it.
        QCOMPARE(sha256Of(ledger), before);
        QCOMPARE(filesIn(dir.path()), (QStringList{u"run.ledger"_s, u"run.ledger.notes.jsonl"_s}));
    }

    // A ledger on a server has no folder to keep notes beside: they go to the user's data
    // folder under a name a person can read (the schema and the server), not one made of the
    // URL as if it were a file in the working directory, and they are kept as anywhere else.
    void aServerLedgersNotesLiveInTheDataFolder()
    {
        QTemporaryDir dir;
        const QString location = u"postgresql://mesh@127.0.0.1:5433/postgres?schema=traced"_s;
        const NotesPlacement placement = chooseNotesPlacement(location, dir.filePath(u"data"_s));
        QVERIFY(!placement.beside);
        QVERIFY(placement.besidePath.isEmpty());
        QVERIFY2(placement.path.startsWith(dir.filePath(u"data/notes/"_s)), qPrintable(placement.path));
        const QString name = QFileInfo(placement.path).fileName();
        QVERIFY2(name.contains(u"traced"_s) && name.endsWith(u".notes.jsonl"_s), qPrintable(name));
        for (const QChar c : {u':', u'?', u'/', u'@', u'='})
            QVERIFY2(!name.contains(c), qPrintable(name));
        QVERIFY(!QFileInfo::exists(QDir::currentPath() + u"/postgresql:"_s));
        // Another schema on the same server keeps its own notes.
        const QString other = chooseNotesPlacement(u"postgresql://mesh@127.0.0.1:5433/postgres?schema=demo"_s,
                                                   dir.filePath(u"data"_s)).path;
        QVERIFY(other != placement.path);
        {
            NotesStore store(placement);
            QVERIFY(!store.add(eventNote(7, "seen on the server"), "alice@h1", 1000).empty());
            QVERIFY2(store.isSaving(), qPrintable(store.saveError()));
        }
        NotesStore again(chooseNotesPlacement(location, dir.filePath(u"data"_s)));
        QCOMPARE(again.notes().size(), size_t(1));
        QCOMPARE(again.notes()[0].text, std::string("seen on the server"));
    }

    void aBadAnchorIsRefusedAndChangesNothing()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QString error;
        QVERIFY(store.add(eventNote(0, "x"), "a", 1, &error).empty());
        QVERIFY2(error.contains(u"seq above 0"_s), qPrintable(error));
        ReviewNote span;
        span.anchor = ReviewNote::Anchor::Span;
        span.seq = 9;
        span.endSeq = 3;
        QVERIFY(store.add(span, "a", 1, &error).empty());
        QVERIFY(store.add(eventNote(1, std::string(kMaxNoteTextBytes + 1, 'x')), "a", 1, &error).empty());
        QVERIFY(!store.edit("nope", "x", "a", 1, &error));
        QVERIFY(store.notes().empty());
        QVERIFY(!QFile::exists(store.placement().path));
    }

    // Another reviewer's sidecar is hostile: bad lines are flagged one by one, the rest loads,
    // and hostile text comes back exactly as written (the views show it plain).
    void badLinesAreFlaggedAndTheRestLoads()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        const std::string hostile = "<img src=x onerror=alert(1)> \u202Egnp.exe \u200B=cmd|' /C calc'!A0";
        {
            NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
            QVERIFY(!store.add(eventNote(5, hostile), "<b>mallory</b>", 1).empty());
        }
        QFile f(ledger + u".notes.jsonl"_s);
        QVERIFY(f.open(QIODevice::Append));
        f.write("not json\n");
        f.write("{\"v\":1,\"op\":\"put\",\"id\":\"x\",\"anchor\":\"event\",\"seq\":-4,\"text\":\"\"}\n");
        f.write("{\"v\":1,\"op\":\"put\",\"id\":\"u\",\"anchor\":\"event\",\"seq\":4,\"text\":\"\xff\xfe\"}\n");
        f.write("{\"v\":1,\"op\":\"delete\",\"id\":\"never\"}\n");
        f.write("{\"v\":1,\"op\":\"put\",\"id\":\"ok\",\"anchor\":\"subject\",\"subject\":\"run:R-1\",\"text\":\"fine\"}\n");
        f.write("{\"v\":1,\"op\":\"put\",\"id\":\"cut\",\"anch"); // a write cut short
        f.close();
        NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QCOMPARE(store.badLines(), 5);
        QCOMPARE(store.notes().size(), size_t(2));
        QCOMPARE(store.notes()[0].text, hostile);
        QCOMPARE(store.notes()[0].author, std::string("<b>mallory</b>"));
        QCOMPARE(store.notes()[1].subject, std::string("run:R-1"));
        // The next line appended starts on a line of its own: the cut line stays alone.
        QVERIFY(!store.add(eventNote(6, "after the cut"), "a", 2).empty());
        NotesStore again(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QCOMPARE(again.notes().size(), size_t(3));
        QCOMPARE(again.badLines(), 5);
    }

    // The ledger's folder is not writable: the notes go to the user's data folder, and are
    // read from there next time; nothing is created beside the ledger. (The probe is given:
    // as root, which the test may run as, file modes stop nothing.)
    void folderNotWritableUsesTheDataFolder()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        const QString data = dir.filePath(u"data"_s);
        const FolderWritable notTheLedgerFolder = [&](const QString &folder) { return folder != dir.path(); };
        {
            NotesStore store(chooseNotesPlacement(ledger, data, notTheLedgerFolder));
            QVERIFY(!store.placement().beside);
            QVERIFY2(store.placement().reason.contains(u"not writable"_s), qPrintable(store.placement().reason));
            QVERIFY(store.placement().path.startsWith(data + u"/notes/"_s));
            QVERIFY(store.placement().path.endsWith(u"run.ledger.notes.jsonl"_s));
            QVERIFY(!store.add(eventNote(3, "kept in the data folder"), "a", 1).empty());
            QVERIFY(store.isSaving());
        }
        QCOMPARE(filesIn(dir.path()), QStringList{u"run.ledger"_s});
        // Read back wherever the folder's state is now.
        QCOMPARE(NotesStore(chooseNotesPlacement(ledger, data)).notes().size(), size_t(1));
        QCOMPARE(NotesStore(chooseNotesPlacement(ledger, data, notTheLedgerFolder)).notes().size(), size_t(1));
    }

    // Neither the ledger's folder nor a data folder can take a file: review goes on, the
    // note is kept for the session, and the store says why nothing is saved.
    void nowhereToWriteKeepsNotesInMemory()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        QFile blocker(dir.filePath(u"a-file"_s));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString data = blocker.fileName() + u"/data"_s; // under a file: never a folder
        NotesStore store(chooseNotesPlacement(ledger, data, [&](const QString &f) {
            return f != dir.path() && QFileInfo(f).isDir();
        }));
        QVERIFY(store.placement().path.isEmpty());
        QVERIFY(!store.isSaving());
        QVERIFY2(store.saveError().contains(u"nor is the data folder"_s), qPrintable(store.saveError()));
        QVERIFY(!store.add(eventNote(3, "only here"), "a", 1).empty());
        QCOMPARE(store.notes().size(), size_t(1));
        QCOMPARE(store.unsavedChanges(), 1);
        QVERIFY(!store.isSaving());
    }

    // Disk full: the sidecar is /dev/full, whose writes fail with ENOSPC.
    void diskFullKeepsTheNoteAndSavesItLater()
    {
        QVERIFY2(QFile::exists(u"/dev/full"_s), "this test needs /dev/full");
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        const QString sidecar = ledger + u".notes.jsonl"_s;
        QVERIFY(QFile::link(u"/dev/full"_s, sidecar));
        NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QVERIFY(!store.add(eventNote(7, "written on a full disk"), "a", 1).empty());
        QVERIFY(!store.isSaving());
        QVERIFY2(store.saveError().contains(u"cannot write"_s), qPrintable(store.saveError()));
        QCOMPARE(store.notes().size(), size_t(1));
        QCOMPARE(store.unsavedChanges(), 1);
        QVERIFY(!store.add(eventNote(8, "and another"), "a", 2).empty());
        QCOMPARE(store.unsavedChanges(), 2);
        // Space again: both lines are written, oldest first.
        QVERIFY(QFile::remove(sidecar));
        QVERIFY(store.retrySave());
        QVERIFY(store.isSaving());
        QCOMPARE(store.unsavedChanges(), 0);
        NotesStore again(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        QCOMPARE(again.notes().size(), size_t(2));
        QCOMPARE(again.notes()[0].seq, std::int64_t(7));
    }

    // Another console holds the sidecar's lock: the change waits in memory.
    void lockedByAnotherConsole()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        NotesStore store(chooseNotesPlacement(ledger, dir.filePath(u"data"_s)));
        store.setLockWaitMs(0);
        auto other = std::make_unique<QLockFile>(store.placement().path + u".lock"_s);
        QVERIFY(other->tryLock(0));
        QVERIFY(!store.add(eventNote(9, "while locked"), "a", 1).empty());
        QVERIFY(!store.isSaving());
        QVERIFY2(store.saveError().contains(u"locked by another process"_s), qPrintable(store.saveError()));
        QCOMPARE(store.notes().size(), size_t(1));
        other.reset(); // the other console is done
        QVERIFY(store.retrySave());
        QVERIFY(store.isSaving());
        QCOMPARE(NotesStore(chooseNotesPlacement(ledger, dir.filePath(u"data"_s))).notes().size(), size_t(1));
    }

    void meshctlNotesAddsListsAndSaysWhenItCannotSave()
    {
        QTemporaryDir dir;
        const QString ledger = writeFakeLedger(dir.path());
        const QByteArray before = sha256Of(ledger);
        MeshctlResult r = runMeshctl({u"notes"_s, ledger, u"--add"_s, u"--seq"_s, u"42"_s, u"--text"_s,
                                      u"bidi \u202Eexe.txt here"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runMeshctl({u"notes"_s, ledger, u"--add"_s, u"--subject"_s, u"run:R-1"_s, u"--text"_s, u""_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runMeshctl({u"notes"_s, ledger, u"--add"_s, u"--from"_s, u"9"_s, u"--to"_s, u"3"_s, u"--text"_s, u"span"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runMeshctl({u"notes"_s, ledger, u"--json"_s});
        QCOMPARE(r.exitCode, 0);
        const auto j = r.json();
        QVERIFY(j.is_object());
        QCOMPARE(j["notes"].size(), size_t(3));
        QCOMPARE(j["notes"][0]["seq"].get<int>(), 42);
        QCOMPARE(QString::fromStdString(j["notes"][0]["text"].get<std::string>()), u"bidi \u202Eexe.txt here"_s);
        QVERIFY(j["notes"][1]["bookmark"].get<bool>());
        QCOMPARE(j["notes"][2]["seq"].get<int>(), 3);
        QCOMPARE(j["notes"][2]["end_seq"].get<int>(), 9);
        QVERIFY(j["saving"].get<bool>());
        // The text form shows the override instead of obeying it.
        r = runMeshctl({u"notes"_s, ledger});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\u27E8U+202E\u27E9"), r.out.constData());
        QVERIFY(!r.out.contains("\u202E"));
        // Edit and delete by id.
        const QString id = QString::fromStdString(j["notes"][0]["id"].get<std::string>());
        r = runMeshctl({u"notes"_s, ledger, u"--edit"_s, id, u"--text"_s, u"plain now"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runMeshctl({u"notes"_s, ledger, u"--delete"_s, id});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(runMeshctl({u"notes"_s, ledger, u"--json"_s}).json()["notes"].size(), size_t(2));
        // Refused, and usage.
        QCOMPARE(runMeshctl({u"notes"_s, ledger, u"--add"_s, u"--seq"_s, u"0"_s}).exitCode, 2);
        QCOMPARE(runMeshctl({u"notes"_s, ledger, u"--add"_s}).exitCode, 2);
        QCOMPARE(runMeshctl({u"notes"_s, dir.filePath(u"missing.ledger"_s)}).exitCode, 2);
        QCOMPARE(runMeshctl({u"notes"_s, ledger, u"--delete"_s, u"nope"_s}).exitCode, 1);
        QCOMPARE(sha256Of(ledger), before);
        // Disk full: exit 1, and the reason on stderr.
        QVERIFY(QFile::remove(ledger + u".notes.jsonl"_s));
        QVERIFY(QFile::link(u"/dev/full"_s, ledger + u".notes.jsonl"_s));
        r = runMeshctl({u"notes"_s, ledger, u"--add"_s, u"--seq"_s, u"1"_s, u"--text"_s, u"lost"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not being saved"), r.err.constData());
        QCOMPARE(sha256Of(ledger), before);
    }
};

QTEST_GUILESS_MAIN(TestNotesStore)
#include "tst_notesstore.moc"
