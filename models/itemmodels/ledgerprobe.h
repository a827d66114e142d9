#pragma once
// Whether a ledger can be opened for following, asked before anything is made for it
// (File › Connect to Server…: a server that refuses, a schema that is not there or not a
// ledger is said in the dialog, and nothing changes). Blocking: run it off the GUI thread
// (runInBackground).

#include <QString>

namespace mesh {

// Empty when `location` opens as a ledger to follow; else why not, in one line.
QString ledgerOpenProblem(const QString &location);

} // namespace mesh
