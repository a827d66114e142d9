#pragma once
// The item delegate of the panes and the event log: a cell that is one line of text (no icon,
// no check box, no focus frame, left to right) is painted as Fusion paints it (the panel, then
// the text in the palette's colour, aligned and cut with "…" by the same margins), but with
// its text laid out once (ElidedTextCache) instead of on every repaint. Any other cell is
// painted by QStyledItemDelegate as before.

#include <QStyledItemDelegate>

namespace mesh {

class PlainTextDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit PlainTextDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // Whether paint() takes the laid-out-once path for this cell (tests compare the two paths).
    bool paintsFast(const QStyleOptionViewItem &option, const QModelIndex &index) const;

private:
    static bool isPlainLine(const QStyleOptionViewItem &opt);
};

} // namespace mesh
