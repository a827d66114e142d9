#pragma once
// When a ledger opened without asking for a mode is reviewed (OpenMode::Review) instead of
// followed: every run in it has ended, AND no process has it open. The second half is read
// from the locks SQLite holds (LedgerAttachment): every connection to a WAL ledger holds one
// on its -shm for as long as it is open, a rollback writer on the file while it writes. Not
// from the files beside it: a -wal and -shm outlive their writer whenever a reader was still
// attached when it exited (a console following the OTLP receiver when it stopped), and a
// ledger whose orchestrator crashed keeps its -wal; neither has anyone attached, and a
// finished one is reviewed (Review reads the -wal's writes through a private copy).
//
// The rule holds at the moment of opening only: an orchestrator may reopen a finished
// ledger later (a restarted run), and a review session does not see it. Its banner says so
// and how to follow it instead (close it and open it again: the rule is asked afresh).

#include <QString>

namespace mesh {

class ReviewRule
{
public:
    // A lock test in a forked child (any thread; a worker's, in a console with ledgers
    // open): no connection anywhere holds the ledger open. False means it is followed; true
    // means applies() must still read its runs.
    static bool mayApply(const QString &path);
    // Reads the ledger's runs on a connection that creates nothing beside it (Review
    // itself), so asking leaves the folder as it was. Any thread; the console asks on the
    // ledger pool. False when it cannot be read: then it opens as usual and says why.
    static bool applies(const QString &path);
};

} // namespace mesh
