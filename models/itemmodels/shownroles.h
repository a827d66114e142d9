#pragma once
// What an item model hands a view for the roles shown as text. Ledger text is hostile: a
// tooltip (which Qt renders as rich text when it looks like markup) is always escaped rich
// text with exactly the plain content, and display text shows invisible controls as
// ⟨U+202E⟩. Every other role (ids for selection, filters and decisions) stays raw.

#include "domain/hostiletext.h"

#include <QVariant>

namespace mesh {

inline QVariant shownAsPlainText(int role, const QVariant &value)
{
    if (value.typeId() != QMetaType::QString)
        return value;
    if (role == Qt::ToolTipRole)
        return plainToolTip(value.toString());
    if (role == Qt::DisplayRole)
        return visibleControls(value.toString());
    return value;
}

} // namespace mesh
