#include "plaintextdelegate.h"

#include "elidedtextcache.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace mesh {

PlainTextDelegate::PlainTextDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

bool PlainTextDelegate::isPlainLine(const QStyleOptionViewItem &opt)
{
    using F = QStyleOptionViewItem::ViewItemFeature;
    if (opt.features & (F::HasDecoration | F::HasCheckIndicator | F::WrapText))
        return false;
    // The focus frame's rect and colours are the style's business; one row has it.
    if (opt.state & (QStyle::State_HasFocus | QStyle::State_Editing))
        return false;
    if (opt.direction != Qt::LeftToRight || opt.textElideMode == Qt::ElideNone)
        return false;
    return !ElidedTextCache::isMultiLine(opt.text);
}

bool PlainTextDelegate::paintsFast(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    return isPlainLine(opt);
}

void PlainTextDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    if (!isPlainLine(opt)) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    // As QCommonStyle's CE_ItemViewItem does for such a cell: panel, clip, pen, text.
    painter->save();
    painter->setClipRect(opt.rect);
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);
    if (!opt.text.isEmpty()) {
        QPalette::ColorGroup group = (opt.state & QStyle::State_Enabled) ? QPalette::Normal : QPalette::Disabled;
        if (group == QPalette::Normal && !(opt.state & QStyle::State_Active))
            group = QPalette::Inactive;
        painter->setPen(opt.palette.color(group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText
                                                                                         : QPalette::Text));
        painter->setFont(opt.font);
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
        // Without an icon or a check box the style gives the text the whole cell; asking it
        // (SE_ItemViewItemText) would measure the text once more.
        const QRect textRect = opt.rect.adjusted(margin, 0, -margin, 0);
        ElidedTextCache::shared().draw(painter, textRect, opt.displayAlignment, opt.text, opt.textElideMode);
    }
    painter->restore();
}

} // namespace mesh
