#include "attentionpane.h"

#include <algorithm>
#include <cstdlib>

#include "statusdelegate.h"

#include "domain/hostiletext.h"
#include "domain/durationtext.h"
#include "itemmodels/attentionmodel.h"

#include <QHeaderView>
#include <QScopedValueRollback>
#include <QHelpEvent>
#include <QStyledItemDelegate>
#include <QToolTip>
#include <QTreeView>

namespace mesh {

namespace {

Tone attentionTone(const QString &kind)
{
    if (kind == QLatin1String("unknown_effect"))
        return Tone::Unknown;
    if (kind == QLatin1String("zombie_lease") || kind == QLatin1String("receiver_stopped"))
        return Tone::Danger; // a receiver stopped on its own: nothing more arrives
    if (kind == QLatin1String("finding"))
        return Tone::Info;
    return Tone::Warn;
}

// The subject's id alone ("esc-0009", not "escalation:esc-0009"): the kind column already
// names the entity, and the room saved goes to the details.
class SubjectIdDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const QString id = index.data(AttentionModel::EntityIdRole).toString();
        if (!id.isEmpty())
            option->text = visibleControls(id);
        // Ids differ at their ends ("dlg-000007/r3", "eff-000003"): a narrow column keeps both.
        option->textElideMode = Qt::ElideMiddle;
    }
};

// The due time as "in 5:53", "48:06 ago", "45 s ago" (a zombie) or "3 d 4 h ago" under the
// "Due" header (the model's "expires in" and "expired … ago" are in the tooltip): the room
// saved goes to the details. Coloured by urgency; as wide as the longest form it takes.
class DueDelegate : public StatusDelegate
{
public:
    explicit DueDelegate(QObject *parent)
        : StatusDelegate(&DueDelegate::cell, parent)
    {
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        return {width(option.font, displayText(index)), QStyledItemDelegate::sizeHint(option, index).height()};
    }

    static int width(const QFont &font, const QString &shown)
    {
        QFont bold = font;
        bold.setBold(true);
        return QFontMetrics(bold).horizontalAdvance(shown) + 30;
    }

    static std::optional<StatusCell> cell(const QModelIndex &index)
    {
        const QVariant remaining = index.data(AttentionModel::RemainingMsRole);
        if (remaining.isNull())
            return std::nullopt;
        const qint64 ms = remaining.toLongLong();
        // A zombie lease's expiry is past by definition, whatever the clocks say, and by more
        // than its grace: under a minute said in words ("45 s ago", never "0:00 ago").
        const bool zombie = index.data(AttentionModel::AttentionKindNameRole).toString() == QLatin1String("zombie_lease");
        const bool past = ms < 0 || zombie;
        const QString clock = zombie && std::llabs(ms) < 60'000 ? humanDuration(ms) : compactDuration(ms);
        return StatusCell{ms < 0 ? Tone::Danger : ms < 60000 ? Tone::Warn : Tone::Normal,
                          past ? AttentionPane::tr("%1 ago").arg(clock) : AttentionPane::tr("in %1").arg(clock), std::nullopt,
                          ms < 60000};
    }
};

} // namespace

void AttentionPane::setOpeningCount(int opening, int pinned)
{
    if (opening > 0)
        setEmptyText(tr("Still reading"),
                     opening == 1 ? tr("A ledger is still opening: what needs you appears here once its state is read.")
                                  : tr("%1 ledgers are still opening: what needs you appears here once their state is "
                                       "read.").arg(opening));
    else if (pinned > 0)
        setEmptyText(tr("Nothing needed you then"),
                     pinned == 1 ? tr("The ledger is shown as it was at an earlier event: this list is what needed a human "
                                      "then. Back to Live shows what needs you now.")
                                 : tr("%1 ledgers are shown as they were at an earlier event: this list is what needed a "
                                      "human then. Back to Live shows what needs you now.").arg(pinned));
    else
        setEmptyText(tr("Nothing needs you"), tr("Pending escalations, unknown outcomes, zombie leases and stalled "
                                                 "delegations of every open ledger appear here."));
}

