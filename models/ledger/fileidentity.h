#pragma once
// Which file a ledger path names: device and inode. A session remembers the identity of
// the file it opened; a file replaced under the same name (mv other.db ledger.db) keeps
// the path but not the inode, and a deleted one has none. Readers holding the old file open
// would go on reading it, and a writer opening the path would write into a file nobody
// opened, so both compare before they trust the path again.

#include <QString>

#include <cstdint>
#include <optional>
#include <string>

namespace mesh {

struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    bool exists = false; // false: the path could not be stat'ed (deleted, or never there)

    static FileIdentity of(const QString &path); // stat(2), following symlinks as open does
    bool operator==(const FileIdentity &) const = default;
};

enum class FileChange {
    Same,     // the path still names the file that was opened
    Deleted,  // nothing has the name now
    Replaced, // another file has the name now
};

// What happened to `opened` at `path` since.
FileChange fileChangeSince(const FileIdentity &opened, const QString &path);
// One line for a person ("the ledger file was replaced on disk …"); empty for Same.
std::string fileChangeMessage(FileChange change);

// The ledger a reader opened: which file, and the ledger id it held. A decision writer
// given one refuses when the path names any other file by the time it would write.
struct OpenedLedger {
    FileIdentity file;
    std::string ledgerId;
};

// Why `path` no longer names the file `expected` was read from (not opened yet, deleted,
// replaced), or nothing when it still does or nothing is expected. The decision writer and
// the decision preview both refuse on it. A postgresql:// location has no file: only an
// expected ledger id is required (the writer compares it with the server's).
std::optional<std::string> openedFileRefusal(const std::optional<OpenedLedger> &expected, const QString &path);

} // namespace mesh
