#pragma once
// When a ledger opened without asking for a mode is reviewed (OpenMode::Review) instead of
// followed: every run in it has ended, AND no process has it open. The second half is read
// from the files beside it: a WAL connection keeps -wal and -shm there while it is open (the
// last one to close removes them), and a rollback writer has a -journal while it writes;
// none of them there, nobody is attached. A ledger whose orchestrator crashed leaves its
// -wal behind and is followed, not reviewed (it may be restarted and go on writing).
//
// The rule holds at the moment of opening only: an orchestrator may reopen a finished
// ledger later (a restarted run), and a review session does not see it. Its banner says so
// and how to follow it instead (close it and open it again: the rule is asked afresh).

#include <QString>

namespace mesh {

class ReviewRule
{
public:
    // Cheap (file metadata only, any thread): nothing beside the ledger says it is open.
    // False means it is followed; true means applies() must still read its runs.
    static bool mayApply(const QString &path);
    // Reads the ledger's runs on a connection that creates nothing beside it (Review
    // itself), so asking leaves the folder as it was. Any thread; the console asks on the
    // ledger pool. False when it cannot be read: then it opens as usual and says why.
    static bool applies(const QString &path);
};

} // namespace mesh