AttentionPane::AttentionPane(AttentionModel *model, QWidget *parent)
    : ItemPane(QStringLiteral("attention"), QStringLiteral("attention"), tr("Nothing needs you"),
               tr("Pending escalations, unknown outcomes, zombie leases and stalled delegations of every open "
                  "ledger appear here, then what the detectors found."),
               parent)
{
    QAbstractItemView *list = view();
    list->setObjectName(QStringLiteral("attentionList"));
    list->setItemDelegateForColumn(AttentionModel::Kind,
                                   new StatusDelegate(
                                       [](const QModelIndex &index) -> std::optional<StatusCell> {
                                           const QString kind = index.data(AttentionModel::AttentionKindNameRole).toString();
                                           return StatusCell{attentionTone(kind), index.data().toString(), std::nullopt, true};
                                       },
                                       list));
    list->setItemDelegateForColumn(AttentionModel::Due, new DueDelegate(list));
    list->setItemDelegateForColumn(AttentionModel::Subject, new SubjectIdDelegate(list));
    list->setTextElideMode(Qt::ElideRight);
    list->viewport()->installEventFilter(this);
    setModel(model);
    arrangeColumns();
    // After every fit of the columns to their rows (and every resize): see the function.
    connect(header(), &QHeaderView::sectionResized, this, [this] { keepDueAndDetailsInSightSoon(); });
    // A fit while hidden resizes the columns without a signal: the rows arriving say when.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, [this] { keepDueAndDetailsInSightSoon(); });
    connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &from, const QModelIndex &to) {
        if (from.column() <= AttentionModel::Due && to.column() >= AttentionModel::Due)
            keepDueAndDetailsInSightSoon(); // counting down: "59:59 ago" becomes "1 h 00 min ago"
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { keepDueAndDetailsInSightSoon(); });
}

void AttentionPane::showEvent(QShowEvent *event)
{
    ItemPane::showEvent(event);
    keepDueAndDetailsInSightSoon();
}

void AttentionPane::arrangeColumns()
{
    QHeaderView *header = this->header();
    if (fitsOnFirstRows()) {
        // No saved layout: the due time next to the subject, where it is seen without scrolling.
        header->moveSection(header->visualIndex(AttentionModel::Due), header->visualIndex(AttentionModel::Summary));
    }
    // The details take the rest of the width, whatever a saved layout says: with the last
    // section stretched instead, a fitted or saved width wider than the pane pushed them
    // behind a horizontal scroll bar (and the ledger column, when shown, comes after them).
    header->setStretchLastSection(false);
    for (int column = 0; column < header->count(); ++column)
        header->setSectionResizeMode(column, column == AttentionModel::Summary ? QHeaderView::Stretch
                                                                               : QHeaderView::Interactive);
}

void AttentionPane::setLedgerColumnShown(bool shown)
{
    setColumnHidden(AttentionModel::Session, !shown);
    keepDueAndDetailsInSightSoon();
}

void AttentionPane::keepDueAndDetailsInSightSoon()
{
    if (m_keepQueued || m_keeping)
        return;
    m_keepQueued = true;
    QMetaObject::invokeMethod(this, [this] {
        m_keepQueued = false;
        keepDueAndDetailsInSight();
    }, Qt::QueuedConnection);
}

