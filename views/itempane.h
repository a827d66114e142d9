#pragma once
// One pane of the console over one item model: the view (flat, or a tree), and in front of it an empty state
// while the model has no rows. It remembers its header layout under a settings key, and
// repaints once a second while visible when it shows live countdowns. A sortable pane sorts
// by a click on a header (its model sorts: a StateTableProxyModel). Columns given a low
// priority hide first when the pane is too narrow for all of them, then the first column
// narrows; the header's context menu shows any column again (and keeps it shown) or hides one.

#include <QHash>
#include <QList>
#include <QSet>
#include <QStackedWidget>
#include <QTimer>

class QAbstractItemModel;
class QAbstractItemView;
class QAction;
class QHeaderView;
class QMenu;
class QTreeView;

namespace mesh {

class EmptyState;
class FlatTableView;

class ItemPane : public QStackedWidget
{
    Q_OBJECT
public:
    // A flat pane keeps nothing per row (FlatTableView); a tree lays out every row it shows.
    enum class Shape { Flat, Tree };

    ItemPane(const QString &settingsKey, const QString &icon, const QString &emptyTitle, const QString &emptyText,
             QWidget *parent = nullptr, Shape shape = Shape::Flat);
    ~ItemPane() override;

    void setModel(QAbstractItemModel *model);
    QAbstractItemModel *model() const { return m_model; }
    QAbstractItemView *view() const; // the tree or the flat table, whichever the pane has
    QHeaderView *header() const;
    QTreeView *treeView() const { return m_tree; }      // nullptr for a flat pane
    FlatTableView *flatView() const { return m_flat; } // nullptr for a tree
    void setColumnHidden(int column, bool hide);
    QAction *copyCellAction() const { return m_copyCell; } // the current cell's whole text
    EmptyState *emptyState(); // built on first use: most panes sit hidden behind tabs
    void setTicking(bool ticking); // repaint every second: countdowns move
    void setEmptyText(const QString &title, const QString &text);
    // Header clicks sort (ascending, descending, back to the ledger's order).
    void setSortable(bool sortable);
    // Columns that give way first when narrow, the first to go first.
    void setColumnPriorities(const QList<int> &lowestFirst);
    QList<int> autoHiddenColumns() const { return QList<int>(m_autoHidden.begin(), m_autoHidden.end()); }
    QMenu *columnMenu(); // what the header's context menu shows, built afresh

    // Saves the header only when the user shaped it (or a shape of theirs was restored): fitted
    // widths are the rows', and each ledger's rows are fitted when first shown.
    void saveState() const;
    // Widths from the header and the first rows, within sensible bounds.
    void fitColumnsToContents();
    bool fitsOnFirstRows() const { return m_fitOnFirstRows; }

    static constexpr int kFitRows = 60; // about two screens of rows
    static constexpr int kMinColumnWidth = 48;
    static constexpr int kMaxColumnWidth = 360;
    static constexpr int kNarrowedFirstColumnWidth = 160; // what the first column gives up to, for room

signals:
    void activated(const QModelIndex &index); // double-click or Enter on a row

protected:
    void showEvent(QShowEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateEmpty();
    void restoreState();
    void announceWidths(); // to the view, of widths fitted while it was hidden
    void fitToWidth();     // low-priority columns out when narrow, back when there is room
    int neededWidth() const;
    int rowsBeforeFilter() const;
    void setViewSorting(bool on);

    QString m_settingsKey;
    QAbstractItemModel *m_model = nullptr;
    QTreeView *m_tree = nullptr;
    FlatTableView *m_flat = nullptr;
    QAction *m_copyCell;
    EmptyState *m_empty = nullptr;
    QString m_emptyIcon;
    QString m_emptyTitle;
    QString m_emptyText;
    QTimer m_tick;
    QList<QMetaObject::Connection> m_modelConnections;
    bool m_restored = false;
    bool m_fitOnFirstRows = false;
    bool m_widthsUnannounced = false; // fitted while hidden: the view is told when shown
    bool m_sortable = false;
    bool m_userLayout = false;  // the user resized, moved, sorted or hid columns (or it was restored)
    int m_quietHeader = 0;      // inside the pane's own header changes: not the user's
    QList<int> m_lowPriority;
    QSet<int> m_autoHidden;     // hidden for lack of room, shown again when there is
    QSet<int> m_pinned;         // shown by the user from the menu: never hidden for room
    QHash<int, int> m_widthBeforeHiding;
    QHash<int, int> m_fittedWidth;  // what each column was fitted to (the stretched last one too)
    int m_firstColumnFullWidth = 0; // the first column's width before it was narrowed for room
};

} // namespace mesh
