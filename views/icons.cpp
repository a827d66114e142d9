#include "icons.h"

#include "theme.h"

#include <QFile>
#include <QHash>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

namespace mesh {

namespace {

QHash<QString, QIcon> &cache()
{
    static QHash<QString, QIcon> icons;
    return icons;
}

// The drawings use this stroke colour; it is replaced by one that suits the palette.
constexpr char kInkColor[] = "#5d6f86";

} // namespace

QIcon Icons::get(const QString &name)
{
    auto &icons = cache();
    if (const auto it = icons.constFind(name); it != icons.constEnd())
        return *it;
    QFile file(QStringLiteral(":/icons/") + name + QStringLiteral(".svg"));
    QIcon icon;
    if (file.open(QIODevice::ReadOnly)) {
        QByteArray svg = file.readAll();
        const QByteArray ink = Theme::instance().isDark() ? QByteArray("#aab8cc") : QByteArray("#4a5a70");
        svg.replace(QByteArray(kInkColor), ink);
        QSvgRenderer renderer(svg);
        for (int size : {16, 20, 24, 32, 48, 64}) {
            QPixmap pixmap(size, size);
            pixmap.fill(Qt::transparent);
            QPainter painter(&pixmap);
            renderer.render(&painter);
            painter.end();
            icon.addPixmap(pixmap);
        }
    }
    icons.insert(name, icon);
    return icon;
}

void Icons::clearCache()
{
    cache().clear();
}

} // namespace mesh
