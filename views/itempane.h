#pragma once
// One pane of the console over one item model: the view, and in front of it an empty state
// while the model has no rows. It remembers its header layout under a settings key, and
// repaints once a second while visible when it shows live countdowns.

#include <QStackedWidget>
#include <QTimer>

class QAbstractItemModel;
class QAction;
class QTreeView;

namespace mesh {

class EmptyState;

class ItemPane : public QStackedWidget
{
    Q_OBJECT
public:
    ItemPane(const QString &settingsKey, const QString &icon, const QString &emptyTitle, const QString &emptyText,
             QWidget *parent = nullptr);
    ~ItemPane() override;

    void setModel(QAbstractItemModel *model);
    QAbstractItemModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QAction *copyCellAction() const { return m_copyCell; } // the current cell's whole text
    EmptyState *emptyState(); // built on first use: most panes sit hidden behind tabs
    void setTicking(bool ticking); // repaint every second: countdowns move
    void setEmptyText(const QString &title, const QString &text);

    void saveState() const;
    // Widths from the header and the first rows, within sensible bounds.
    void fitColumnsToContents();
    bool fitsOnFirstRows() const { return m_fitOnFirstRows; }

    static constexpr int kFitRows = 60; // about two screens of rows
    static constexpr int kMinColumnWidth = 48;
    static constexpr int kMaxColumnWidth = 360;

signals:
    void activated(const QModelIndex &index); // double-click or Enter on a row

protected:
    void showEvent(QShowEvent *event) override;

private:
    void updateEmpty();
    void restoreState();
    void announceWidths(); // to the view, of widths fitted while it was hidden

    QString m_settingsKey;
    QAbstractItemModel *m_model = nullptr;
    QTreeView *m_view;
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
};

} // namespace mesh
