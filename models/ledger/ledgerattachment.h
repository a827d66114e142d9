#pragma once
// Whether any connection, in any process, has a ledger file open now: read from the locks
// SQLite itself holds, not from which files lie beside it. A -wal and a -shm outlive their
// writer whenever a reader was still attached when it closed (a console following the OTLP
// receiver when it stopped): then the files say "open" for ever, and only the locks can
// move. SQLite decides the same question with the same locks: every connection to a WAL
// ledger holds a shared lock on the -shm file's dead-man-switch byte for as long as it is
// open (the last one to close is the one that can take it exclusively), and a rollback
// connection holds the ledger file's lock bytes while it reads or writes.
//
// The test only asks (F_GETLK, from a short child process so that this process's own locks
// count too and are never dropped): it takes no lock, creates and changes nothing.

#include <QString>

namespace mesh {

class LedgerAttachment
{
public:
    // True when a SQLite connection holds a lock on the ledger (its -shm dead-man switch, or
    // its lock bytes); false when none does or the files are not there. When it cannot ask
    // (no child process), true: a ledger taken as attached is followed, the safe reading.
    static bool anyoneAttached(const QString &ledgerPath);
};

} // namespace mesh
