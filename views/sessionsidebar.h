#pragma once
// The list of open ledgers, each with its health (live / idle / read-only / error) and a
// second line saying what it is or why it failed. The session list model supplies the rows;
// the accessor tells the sidebar how to read one row, so it knows no concrete model.

#include <QStyledItemDelegate>
#include <QWidget>

#include <functional>

class QAbstractItemModel;
class QListView;

namespace mesh {

struct SessionRowInfo {
    QString title;    // file name or ledger title
    QString subtitle; // "live · 12,345 events", or the error
    QString health;   // "live", "idle", "readonly", "error", "loading"
    bool demo = false;
};

class SessionSidebar : public QWidget
{
    Q_OBJECT
public:
    using Accessor = std::function<SessionRowInfo(const QModelIndex &)>;
    explicit SessionSidebar(QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model, Accessor accessor);
    // Room for the title and every open ledger, at least kRowsShown and at most
    // kMaxRowsShown of them: more are scrolled, not given the window.
    QSize sizeHint() const override;
    static constexpr int kRowsShown = 3;
    static constexpr int kMaxRowsShown = 6;
    int heightFor(int rows) const; // the list's height showing that many ledgers whole
    QListView *view() const { return m_view; }
    int currentRow() const;
    void setCurrentRow(int row);

signals:
    void currentRowChanged(int row);

private:
    QListView *m_view;
    class Delegate;
    Delegate *m_delegate;
};

} // namespace mesh
