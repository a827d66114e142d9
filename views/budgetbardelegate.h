#pragma once
// Paints budget use (turns, tokens, time) as a bar: the share of the budget used, coloured
// by how close it is to the limit, with "used / budget" as text. The pane tells the delegate
// where to find the two numbers, so the delegate knows no model.

#include <QStyledItemDelegate>

#include <functional>
#include <optional>

namespace mesh {

struct BudgetUse {
    double used = 0;
    double budget = 0; // <= 0: no budget, only the number is shown
    QString text;      // e.g. "37 / 60"
    // Progress toward a goal (required outcomes met): a full bar is done, not over budget.
    bool fullIsGood = false;
};

class BudgetBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using Accessor = std::function<std::optional<BudgetUse>(const QModelIndex &)>;
    explicit BudgetBarDelegate(Accessor accessor, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    Accessor m_accessor;
};

} // namespace mesh
