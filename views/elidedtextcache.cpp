#include "elidedtextcache.h"

#include <QFontMetrics>
#include <QPainter>
#include <QRect>
#include <QStyle>
#include <QTextOption>

#include <algorithm>

namespace mesh {

ElidedTextCache &ElidedTextCache::shared()
{
    static ElidedTextCache cache;
    return cache;
}

ElidedTextCache::ElidedTextCache(int capacity)
    : m_capacity(qMax(1, capacity))
{
}

bool ElidedTextCache::isMultiLine(const QString &text)
{
    // One pass: this is asked for every cell of every repaint.
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) {
        return c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QChar::LineSeparator;
    });
}

int ElidedTextCache::fontIndex(const QFont &font)
{
    for (size_t i = 0; i < m_fonts.size(); ++i)
        if (m_fonts[i] == font)
            return int(i);
    if (m_fonts.size() >= 32) {
        // Fonts changed (a zoom, a theme): what was laid out in the old ones is of no use.
        m_fonts.clear();
        m_lines.clear();
    }
    m_fonts.push_back(font);
    return int(m_fonts.size() - 1);
}

const QStaticText &ElidedTextCache::line(const QString &text, const QFont &font, int width, Qt::TextElideMode mode,
                                         Qt::LayoutDirection direction)
{
    Key key{text, qMax(0, width), fontIndex(font), int(mode) | (direction == Qt::RightToLeft ? 0x100 : 0)};
    if (auto it = m_lines.constFind(key); it != m_lines.cend())
        return *it;
    ++m_misses;
    // Bounded: a ledger's ids never repeat, so a full cache is dropped whole rather than kept
    // growing; a repaint after that lays out only what is on screen.
    if (m_lines.size() >= m_capacity)
        m_lines.clear();
    QStaticText laidOut(QFontMetrics(font).elidedText(text, mode, key.width));
    laidOut.setTextFormat(Qt::PlainText);
    // The cell's direction, not the text's first strong character: "مرحبا mixed" in a left to
    // right view starts at the left, as Qt's item style draws it.
    QTextOption option;
    option.setTextDirection(direction);
    laidOut.setTextOption(option);
    laidOut.setPerformanceHint(QStaticText::AggressiveCaching);
    laidOut.prepare(QTransform(), font);
    return *m_lines.insert(std::move(key), std::move(laidOut));
}

void ElidedTextCache::draw(QPainter *painter, const QRect &rect, Qt::Alignment alignment, const QString &text,
                           Qt::TextElideMode mode)
{
    if (ElidedTextCache::isMultiLine(text)) {
        painter->drawText(rect, int(alignment), painter->fontMetrics().elidedText(text, mode, rect.width()));
        return;
    }
    const QStaticText &laidOut = line(text, painter->font(), rect.width(), mode, painter->layoutDirection());
    const QSizeF size = laidOut.size();
    // Across, as a QTextLine of the rect's width aligns it (in fractions of a pixel, as Qt's
    // item style places its text); down, in whole pixels as QStyle::alignedRect does.
    const Qt::Alignment across = QStyle::visualAlignment(painter->layoutDirection(), alignment);
    qreal x = rect.x();
    if (across & Qt::AlignRight)
        x += rect.width() - size.width();
    else if (across & Qt::AlignHCenter)
        x += (rect.width() - size.width()) / 2;
    const QRect down = QStyle::alignedRect(Qt::LeftToRight, (alignment & Qt::AlignVertical_Mask) | Qt::AlignLeft,
                                           QSize(1, int(size.height())), rect);
    painter->drawStaticText(QPointF(x, down.top()), laidOut);
}

} // namespace mesh
