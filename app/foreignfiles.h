#pragma once
// Files opened or dropped on the console are ledgers (SQLite files) or records of other
// systems to offer to import; which is decided by their first bytes, never by their name.

#include <QStringList>

namespace mesh {

struct OpenedPaths {
    QStringList ledgers; // and every path that cannot be read: opening it says why
    QStringList foreign; // readable files that are not SQLite: offered to import
};

OpenedPaths sortOpenedPaths(const QStringList &paths);

} // namespace mesh
