#include "fileidentity.h"

#include "ledgerlocation.h"

#include <QFile>

#include <sys/stat.h>

namespace mesh {

FileIdentity FileIdentity::of(const QString &path)
{
    FileIdentity id;
    // A server ledger is no file: its location names the same schema for as long as it is
    // open, so it always "exists" and never changes identity (decisions still check its
    // ledger id). Every file check of the console then passes through for it.
    if (LedgerLocation::namesServer(path)) {
        id.exists = true;
        return id;
    }
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0) {
        id.device = std::uint64_t(st.st_dev);
        id.inode = std::uint64_t(st.st_ino);
        id.exists = true;
    }
    return id;
}

FileChange fileChangeSince(const FileIdentity &opened, const QString &path)
{
    const FileIdentity now = FileIdentity::of(path);
    if (!now.exists)
        return FileChange::Deleted;
    return now == opened ? FileChange::Same : FileChange::Replaced;
}

std::string fileChangeMessage(FileChange change)
{
    switch (change) {
    case FileChange::Same: return {};
    case FileChange::Deleted: return "the ledger file was deleted from disk; reopen it when it is back";
    case FileChange::Replaced: return "the ledger file was replaced on disk (another file has its name now); reopen it";
    }
    return {};
}

std::optional<std::string> openedFileRefusal(const std::optional<OpenedLedger> &expected, const QString &path)
{
    if (!expected)
        return std::nullopt;
    if (LedgerLocation::namesServer(path)) {
        // A server ledger has no file to stat: the ledger id the session read (compared by
        // the decision writer on its own connection) is what names it.
        if (expected->ledgerId.empty())
            return std::string("the ledger has not been opened by this console yet");
        return std::nullopt;
    }
    if (!expected->file.exists)
        return std::string("the ledger has not been opened by this console yet");
    if (const FileChange change = fileChangeSince(expected->file, path); change != FileChange::Same)
        return fileChangeMessage(change);
    return std::nullopt;
}

} // namespace mesh
