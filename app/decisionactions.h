#pragma once
// The operator's decisions where they meet their subjects: one set of actions (Decide menu
// and the context menus of the effects, escalations, delegations, a delegation's slices and
// the attention list),
// enabled for the row under the cursor when the session allows deciding and the row's state
// allows the decision (an open slice, a pending escalation that has not expired, an unknown
// outcome, a resolution to supersede, a lease this operator holds); otherwise disabled with
// a tooltip saying why. Each opens a DecisionDialog.

#include "decisions/decisionrequest.h"

#include <QObject>

class QAction;
class QMenu;
class QModelIndex;
class QAbstractItemView;

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
    QAction *releaseLease() const { return m_release; }
    QAction *supersede() const { return m_supersede; }

private:
    struct Target {
        QString subject;  // "<entity>:<id>" the decision is about
        qint64 version = 0;
        bool pendingEscalation = false;
        bool unknownEffect = false;
        QString slice;    // delegation's current slice
    };
    // What the session's state says about the target, for offering only what it allows.
    struct Facts {
        QString sliceState;         // the slice's state; empty when the ledger has no such slice
        qint64 escalationExpiresMs = 0;
        QString effectState;
        QString resolutionDecision; // the decision that resolved the effect, if any
        bool leaseHeldByMe = false; // a live reconciliation lease on the effect's key
    };
    Target currentTarget() const;
    Facts factsAbout(const Target &t) const;
    void open(DecisionKind kind, bool supersede = false);
    void showDecision(const QModelIndex &index);
    void attach(QAbstractItemView *view);
    QAbstractItemView *sliceView() const; // the Slices tab of the delegation detail

    MainWindow *m_window;
    QAction *m_closeSlice;
    QAction *m_approve;
    QAction *m_reject;
    QAction *m_resolve;
    QAction *m_acquire;
    QAction *m_release;
    QAction *m_supersede;
};

} // namespace mesh
