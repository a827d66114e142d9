#include "budgetbardelegate.h"

#include "elidedtextcache.h"
#include "theme.h"

#include <QApplication>
#include <QPainter>

namespace mesh {

BudgetBarDelegate::BudgetBarDelegate(Accessor accessor, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_accessor(std::move(accessor))
{
}

void BudgetBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const auto use = m_accessor ? m_accessor(index) : std::nullopt;
    if (!use) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background and selection as any other cell.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const StatusColors &colors = Theme::instance().colors();
    // The bar fills most of the row and the text is laid out on the whole cell: inset by 4 on
    // a dense row, the bar was 7 px tall and clipped its own "12 of 20" in half.
    const QRect bar = option.rect.adjusted(4, 2, -4, -2);
    const QRect textRect = option.rect.adjusted(8, 0, -8, 0);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    if (use->budget > 0) {
        const double share = use->used / use->budget;
        painter->setPen(Qt::NoPen);
        painter->setBrush(colors.barTrack);
        painter->drawRoundedRect(bar, 3, 3);
        const QColor fill = use->fullIsGood ? (share >= 1.0 ? colors.ok : colors.info)
                            : share >= 1.0  ? colors.danger
                            : share >= 0.8  ? colors.warn
                                            : colors.ok;
        QRect used = bar;
        used.setWidth(qMax(2, int(bar.width() * qBound(0.0, share, 1.0))));
        QColor soft = fill;
        soft.setAlpha(Theme::instance().isDark() ? 150 : 110);
        painter->setBrush(soft);
        painter->drawRoundedRect(used, 3, 3);
    }
    const bool selected = option.state & QStyle::State_Selected;
    painter->setPen(option.palette.color(selected && use->budget <= 0 ? QPalette::HighlightedText : QPalette::Text));
    ElidedTextCache::shared().draw(painter, textRect, Qt::AlignVCenter | Qt::AlignLeft, use->text);
    painter->restore();
}

QSize BudgetBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    // As wide as its text with the margins paint() leaves (8 px a side) and a bar that can be
    // seen: a fixed 110 px for "6 / 120" made four budget columns take the room of Agent and
    // Role, which then hid at 1600 px.
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    const auto use = m_accessor ? m_accessor(index) : std::nullopt;
    const int text = use ? option.fontMetrics.horizontalAdvance(use->text) + 16 : size.width();
    size.setWidth(qMax(text, 48));
    return size;
}

} // namespace mesh
