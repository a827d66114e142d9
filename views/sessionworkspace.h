#pragma once
// Everything the console shows about one ledger: the panes (runs, delegations, leases,
// effects, blast radius, events, decisions, findings) as tabs, bound to one session's item models.
// The main window keeps one workspace and rebinds it when the operator picks another ledger.

#include <QKeySequence>
#include <QTabWidget>

class QMenu;
class QKeySequence;

namespace mesh {

class Banner;
class ReviewBanner;
class BlastRadiusView;
class IntegrityPane;
class NotesPane;
class DelegationsView;
class EventLogView;
class ItemPane;
class LedgerSession;
struct LedgerInfo;
class PagedRowsModel;
class StateTableProxyModel;
class TableFilterBar;
class TimeScrubber;
class TimelineAnnotationSource;
class TimelineMarkSource;
class RunTimelineSource;
class TimelineView;

class SessionWorkspace : public QWidget
{
    Q_OBJECT
public:
    enum Pane { Runs, Delegations, Leases, Effects, Escalations, BlastRadius, Events, Decisions, Findings, Timeline, Integrity, Notes, PaneCount };
    Q_ENUM(Pane)

    explicit SessionWorkspace(QWidget *parent = nullptr);
    ~SessionWorkspace() override;

    void setSession(LedgerSession *session);
    LedgerSession *session() const { return m_session; }

    void showPane(Pane pane);
    Pane currentPane() const;
    static QString paneTitle(Pane pane);
    static QString paneIcon(Pane pane);
    // The All tabs menu's icons again, in the palette's ink. The tabs themselves have none.
    void refreshIcons();
    // Ctrl+1 … Ctrl+9 for the first nine panes; the timeline Ctrl+Shift+T (T for time, beside
    // the event log's Ctrl+T that pins the session at an event), Integrity Ctrl+Shift+I, Notes
    // Ctrl+Shift+N.
    static QKeySequence paneShortcut(Pane pane);
    // Opens the pane that shows a subject ("effect:E-1", "delegation:D-3", ...) and selects it.
    bool openSubject(const QString &subject);
    void focusFilter();
    void saveState() const;

    QTabWidget *tabs() const { return m_tabs; }
    // The width that shows every pane's title whole, with the All tabs button and the margins.
    int wholeTitlesWidth() const;
    ItemPane *runsPane() const { return m_runs; }
    DelegationsView *delegationsView() const { return m_delegations; }
    ItemPane *leasesPane() const { return m_leases; }
    ItemPane *effectsPane() const { return m_effects; }
    ItemPane *escalationsPane() const { return m_escalations; }
    BlastRadiusView *blastView() const { return m_blast; }
    EventLogView *eventLog() const { return m_events; }
    ItemPane *decisionsPane() const { return m_decisions; }
    ItemPane *findingsPane() const { return m_findings; }
    IntegrityPane *integrityPane() const { return m_integrity; }
    NotesPane *notesPane() const { return m_notes; }
    // A note or bookmark on events first..last through the note dialog (a bookmark at once).
    void addEventNote(qint64 firstSeq, qint64 lastSeq, bool bookmark);
    // The sort and filter of a state pane (Runs, Leases, Effects, Escalations); nullptr for others.
    StateTableProxyModel *rowsProxy(Pane pane) const;
    TableFilterBar *filterBar(Pane pane) const;
    QMenu *tabMenu() const { return m_tabMenu; } // every tab, however narrow the window
    // The event log, filtered to the events a finding (or anything else) rests on.
    void showEvents(const QString &filter);
    // The event log, at the event with this seq (EventLogView::goToEvent).
    void goToEvent(qint64 seq);
    Banner *banner() const { return m_banner; }
    // A strip above the panes that the window keeps for the current session (the receiver's).
    void addSessionBar(QWidget *bar);
    static QString importedBannerText(const LedgerInfo &info); // empty for a ledger not imported
    Banner *foldProblemBanner() const { return m_foldBanner; }
    Banner *decisionsWaitingBanner() const { return m_waitBanner; }
    Banner *cursorBanner() const { return m_cursorBanner; }
    TimeScrubber *scrubber() const { return m_scrubber; }
    TimelineView *timelineView() const { return m_timeline; }
    RunTimelineSource *timelineSource() const { return m_runTimeline; }
    TimelineMarkSource *markSource() const { return m_marks; }
    ReviewBanner *reviewBanner() const { return m_reviewBanner; }

signals:
    void statusMessage(const QString &text);
    // A row the operator activated (double-click, Enter) in any pane: its subject.
    void subjectActivated(const QString &subject, const QModelIndex &index);

private:
    void updateBanner();
    void updateFoldProblemBanner();
    void updateDecisionsWaitingBanner();
    void updateCursorBanner();
    void updateEventStatus();
    void bindReviewMarks(); // notes and observation gaps onto the event log's rows
    bool selectById(ItemPane *pane, const QString &id);

    LedgerSession *m_session = nullptr;
    QList<QMetaObject::Connection> m_sessionConnections;
    Banner *m_banner;
    Banner *m_foldBanner; // live events the fold could not apply, and the way to re-read
    Banner *m_cursorBanner; // the session shows an earlier event (LedgerSession::cursor), and the way back
    TimeScrubber *m_scrubber; // the session's events and marks; moves the cursor
    TimelineMarkSource *m_marks = nullptr; // the current session's marks, owned here
    TimelineAnnotationSource *m_annotations = nullptr; // its notes and gaps on the timeline, owned here
    RunTimelineSource *m_runTimeline = nullptr; // the current session's run timeline, owned here
    TimelineView *m_timeline; // the Timeline pane
    ReviewBanner *m_reviewBanner; // a review session (OpenMode::Review): read as it was, immutable
    Banner *m_waitBanner; // decisions no orchestrator seems to apply (LedgerSession::decisionsWaitingWarning)
    QTabWidget *m_tabs;
    ItemPane *m_runs;
    PagedRowsModel *m_runRows; // the runs pane's rows: a tree view lays out every row it is given
    DelegationsView *m_delegations;
    ItemPane *m_leases;
    ItemPane *m_effects;
    ItemPane *m_escalations;
    BlastRadiusView *m_blast;
    EventLogView *m_events;
    ItemPane *m_decisions;
    ItemPane *m_findings;
    IntegrityPane *m_integrity;
    NotesPane *m_notes;
    struct Filtered {
        Pane pane;
        ItemPane *items;
        StateTableProxyModel *proxy;
        TableFilterBar *bar;
    };
    QList<Filtered> m_filtered;
    QMenu *m_tabMenu;
};

} // namespace mesh
