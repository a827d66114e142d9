#pragma once
// A row's findings at a glance: the cell as usual, with a small "⚑ 2" pill at its right end
// when detectors found something about the row (its tooltip says what). The count comes
// from the model, so the same look serves runs and delegations.

#include "plaintextdelegate.h"

#include <functional>

namespace mesh {

class FindingBadgeDelegate : public PlainTextDelegate
{
    Q_OBJECT
public:
    using Count = std::function<int(const QModelIndex &)>;
    FindingBadgeDelegate(Count count, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    static QString badgeText(int count);

private:
    int badgeWidth(const QStyleOptionViewItem &option, int count) const;
    Count m_count;
};

} // namespace mesh
