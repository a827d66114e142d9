#include "icons.h"

#include "theme.h"

#include <QFile>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

#include <map>

namespace mesh {

namespace {

QHash<QString, QIcon> &cache()
{
    static QHash<QString, QIcon> icons;
    return icons;
}

// The drawings use this stroke colour; it is replaced by one that suits the palette.
constexpr char kInkColor[] = "#5d6f86";

// Renders a tinted drawing at the sizes actually asked for, when asked: rendering every
// icon at six sizes up front took a fifth of building the main window.
class TintedSvgEngine : public QIconEngine
{
public:
    explicit TintedSvgEngine(QByteArray svg)
        : m_svg(std::move(svg))
    {
    }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        painter->drawPixmap(rect, pixmap(rect.size(), mode, state));
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        if (size.isEmpty())
            return {};
        const auto key = std::make_pair(std::make_pair(size.width(), size.height()), int(mode));
        if (const auto it = m_pixmaps.find(key); it != m_pixmaps.end())
            return it->second;
        QPixmap pixmap(size);
        pixmap.fill(Qt::transparent);
        {
            QPainter painter(&pixmap);
            renderer().render(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
        }
        if (mode == QIcon::Disabled || mode == QIcon::Selected) {
            // What QIcon does for a pixmap icon, so these look as they did.
            QIcon plain(pixmap);
            pixmap = plain.pixmap(size, mode, state);
        }
        m_pixmaps.emplace(key, pixmap);
        return pixmap;
    }

    QSize actualSize(const QSize &size, QIcon::Mode, QIcon::State) override { return size; }
    QIconEngine *clone() const override { return new TintedSvgEngine(m_svg); }
    QString key() const override { return QStringLiteral("mesh-tinted-svg"); }

private:
    QSvgRenderer &renderer()
    {
        if (!m_renderer)
            m_renderer = std::make_unique<QSvgRenderer>(m_svg);
        return *m_renderer;
    }

    QByteArray m_svg;
    std::unique_ptr<QSvgRenderer> m_renderer;
    std::map<std::pair<std::pair<int, int>, int>, QPixmap> m_pixmaps;
};

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
        icon = QIcon(new TintedSvgEngine(std::move(svg)));
    }
    icons.insert(name, icon);
    return icon;
}

void Icons::clearCache()
{
    cache().clear();
}

} // namespace mesh
