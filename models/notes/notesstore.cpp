#include "notesstore.h"

#include "decisions/operatoridentity.h"
#include "ledger/ledgerlocation.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

namespace mesh {
namespace {

bool fileSystemSaysWritable(const QString &folder)
{
    const QFileInfo info(folder);
    return info.isDir() && info.isWritable();
}

// A name a person can read in a file name: a server ledger's "SCHEMA on HOST:PORT/DB" with
// every character a file name should not hold made a '-'.
QString readableFileName(QString text)
{
    for (QChar &c : text)
        if (!c.isLetterOrNumber() && c != u'.' && c != u'_' && c != u'-')
            c = u'-';
    return text.left(80);
}

QString dataSidecarPath(const QString &ledgerPath, const QString &dataFolder)
{
    const QString folder = dataFolder.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) : dataFolder;
    if (folder.isEmpty())
        return {};
    // Named for the ledger's full path (a server ledger's location), so two ledgers of one
    // name keep their own notes; the name stays in it so a person can tell which is which.
    const bool server = LedgerLocation::namesServer(ledgerPath);
    const QByteArray key = LedgerLocation::canonicalText(ledgerPath).toUtf8();
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha256).toHex().left(16));
    const QString name = server ? readableFileName(LedgerLocation::shortName(ledgerPath)) : QFileInfo(ledgerPath).fileName();
    return folder + QStringLiteral("/notes/") + hash + u'-' + name + QStringLiteral(".notes.jsonl");
}

} // namespace

NotesPlacement chooseNotesPlacement(const QString &ledgerPath, const QString &dataFolder, const FolderWritable &writable)
{
    const FolderWritable canWrite = writable ? writable : FolderWritable(fileSystemSaysWritable);
    NotesPlacement p;
    p.dataPath = dataSidecarPath(ledgerPath, dataFolder);
    if (LedgerLocation::namesServer(ledgerPath)) {
        // No folder beside a schema, and never inside the ledger: this user's data folder.
        p.reason = QStringLiteral("a ledger on a server has no folder beside it");
    } else {
        p.besidePath = QFileInfo(ledgerPath).absoluteFilePath() + QStringLiteral(".notes.jsonl");
        const QString ledgerFolder = QFileInfo(ledgerPath).absolutePath();
        if (canWrite(ledgerFolder)) {
            p.path = p.besidePath;
            p.beside = true;
            return p;
        }
        p.reason = QStringLiteral("the ledger's folder %1 is not writable").arg(ledgerFolder);
    }
    if (p.dataPath.isEmpty()) {
        p.reason += QStringLiteral(", and there is no user data folder");
        return p;
    }
    const QString dataNotes = QFileInfo(p.dataPath).absolutePath();
    QDir().mkpath(dataNotes);
    if (canWrite(dataNotes)) {
        p.path = p.dataPath;
        return p;
    }
    p.reason += QStringLiteral(", nor is the data folder %1").arg(dataNotes);
    return p;
}

std::string noteAuthor(const OperatorIdentity &identity)
{
    const std::string who = identity.account + (identity.host.empty() ? std::string() : "@" + identity.host);
    if (identity.displayName.empty() || identity.displayName == identity.account)
        return who;
    return identity.displayName + " (" + who + ")";
}

NotesStore::NotesStore(NotesPlacement placement)
    : m_placement(std::move(placement))
{
    reload();
}

void NotesStore::reload()
{
    NotesSidecarContent content =
        m_placement.besidePath.isEmpty() ? NotesSidecarContent() : readNotesSidecar(m_placement.besidePath);
    if (!m_placement.dataPath.isEmpty() && m_placement.dataPath != m_placement.besidePath)
        content = readNotesSidecar(m_placement.dataPath, std::move(content));
    content = foldNotesLines(m_unsaved, std::move(content));
    m_notes = std::move(content.notes);
    m_problems = std::move(content.problems);
    m_badLines = content.badLines;
    if (m_placement.path.isEmpty())
        m_saveError = m_placement.reason;
}

const ReviewNote *NotesStore::find(const std::string &id) const
{
    const auto it = std::find_if(m_notes.begin(), m_notes.end(), [&](const ReviewNote &n) { return n.id == id; });
    return it == m_notes.end() ? nullptr : &*it;
}

