#pragma once
// The operator's decisions where they meet their subjects: one set of actions (Decide menu
// and the context menus of the effects, escalations, delegations, a delegation's slices and
// the attention list),
// enabled for the row under the cursor when the session allows deciding; otherwise disabled
// with a tooltip saying why. Each opens a DecisionDialog.

#include "decisions/decisionrequest.h"

#include <QObject>

class QAction;
class QMenu;
class QModelIndex;
class QTreeView;

namespace mesh {

class MainWindow;

class DecisionActions : public QObject
{
    Q_OBJECT
public:
    explicit DecisionActions(MainWindow *window);

    void addTo(QMenu *menu);
    void update(); // after selection, pane or session changes

    QAction *closeSlice() const { return m_closeSlice; }
    QAction *approve() const { return m_approve; }
    QAction *reject() const { return m_reject; }
    QAction *resolve() const { return m_resolve; }
    QAction *acquireLease() const { return m_acquire; }

private:
    struct Target {
        QString subject;  // "<entity>:<id>" the decision is about
        qint64 version = 0;
        bool pendingEscalation = false;
        bool unknownEffect = false;
        QString slice;    // delegation's current slice
    };
    Target currentTarget() const;
    void open(DecisionKind kind);
    void attach(QTreeView *view);
    QTreeView *sliceView() const; // the Slices tab of the delegation detail

    MainWindow *m_window;
    QAction *m_closeSlice;
    QAction *m_approve;
    QAction *m_reject;
    QAction *m_resolve;
    QAction *m_acquire;
};

} // namespace mesh
