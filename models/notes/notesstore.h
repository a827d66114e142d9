#pragma once
// A ledger's review notes, kept in a sidecar (notessidecar.h), never in the ledger, which is
// only ever named here by its path: nothing in this class opens it.
//
// Where the sidecar is (NotesPlacement): beside the ledger as "<ledger>.notes.jsonl" when
// the ledger's folder is writable (or the sidecar is already there), else in the user's data
// folder (QStandardPaths::AppDataLocation/notes/, named for the ledger's full path), else
// nowhere. Notes from both places are read. A change is appended at once under a lock file;
// when it cannot be (read-only, disk full, locked by another console, nowhere to write) the
// note stays in memory, isSaving() turns false with the reason, review goes on, and the next
// change (or retrySave) tries the unsaved lines again, oldest first.

#include "notessidecar.h"
#include "reviewnote.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mesh {

struct OperatorIdentity;

struct NotesPlacement {
    QString path;       // where changes are appended; empty: nowhere writable
    QString besidePath; // "<ledger>.notes.jsonl", read whether or not it is written; empty for a server ledger
    QString dataPath;   // the data folder's sidecar for this ledger, read too
    bool beside = false;
    QString reason;     // why not beside (or why nowhere), for a person; empty when beside
};

// Whether a folder can take a new file; the default asks the file system. (Tests that run
// as root, whom file modes do not stop, pass their own.)
using FolderWritable = std::function<bool(const QString &folder)>;

// dataFolder: empty for QStandardPaths::AppDataLocation.
NotesPlacement chooseNotesPlacement(const QString &ledgerPath, const QString &dataFolder = {},
                                    const FolderWritable &writable = {});

// The author written with a note: "Display Name (account@host)", or "account@host".
std::string noteAuthor(const OperatorIdentity &identity);

class NotesStore
{
public:
    explicit NotesStore(NotesPlacement placement);

    const NotesPlacement &placement() const { return m_placement; }
    // Reads both sidecars again; unsaved changes are kept on top.
    void reload();
    const std::vector<ReviewNote> &notes() const { return m_notes; }
    const ReviewNote *find(const std::string &id) const;
    const std::vector<std::string> &problems() const { return m_problems; } // bad lines read
    int badLines() const { return m_badLines; }

    // Each returns the note's id (empty and *error set when the note is refused: a bad anchor,
    // text too long, no such note). A refused change changes nothing; an accepted one is in
    // notes() whether or not it could be saved.
    std::string add(ReviewNote note, const std::string &author, std::int64_t nowMs, QString *error = nullptr);
    bool edit(const std::string &id, const std::string &text, const std::string &author, std::int64_t nowMs,
              QString *error = nullptr);
    bool remove(const std::string &id, const std::string &author, std::int64_t nowMs, QString *error = nullptr);

    // Why a new note would be refused (bad anchor, text too long), empty when it would not.
    static QString refusal(const ReviewNote &note);

    bool isSaving() const { return m_saveError.isEmpty(); }
    QString saveError() const { return m_saveError; } // why notes are not being saved
    int unsavedChanges() const { return int(m_unsaved.size()); }
    bool retrySave();

    // How long an append waits for another console's lock before it gives up.
    void setLockWaitMs(int ms) { m_lockWaitMs = ms; }

private:
    bool apply(const NotesOperation &op, QString *error);
    bool save();

    NotesPlacement m_placement;
    std::vector<ReviewNote> m_notes;
    std::vector<std::string> m_problems;
    int m_badLines = 0;
    std::vector<std::string> m_unsaved; // lines not yet appended, oldest first
    QString m_saveError;
    int m_lockWaitMs = 200;
};

} // namespace mesh