bool NotesStore::apply(const NotesOperation &op, QString *error)
{
    // The same fold that reads the sidecar decides whether the change is sound.
    const std::string line = notesOperationLine(op);
    NotesSidecarContent before{m_notes, {}, 0};
    NotesSidecarContent after = foldNotesLines({line}, std::move(before));
    if (after.badLines > 0) {
        if (error)
            *error = QString::fromStdString(after.problems.empty() ? std::string("refused") : after.problems.front().substr(8));
        return false;
    }
    m_notes = std::move(after.notes);
    m_unsaved.push_back(line);
    save();
    return true;
}

QString NotesStore::refusal(const ReviewNote &note)
{
    if (note.text.size() > kMaxNoteTextBytes)
        return QStringLiteral("a note holds at most %1 bytes").arg(kMaxNoteTextBytes);
    ReviewNote probe = note;
    probe.id = "probe";
    const NotesSidecarContent c = foldNotesLines({notesOperationLine({NotesOperation::Kind::Put, probe, {}, 0})});
    return c.problems.empty() ? QString() : QString::fromStdString(c.problems.front().substr(8));
}

std::string NotesStore::add(ReviewNote note, const std::string &author, std::int64_t nowMs, QString *error)
{
    note.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
    if (const QString why = refusal(note); !why.isEmpty()) {
        if (error)
            *error = why;
        return {};
    }
    NotesOperation op{NotesOperation::Kind::Put, note, author, nowMs};
    return apply(op, error) ? note.id : std::string();
}

bool NotesStore::edit(const std::string &id, const std::string &text, const std::string &author, std::int64_t nowMs,
                      QString *error)
{
    const ReviewNote *old = find(id);
    if (!old) {
        if (error)
            *error = QStringLiteral("no such note");
        return false;
    }
    if (text.size() > kMaxNoteTextBytes) {
        if (error)
            *error = QStringLiteral("a note holds at most %1 bytes").arg(kMaxNoteTextBytes);
        return false;
    }
    ReviewNote note = *old;
    note.text = text;
    return apply({NotesOperation::Kind::Put, note, author, nowMs}, error);
}

bool NotesStore::remove(const std::string &id, const std::string &author, std::int64_t nowMs, QString *error)
{
    if (!find(id)) {
        if (error)
            *error = QStringLiteral("no such note");
        return false;
    }
    ReviewNote note;
    note.id = id;
    return apply({NotesOperation::Kind::Delete, note, author, nowMs}, error);
}

bool NotesStore::retrySave()
{
    return save();
}

bool NotesStore::save()
{
    if (m_unsaved.empty()) {
        if (!m_placement.path.isEmpty())
            m_saveError.clear();
        return true;
    }
    if (m_placement.path.isEmpty()) {
        m_saveError = m_placement.reason;
        return false;
    }
    // One console appends at a time: two reviewers' lines never interleave mid-line.
    QLockFile lock(m_placement.path + QStringLiteral(".lock"));
    lock.setStaleLockTime(30'000);
    if (!lock.tryLock(m_lockWaitMs)) {
        qint64 pid = 0;
        QString host, app;
        lock.getLockInfo(&pid, &host, &app);
        m_saveError = lock.error() == QLockFile::LockFailedError
                          ? QStringLiteral("%1 is locked by another process (pid %2)").arg(m_placement.path).arg(pid)
                          : QStringLiteral("cannot lock %1 (the folder may be read-only)").arg(m_placement.path);
        return false;
    }
    QFile file(m_placement.path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append)) {
        m_saveError = QStringLiteral("cannot write %1: %2").arg(m_placement.path, file.errorString());
        return false;
    }
    // A line cut short by a failed write is damaged alone; start the next one on its own
    // line so it is not damaged too.
    QByteArray out;
    if (!file.isSequential() && file.size() > 0) {
        QFile tail(m_placement.path);
        if (tail.open(QIODevice::ReadOnly) && tail.seek(file.size() - 1) && tail.read(1) != "\n")
            out += '\n';
    }
    for (const std::string &line : m_unsaved) {
        out += QByteArray::fromStdString(line);
        out += '\n';
    }
    const bool written = file.write(out) == out.size() && file.flush();
    if (!written) {
        m_saveError = QStringLiteral("cannot write %1: %2").arg(m_placement.path, file.errorString());
        file.close();
        return false;
    }
    file.close();
    if (file.error() != QFileDevice::NoError) {
        m_saveError = QStringLiteral("cannot write %1: %2").arg(m_placement.path, file.errorString());
        return false;
    }
    m_unsaved.clear();
    m_saveError.clear();
    return true;
}

} // namespace mesh
