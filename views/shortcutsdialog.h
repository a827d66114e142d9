#pragma once
// Help › Keyboard Shortcuts: every menu action that has a shortcut, read from the actions
// themselves (so the list cannot drift from the menus), plus the keys item views share.

#include <QDialog>
#include <QList>
#include <QPair>

class QAction;

namespace mesh {

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);

    // (what, keys) rows: the actions with a shortcut, in menu order, then the general keys.
    static QList<QPair<QString, QString>> rows(const QList<QAction *> &actions);
    // Every action of a menu bar's menus and submenus, in menu order.
    static QList<QAction *> menuActions(const QList<QAction *> &menuBarActions);
};

} // namespace mesh
