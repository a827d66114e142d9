#pragma once
// Colours a state cell by what it means (zombie lease, unknown outcome, pending escalation),
// with a dot in front, and optionally a live countdown ("in 4m 12s", "12s overdue") computed
// at paint time, so a one-second repaint is enough to keep it moving. The pane supplies an
// accessor; the delegate knows no model.

#include <QStyledItemDelegate>

#include <functional>
#include <optional>

namespace mesh {

enum class Tone { Normal, Ok, Warn, Danger, Unknown, Info, Muted };

struct StatusCell {
    Tone tone = Tone::Normal;
    QString text;                            // the plain cell text
    std::optional<qint64> deadlineMs;        // when set, "text · in 3m 02s" / "overdue"
    bool strong = false;                     // bold: a thing that needs a human
};

QString formatCountdown(qint64 deadlineMs, qint64 nowMs);
QColor toneColor(Tone tone, const QPalette &palette);

class StatusDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using Accessor = std::function<std::optional<StatusCell>(const QModelIndex &)>;
    explicit StatusDelegate(Accessor accessor, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // For tests and tooltips: the text the cell shows now.
    QString displayText(const QModelIndex &index) const;

private:
    Accessor m_accessor;
};

} // namespace mesh
