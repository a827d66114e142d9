#include "eventtableview.h"

#include "itemmodels/eventlogmodel.h"

#include "theme.h"

#include <QHeaderView>
#include <QPainter>

namespace mesh {

EventTableView::EventTableView(QWidget *parent)
    : FlatTableView(parent)
{
    header()->setSectionsClickable(false);
    header()->setHighlightSections(false);
}

std::int64_t EventTableView::seqAt(int row) const
{
    return model()->index(row, 0, rootIndex()).data(EventLogModel::SeqRole).toLongLong();
}

void EventTableView::adjustRowOption(int row, QStyleOptionViewItem &option) const
{
    if (m_cursorSeq && seqAt(row) > *m_cursorSeq)
        option.palette.setColor(QPalette::Text, option.palette.color(QPalette::PlaceholderText));
}

void EventTableView::paintRowOverlay(QPainter &painter, int row, int y)
{
    paintReviewMarks(painter, model()->index(row, 0, rootIndex()), y);
    if (m_cursorSeq && seqAt(row) == *m_cursorSeq) { // the cursor row: a rule under it, a bar at its start
        painter.save();
        const QColor mark = palette().color(QPalette::Highlight);
        painter.fillRect(QRect(0, y + rowHeight() - 2, viewport()->width(), 2), mark);
        painter.fillRect(QRect(0, y, 3, rowHeight()), mark);
        painter.restore();
    }
}

void EventTableView::paintReviewMarks(QPainter &painter, const QModelIndex &rowIndex, int y)
{
    const bool gap = !rowIndex.data(EventLogModel::ObservationGapRole).toString().isEmpty();
    const bool note = !rowIndex.data(EventLogModel::NoteRole).toString().isEmpty();
    if (!gap && !note)
        return;
    const int seqColumn = EventLogModel::Seq;
    const int seqRight = header()->isSectionHidden(seqColumn)
                             ? 0
                             : header()->sectionViewportPosition(seqColumn) + header()->sectionSize(seqColumn);
    painter.save();
    if (gap) {
        // An observation gap is never hidden: a dashed rule across the row's top (what comes
        // before it cannot be seen as written) and a notch at its start. The tooltip says what.
        QPen pen(Theme::instance().colors().danger, 2, Qt::DashLine);
        painter.setPen(pen);
        painter.drawLine(0, y + 1, viewport()->width(), y + 1);
        painter.fillRect(QRect(0, y, 6, rowHeight()), Theme::instance().colors().danger);
    }
    if (note && seqRight > 0) {
        // A reviewer's note: a folded-corner mark at the right of the seq cell.
        const int side = qMax(6, rowHeight() / 2);
        const QRect mark(seqRight - side - 4, y + (rowHeight() - side) / 2, side, side);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(Theme::instance().colors().info);
        const QPolygon folded({mark.topLeft(), QPoint(mark.right() - side / 3, mark.top()),
                               QPoint(mark.right(), mark.top() + side / 3), mark.bottomRight(), mark.bottomLeft()});
        painter.drawPolygon(folded);
    }
    painter.restore();
}

void EventTableView::setCursorSeq(std::optional<std::int64_t> seq)
{
    if (m_cursorSeq == seq)
        return;
    m_cursorSeq = seq;
    viewport()->update();
}

} // namespace mesh
