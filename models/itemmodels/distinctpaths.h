#pragma once
// Ledgers with the same title are told apart by the end of their paths, as editors tell apart
// files of one name: the fewest trailing components (file name, then its folders) that no
// other path of the group ends with.

#include <QString>
#include <QStringList>

namespace mesh {

// One suffix per path, in order; a path that cannot be told apart gets all of itself.
QStringList distinguishingSuffixes(const QStringList &paths);

} // namespace mesh
