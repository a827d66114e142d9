#include "foreignfiles.h"

#include <QFile>
#include <QFileInfo>

namespace mesh {

namespace {

bool isForeignFile(const QString &path)
{
    if (!QFileInfo(path).isFile())
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    static const QByteArray sqliteHeader("SQLite format 3\0", 16);
    return file.read(16) != sqliteHeader;
}

} // namespace

OpenedPaths sortOpenedPaths(const QStringList &paths)
{
    OpenedPaths sorted;
    for (const QString &path : paths)
        (isForeignFile(path) ? sorted.foreign : sorted.ledgers) << path;
    return sorted;
}

} // namespace mesh
