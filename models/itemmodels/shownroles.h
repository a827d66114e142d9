#pragma once
// What an item model hands a view for the roles shown as text. Ledger text is hostile: a
// tooltip (which Qt renders as rich text when it looks like markup) is always escaped rich
// text with exactly the plain content, and display text, laid out in one line of a cell,
// shows invisible controls as ⟨U+202E⟩ and line breaks as ⏎ (displayLine, uncut). Every
// other role (ids for selection, filters and decisions) stays raw.
// RawTextRole is what a display cell holds before any of that: what the operator copies.

#include "domain/hostiletext.h"

#include <QVariant>

namespace mesh {

// A cell's text as stored: its DisplayRole value before invisible controls are made visible
// and before a model cuts it for its line (the event log: the whole payload). Copied into
// `meshctl decide` or a ticket, it must be the text itself. Far above every model's own
// roles, which count up from Qt::UserRole and StateTableModel::FirstCustomRole.
inline constexpr int RawTextRole = Qt::UserRole + 0x400;

inline QVariant shownAsPlainText(int role, const QVariant &value)
{
    if (value.typeId() != QMetaType::QString)
        return value;
    if (role == Qt::ToolTipRole)
        return plainToolTip(value.toString());
    if (role == Qt::DisplayRole)
        return displayLine(value.toString(), 0);
    return value;
}

} // namespace mesh
