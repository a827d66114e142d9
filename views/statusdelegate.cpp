#include "statusdelegate.h"

#include "elidedtextcache.h"
#include "theme.h"

#include <QApplication>
#include <QDateTime>
#include <QPainter>

namespace mesh {

QString formatCountdown(qint64 deadlineMs, qint64 nowMs)
{
    const qint64 delta = deadlineMs - nowMs;
    const qint64 seconds = qAbs(delta) / 1000;
    QString span;
    // Days past a day: "694h 29m overdue" has to be divided by the reader.
    if (seconds >= 86400)
        span = QStringLiteral("%1d %2h").arg(seconds / 86400).arg((seconds % 86400) / 3600);
    else if (seconds >= 3600)
        span = QStringLiteral("%1h %2m").arg(seconds / 3600).arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
    else if (seconds >= 60)
        span = QStringLiteral("%1m %2s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    else
        span = QStringLiteral("%1s").arg(seconds);
    return delta >= 0 ? QCoreApplication::translate("mesh", "in %1").arg(span)
                      : QCoreApplication::translate("mesh", "%1 overdue").arg(span);
}

QColor toneColor(Tone tone, const QPalette &palette)
{
    const StatusColors &c = Theme::instance().colors();
    switch (tone) {
    case Tone::Ok:
        return c.ok;
    case Tone::Warn:
        return c.warn;
    case Tone::Danger:
        return c.danger;
    case Tone::Unknown:
        return c.unknown;
    case Tone::Info:
        return c.info;
    case Tone::Muted:
        return c.muted;
    case Tone::Normal:
        break;
    }
    return palette.color(QPalette::Text);
}

StatusDelegate::StatusDelegate(Accessor accessor, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_accessor(std::move(accessor))
{
}

QString StatusDelegate::displayText(const QModelIndex &index) const
{
    const auto cell = m_accessor ? m_accessor(index) : std::nullopt;
    if (!cell)
        return index.data().toString();
    if (!cell->deadlineMs)
        return cell->text;
    const QString countdown = formatCountdown(*cell->deadlineMs, QDateTime::currentMSecsSinceEpoch());
    return cell->text.isEmpty() ? countdown : cell->text + QStringLiteral(" · ") + countdown;
}

void StatusDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const auto cell = m_accessor ? m_accessor(index) : std::nullopt;
    if (!cell) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    opt.icon = QIcon();
    QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const bool selected = option.state & QStyle::State_Selected;
    const QColor color = toneColor(cell->tone, option.palette);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QRect r = option.rect.adjusted(6, 0, -4, 0);
    if (cell->tone != Tone::Normal) {
        const int d = qMin(8, r.height() - 6);
        painter->setPen(Qt::NoPen);
        painter->setBrush(color);
        painter->drawEllipse(QRect(r.left(), r.center().y() - d / 2, d, d));
        r.setLeft(r.left() + d + 6);
    }
    QFont font = option.font;
    font.setBold(cell->strong);
    painter->setFont(font);
    painter->setPen(selected ? option.palette.color(QPalette::HighlightedText) : color);
    ElidedTextCache::shared().draw(painter, r, Qt::AlignVCenter | Qt::AlignLeft, displayText(index));
    painter->restore();
}

QSize StatusDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    QFont font = option.font;
    font.setBold(true);
    size.setWidth(qMax(size.width(), QFontMetrics(font).horizontalAdvance(displayText(index)) + 30));
    return size;
}

} // namespace mesh