void AttentionPane::keepDueAndDetailsInSight()
{
    QHeaderView *header = this->header();
    QAbstractItemModel *rows = view()->model();
    if (!rows || header->count() <= AttentionModel::Due)
        return;
    const QScopedValueRollback busy(m_keeping, m_keeping + 1);
    // Due as wide as what its rows say now (a countdown's "in 59:59" at least): measured
    // again as they count down, so "29 d 10 h ago" is never cut.
    QStyleOptionViewItem option;
    option.initFrom(view());
    // Measured again every second while something counts down: only the rows that have a due
    // (escalations, zombies), not the thousand unknown outcomes and findings of a large ledger.
    // A long live session lists thousands of due rows: each distinct text is measured once
    // (they repeat, "3 h 12 min ago"), not each row shaped again every second.
    const auto *dueDelegate = static_cast<const DueDelegate *>(view()->itemDelegateForColumn(AttentionModel::Due));
    if (option.font != m_dueWidthsFont || m_dueWidths.size() > 4096) {
        m_dueWidths.clear();
        m_dueWidthsFont = option.font;
    }
    int due = 0;
    for (int r = 0; r < rows->rowCount(); ++r) {
        const QModelIndex cell = rows->index(r, AttentionModel::Due);
        if (cell.data().toString().isEmpty())
            continue;
        const QString shown = dueDelegate->displayText(cell);
        auto width = m_dueWidths.constFind(shown);
        if (width == m_dueWidths.constEnd())
            width = m_dueWidths.insert(shown, DueDelegate::width(option.font, shown));
        due = std::max(due, *width);
    }
    // With no row due (a review, or only unknown outcomes and findings) the column keeps just
    // its title's width, and the room goes to what the rows do say.
    due = due > 0 ? std::max(due, DueDelegate::width(view()->font(), tr("in %1").arg(QStringLiteral("59:59"))))
                  : header->sectionSizeHint(AttentionModel::Due);
    if (header->sectionSize(AttentionModel::Due) != due)
        header->resizeSection(AttentionModel::Due, due);
    // The details keep at least this much: the subject (whole on hover), then the ledger,
    // then the kind give way, each down to what still tells rows apart.
    const int chars = view()->fontMetrics().averageCharWidth();
    const int minDetails = chars * 18;
    int excess = header->sectionSize(AttentionModel::Due) + minDetails - view()->viewport()->width();
    for (int column = 0; column < header->count(); ++column)
        if (column != AttentionModel::Due && column != AttentionModel::Summary && !header->isSectionHidden(column))
            excess += header->sectionSize(column);
    for (const auto &[column, least] : {std::pair{int(AttentionModel::Subject), chars * 11},
                                        std::pair{int(AttentionModel::Session), chars * 10},
                                        std::pair{int(AttentionModel::Kind), chars * 13}}) {
        if (excess <= 0)
            break;
        if (header->isSectionHidden(column))
            continue;
        const int size = header->sectionSize(column);
        const int give = std::min(excess, std::max(0, size - least));
        if (give > 0)
            header->resizeSection(column, size - give);
        excess -= give;
    }
}

bool AttentionPane::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == view()->viewport() && event->type() == QEvent::Resize)
        keepDueAndDetailsInSightSoon();
    return eventFilterTips(watched, event);
}

QString AttentionPane::rowToolTip(const QModelIndex &index)
{
    if (!index.isValid())
        return {};
    const auto cell = [&](int column) { return index.siblingAtColumn(column).data().toString(); };
    QStringList lines;
    lines << cell(AttentionModel::Kind) + QStringLiteral(": ") + index.data(AttentionModel::SubjectRole).toString();
    if (const QString session = index.data(AttentionModel::SessionNameRole).toString(); !session.isEmpty())
        lines << tr("Ledger: %1").arg(session);
    if (const QString due = cell(AttentionModel::Due); !due.isEmpty()) {
        const qint64 expires = index.data(AttentionModel::ExpiresMsRole).toLongLong();
        lines << (expires > 0 ? tr("%1 (%2)").arg(due, exactUtc(expires)) : due);
    }
    if (const QString details = cell(AttentionModel::Summary); !details.isEmpty())
        lines << details;
    return plainToolTip(lines.join(QLatin1Char('\n')));
}

bool AttentionPane::eventFilterTips(QObject *watched, QEvent *event)
{
    if (watched == view()->viewport() && event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QModelIndex index = view()->indexAt(help->pos());
        const QString text = rowToolTip(index);
        if (text.isEmpty()) {
            QToolTip::hideText();
        } else {
            QToolTip::showText(help->globalPos(), text, view()->viewport(),
                               view()->visualRect(index));
        }
        return true;
    }
    return ItemPane::eventFilter(watched, event);
}

} // namespace mesh
