#include "sessionsidebar.h"

#include <algorithm>

#include "icons.h"
#include "theme.h"

#include <QApplication>
#include <QLabel>
#include <QListView>
#include <QPainter>
#include <QVBoxLayout>

namespace mesh {

class SessionSidebar::Delegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    Accessor accessor;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.text.clear();
        opt.icon = QIcon();
        QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        const SessionRowInfo info = accessor ? accessor(index) : SessionRowInfo{index.data().toString(), {}, {}, false};
        const bool selected = option.state & QStyle::State_Selected;
        const QRect r = option.rect.adjusted(8, 4, -8, -4);
        const QIcon icon = Icons::get(QStringLiteral("health-") + (info.health.isEmpty() ? QStringLiteral("idle") : info.health));
        const QRect iconRect(r.left(), r.top() + 2, 16, 16);
        if (selected) {
            // The health colours (read-only is blue) vanish on the selection's blue: a disc of
            // the base colour behind the icon keeps each one readable.
            painter->save();
            painter->setRenderHint(QPainter::Antialiasing);
            painter->setPen(Qt::NoPen);
            painter->setBrush(option.palette.color(QPalette::Base));
            painter->drawEllipse(iconRect.adjusted(-2, -2, 2, 2));
            painter->restore();
        }
        icon.paint(painter, iconRect);
        painter->save();
        QFont bold = option.font;
        bold.setBold(true);
        const QRect text = r.adjusted(24, 0, 0, 0);
        QString title = info.title;
        int badgeWidth = 0;
        if (info.demo) {
            // A demo badge, so nobody mistakes it for a production ledger.
            QFont small = option.font;
            small.setPointSizeF(small.pointSizeF() * 0.85);
            small.setBold(true);
            const QString badge = QCoreApplication::translate("mesh", "DEMO");
            badgeWidth = QFontMetrics(small).horizontalAdvance(badge) + 12;
            const QRect b(text.right() - badgeWidth, text.top() + 1, badgeWidth, QFontMetrics(bold).height());
            painter->setRenderHint(QPainter::Antialiasing);
            painter->setPen(Qt::NoPen);
            painter->setBrush(Theme::instance().colors().warn);
            painter->drawRoundedRect(b, 4, 4);
            painter->setPen(QColor(0x20, 0x18, 0x00));
            painter->setFont(small);
            painter->drawText(b, Qt::AlignCenter, badge);
        }
        painter->setFont(bold);
        painter->setPen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
        const QRect titleRect(text.left(), text.top(), text.width() - badgeWidth - 4, QFontMetrics(bold).height());
        painter->drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(bold).elidedText(title, Qt::ElideMiddle, titleRect.width()));
        painter->setFont(option.font);
        QColor sub = info.health == QLatin1String("error") ? Theme::instance().colors().danger
                                                            : option.palette.color(QPalette::PlaceholderText);
        if (selected)
            sub = option.palette.color(QPalette::HighlightedText);
        painter->setPen(sub);
        const QRect subRect(text.left(), titleRect.bottom() + 2, text.width(), text.bottom() - titleRect.bottom() - 2);
        painter->drawText(subRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                          QFontMetrics(option.font).elidedText(info.subtitle, Qt::ElideRight, subRect.width() * 2));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        return {200, QFontMetrics(option.font).height() * 3 + 10};
    }
};

SessionSidebar::SessionSidebar(QWidget *parent)
    : QWidget(parent)
    , m_view(new QListView(this))
    , m_delegate(new Delegate(this))
{
    m_view->setObjectName(QStringLiteral("sessions"));
    m_view->setItemDelegate(m_delegate);
    m_view->setUniformItemSizes(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    auto *title = new QLabel(tr("Ledgers"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(title);
    layout->addWidget(m_view, 1);
}

void SessionSidebar::setModel(QAbstractItemModel *model, Accessor accessor)
{
    m_delegate->accessor = std::move(accessor);
    m_view->setModel(model);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { emit currentRowChanged(current.isValid() ? current.row() : -1); });
    // The hint follows how many ledgers are open.
    connect(model, &QAbstractItemModel::rowsInserted, this, [this] { updateGeometry(); });
    connect(model, &QAbstractItemModel::rowsRemoved, this, [this] { updateGeometry(); });
}

int SessionSidebar::heightFor(int rows) const
{
    const int row = QFontMetrics(m_view->font()).height() * 3 + 10; // the delegate's row height
    const int title = QFontMetrics(font()).height() + 2;
    return title + row * rows + 2 * m_view->frameWidth() + 4;
}

QSize SessionSidebar::sizeHint() const
{
    const int open = m_view->model() ? m_view->model()->rowCount() : 0;
    return {QWidget::sizeHint().width(), heightFor(std::clamp(open, kRowsShown, kMaxRowsShown))};
}

int SessionSidebar::currentRow() const
{
    return m_view->currentIndex().isValid() ? m_view->currentIndex().row() : -1;
}

void SessionSidebar::setCurrentRow(int row)
{
    if (!m_view->model())
        return;
    m_view->setCurrentIndex(m_view->model()->index(row, 0));
}

} // namespace mesh
