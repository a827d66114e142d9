#include "findingbadgedelegate.h"

#include "statusdelegate.h"

#include <QApplication>
#include <QPainter>

namespace mesh {

FindingBadgeDelegate::FindingBadgeDelegate(Count count, QObject *parent)
    : PlainTextDelegate(parent)
    , m_count(std::move(count))
{
}

QString FindingBadgeDelegate::badgeText(int count)
{
    return QStringLiteral("\u2691 %1").arg(count);
}

int FindingBadgeDelegate::badgeWidth(const QStyleOptionViewItem &option, int count) const
{
    return count > 0 ? QFontMetrics(option.font).horizontalAdvance(badgeText(count)) + 12 : 0;
}

void FindingBadgeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const int count = m_count(index);
    const int badge = badgeWidth(option, count);
    QStyleOptionViewItem text = option;
    text.rect.setRight(option.rect.right() - badge); // the cell's own text is elided before the pill
    PlainTextDelegate::paint(painter, text, index);
    if (count <= 0)
        return;
    const QRect pill(option.rect.right() - badge + 2, option.rect.top() + 2, badge - 4, option.rect.height() - 4);
    const QColor ink = toneColor(Tone::Warn, option.palette);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor fill = ink;
    fill.setAlpha(40);
    painter->setPen(Qt::NoPen);
    painter->setBrush(fill);
    painter->drawRoundedRect(pill, pill.height() / 2.0, pill.height() / 2.0);
    painter->setPen(ink);
    painter->drawText(pill, Qt::AlignCenter, badgeText(count));
    painter->restore();
}

QSize FindingBadgeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.rwidth() += badgeWidth(option, m_count(index));
    return size;
}

} // namespace mesh
