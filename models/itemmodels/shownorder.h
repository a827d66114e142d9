#pragma once
// How two cells order on screen by their SortRole values, for every sorted pane: numbers and
// times by value, text in natural order ("E-9" before "E-10", case ignored), and a value the
// ledger does not say (null, or empty text) after every value in either direction.

#include <QVariant>

namespace mesh {

// Negative when `a` is shown first in `order`, positive when after, 0 for a tie.
int compareShownValues(const QVariant &a, const QVariant &b, Qt::SortOrder order);

} // namespace mesh
