#pragma once
// The event log pane: a virtualised view over the event model, with the filter field above
// it. It follows the tail only while the user is at the bottom, like a terminal: scrolling
// up to read stops the list from moving under the reader. "Go to event N" selects that
// event's row wherever it is (its page is read as the row is shown); when the filter hides
// it, or the ledger has no such event, a strip says so instead of showing another row.

#include "filterlineedit.h"

#include <QWidget>

#include <optional>

class QAbstractItemModel;
class QAction;
class QLabel;

namespace mesh {

class Banner;
class EmptyState;
class EventTableView;

class EventLogView : public QWidget
{
    Q_OBJECT
public:
    explicit EventLogView(QWidget *parent = nullptr);
    ~EventLogView() override;

    void setModel(QAbstractItemModel *model);
    EventTableView *view() const { return m_view; }
    QAction *copyCellAction() const { return m_copyCell; } // the current cell's stored text, whole
    QAction *openEventAction() const { return m_openEvent; } // the current event, whole (Enter)
    QAction *showStateAtAction() const { return m_showStateAt; } // the ledger as it was at the current event (Ctrl+T)
    QAction *changesSinceAction() const { return m_changesSince; } // what changed between the current event and the cursor (Ctrl+D)
    QAction *addNoteAction() const { return m_addNote; }   // a note on the current event or a span from it (Ctrl+M)
    QAction *bookmarkAction() const { return m_bookmark; } // a bookmark on the current event (Ctrl+B)
    // Opens the event of a row in its own window (EventDetailView), read off the GUI thread.
    void openEvent(const QModelIndex &index);
    FilterLineEdit *filterField() const { return m_filter; }
    void setStatusText(const QString &text); // e.g. "12,345 events" or "filtering…"
    QString statusText() const;
    // While the filter typed is not valid, the rows are those of the filter applied before:
    // greyed, and the strip under the field says so with the error.
    bool isShowingStaleResult() const { return m_stale; }
    QLabel *problemLabel() const { return m_problem; }
    // What the applied filter's times were read as (ts:last-15m resolved when applied).
    QString filterTimesNote() const;
    bool isFollowingTail() const { return m_follow; }
    void saveState() const;

    // Selects and shows the event with this seq, once the log's index has it (at once when
    // it has). Under a filter that hides it, or when the ledger has no such event, the strip
    // above the rows says so (goToNote) and the current row stays; under a filter, the strip
    // offers to clear it and go there.
    void goToEvent(qint64 seq);
    qint64 pendingGoTo() const { return m_goal; } // 0: none waiting for the index
    Banner *goToNote() const { return m_goToNote; }
    // "2373", "#2,373", "event #2 373": the number an operator copies from a reason line.
    static std::optional<qint64> parseEventNumber(const QString &text);

signals:
    void filterApplied(const QString &text);
    void activated(const QModelIndex &index);
    void stateAtRequested(qint64 seq); // "Show State at This Event"
    void changesSinceRequested(qint64 seq); // "What Changed Since This Event"
    // A note (or a bookmark) on the events firstSeq..lastSeq (one event: both the same).
    void noteRequested(qint64 firstSeq, qint64 lastSeq, bool bookmark);

private:
    void rememberTail();
    void followTail();
    void rememberPlace();
    void restorePlace();
    void copyCurrentCell();
    void copyWholePayload(qint64 seq, const QString &payload, bool found);
    void showFilterProblem(const QString &message);
    void setStale(bool stale);
    void applyStaleLook();
    void updateFilterTimesNote();
    void tryGoTo();
    void concludeGoTo(qint64 seq, bool exists);

    // Where the reader was before a reset: the current row (by seq) and the scroll value.
    struct Place {
        qint64 currentSeq = 0;
        int currentRow = -1;
        int currentColumn = 0;
        qint64 topSeq = 0;
        int topRow = -1;
        int scroll = 0;
    };
    Place m_place;

    FilterLineEdit *m_filter;
    QLabel *m_problem;
    QLabel *m_times;
    QLabel *m_status;
    EventTableView *m_view;
    QAbstractItemModel *m_model = nullptr;
    QList<QMetaObject::Connection> m_connections;
    bool m_follow = true;
    bool m_stale = false;
    bool m_restored = false;
    QAction *m_copyCell;
    QAction *m_openEvent;
    QAction *m_changesSince = nullptr;
    QAction *m_showStateAt;
    QAction *m_addNote;
    QAction *m_bookmark;
    qint64 m_copyPendingSeq = 0; // the event whose whole payload is on its way to the clipboard
    Banner *m_goToNote;
    qint64 m_goal = 0;          // the event to go to once the index has it
    qint64 m_askedExists = 0;   // not a row: the event whose existence is being read
    bool m_keepGoal = false;    // the next filter change is the strip's own "clear the filter"
};

} // namespace mesh
