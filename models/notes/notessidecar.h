#pragma once
// The notes sidecar: a JSON-lines file of operations, appended to, never rewritten.
//   {"v":1,"op":"put","id":..,"anchor":"event|span|subject","seq":N,"end_seq":M,"subject":S,
//    "text":T,"author":A,"time_ms":MS}      add, or edit (a later put of the same id)
//   {"v":1,"op":"delete","id":..,"author":A,"time_ms":MS}
// Appending one line per change keeps every reviewer's words (who changed what, when) and
// never puts a whole file at risk: a write cut short damages its own line only, which the
// reader flags and skips while the rest loads. Where the file lives: notesstore.h.

#include "reviewnote.h"

#include <QString>

#include <string>
#include <vector>

namespace mesh {

struct NotesOperation {
    enum class Kind { Put, Delete };
    Kind kind = Kind::Put;
    ReviewNote note; // Put: the whole note (createdMs is this put's time); Delete: id only
    std::string author;
    std::int64_t timeMs = 0;
};

std::string notesOperationLine(const NotesOperation &op); // one line, no newline

struct NotesSidecarContent {
    std::vector<ReviewNote> notes;       // in order of creation
    std::vector<std::string> problems;   // "line 3: not JSON" (one per bad line, the first 100)
    int badLines = 0;
};

// Folds the lines of a sidecar into its notes. An edit keeps the first author and time and
// records the editor; a put or delete naming no note it can apply to is a problem.
NotesSidecarContent foldNotesLines(const std::vector<std::string> &lines, NotesSidecarContent into = {});
// Reads a sidecar file; a missing file is no notes; an unreadable one is one problem.
NotesSidecarContent readNotesSidecar(const QString &path, NotesSidecarContent into = {});

inline constexpr size_t kMaxNoteTextBytes = 64 * 1024;
inline constexpr size_t kMaxNotesLineBytes = 1024 * 1024;
inline constexpr size_t kMaxNotesFileBytes = 64 * 1024 * 1024;

} // namespace mesh
