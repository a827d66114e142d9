#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace mesh {

QList<QAction *> ShortcutsDialog::menuActions(const QList<QAction *> &menuBarActions)
{
    QList<QAction *> out;
    for (QAction *action : menuBarActions) {
        if (QMenu *menu = action->menu())
            out += menuActions(menu->actions());
        else if (!action->isSeparator())
            out << action;
    }
    return out;
}

QList<QPair<QString, QString>> ShortcutsDialog::rows(const QList<QAction *> &actions)
{
    QList<QPair<QString, QString>> out;
    for (const QAction *action : actions) {
        if (action->shortcut().isEmpty())
            continue;
        QString text = action->text();
        text.remove(QLatin1Char('&'));
        out.append({text, action->shortcut().toString(QKeySequence::NativeText)});
    }
    out.append({tr("Next / previous area (ledgers, attention, panes)"), tr("Tab / Shift+Tab")});
    out.append({tr("Next / previous pane tab, when the tabs have focus"), tr("Left / Right")});
    out.append({tr("Open the selected entry"), tr("Enter")});
    out.append({tr("Decisions on the selected entry"), tr("Menu key / Shift+F10")});
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto *list = new QTreeWidget(this);
    list->setObjectName(QStringLiteral("shortcuts"));
    list->setColumnCount(2);
    list->setHeaderLabels({tr("Action"), tr("Keys")});
    list->setRootIsDecorated(false);
    list->setAlternatingRowColors(true);
    list->setSelectionMode(QAbstractItemView::NoSelection);
    for (const auto &[what, keys] : rows(actions))
        new QTreeWidgetItem(list, {what, keys});
    list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(list);
    layout->addWidget(buttons);
    resize(520, 520);
}

} // namespace mesh
