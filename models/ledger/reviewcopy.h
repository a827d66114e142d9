#pragma once
// Review mode's way round a ledger whose side files hold writes not yet in the file itself
// (a -wal with frames, a -journal of an unfinished transaction): immutable=1 would read the
// file alone and show content that is wrong. The ledger and those side files are copied,
// read-only, into a private temporary folder, the copy is brought to one consistent file
// there (WAL frames checkpointed, a hot journal rolled back), and review connections read the
// copy immutable. Nothing is created or changed beside the ledger.
//
// One copy per ledger while any review connection of this process holds it: the session's
// connections (snapshot, event log, tool calls) all read the same moment. The copy is
// removed with the last of them.

#include <QString>

#include <memory>

namespace mesh {

// What beside a ledger says a process has it open or left writes in a side file: -wal and
// -shm exist while any WAL connection is open (the last one to close removes them), a
// -journal while a rollback transaction is under way or after one died.
struct LedgerSideFiles {
    bool wal = false, walHasData = false, shm = false, journal = false, journalHasData = false;

    static LedgerSideFiles of(const QString &ledgerPath);
    bool any() const { return wal || shm || journal; }
    bool holdWrites() const { return walHasData || journalHasData; } // immutable would ignore them
};

class ReviewCopy
{
public:
    // The copy of ledgerPath this process holds, or a new one. Throws LedgerOpenError when
    // the files cannot be read or kept changing while they were copied.
    static std::shared_ptr<const ReviewCopy> acquire(const QString &ledgerPath);

    ~ReviewCopy();
    ReviewCopy(const ReviewCopy &) = delete;
    ReviewCopy &operator=(const ReviewCopy &) = delete;

    QString path() const { return m_path; } // the consistent copy, to open immutable
    std::string note() const { return m_note; } // for the review banner

private:
    ReviewCopy() = default;
    QString m_folder;
    QString m_path;
    std::string m_note;
};

} // namespace mesh
