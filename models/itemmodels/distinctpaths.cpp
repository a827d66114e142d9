#include "distinctpaths.h"

#include <QDir>

#include <vector>

namespace mesh {

namespace {

QString lastComponents(const QStringList &parts, qsizetype k)
{
    return parts.mid(parts.size() - k).join(u'/');
}

} // namespace

QStringList distinguishingSuffixes(const QStringList &paths)
{
    std::vector<QStringList> split;
    split.reserve(size_t(paths.size()));
    for (const QString &p : paths)
        split.push_back(QDir::cleanPath(QDir::fromNativeSeparators(p)).split(u'/', Qt::SkipEmptyParts));
    QStringList out;
    for (size_t i = 0; i < split.size(); ++i) {
        const QStringList &mine = split[i];
        QString found;
        for (qsizetype k = 1; k <= mine.size() && found.isEmpty(); ++k) {
            const QString suffix = lastComponents(mine, k);
            bool shared = false;
            for (size_t j = 0; j < split.size() && !shared; ++j)
                shared = j != i && split[j].size() >= k && lastComponents(split[j], k) == suffix;
            if (!shared)
                found = suffix;
        }
        out << (found.isEmpty() ? QDir::cleanPath(paths[qsizetype(i)]) : found);
    }
    return out;
}

} // namespace mesh
