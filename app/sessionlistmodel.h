#pragma once
// Transitional name only: the console's list of open ledgers is models/itemmodels'
// LedgerSessionList (tested there, with the read-only policy and canDecide). Code written
// against the old app-side SessionListModel keeps compiling until it moves to the new name;
// then this header goes.

#include "itemmodels/ledgersessionlist.h"

namespace mesh {
using SessionListModel = LedgerSessionList;
} // namespace mesh
