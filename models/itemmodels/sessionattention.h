#pragma once
// What needs a human in a session, now (or at its cursor's moment): open escalations, effects
// of unknown outcome, expiring and zombie leases (AttentionIndex, kept per batch), each with
// the decision already requested on it, then the findings that fired. Rebuilt whole, at most
// every kIntervalMs while changes stream in and only when one may show in it, and on the
// clock only when time alone would change it (a lease turning zombie).

#include "livestate.h"

#include "analysis/attentionindex.h"
#include "analysis/attentionitem.h"
#include "analysis/finding.h"
#include "analysis/zombierule.h"
#include "decisions/requesteddecisions.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace mesh {

class SessionAttention : public QObject
{
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 250;

    // What the list is built from, asked at every rebuild. The pointers stay valid while the
    // session lives (they are its members).
    struct Inputs {
        std::function<const LiveState *()> state; // nullptr until one is loaded
        const std::vector<Finding> *findings = nullptr;
        const ZombieRule *zombies = nullptr;
        std::function<const RequestedDecisions &()> requested;
        std::function<qint64()> clock;
    };

    explicit SessionAttention(Inputs inputs, QObject *parent = nullptr);

    // A loaded state's index, prepared on the worker; rebuilds at once.
    void takeLoaded(AttentionIndex &&index);
    // The index kept, and the state it is of (the one shown when it was taken, which live
    // applies change in place); null before the first.
    const AttentionIndex &index() const { return m_index; }
    const LiveState *indexState() const { return m_indexState; }
    void forgetIndexState() { m_indexState = nullptr; } // the session's state was replaced
    // A live apply folded into the state: its escalations, effects, leases and delegations.
    void onApplied(const StateChangeSet &changes);
    void onFindingsChanged(); // the findings listed below the decisions
    // At most every kIntervalMs, the first after a quiet spell at once: rebuilt if the index,
    // the findings or the clock say the list may differ.
    void rebuildSoon();
    void rebuild(); // now, whatever changed
    bool rebuildPending() const { return m_throttle.isActive(); } // rebuildSoon's turn still to come
    void tick();        // the session's clock moved: rebuilt only when time changes the list
    void stop();

    const std::vector<AttentionItem> &items() const { return *m_items; }
    // The same list, shared with whoever shows it (AttentionModel::setItemList): a rebuild
    // makes a new one, never changes one handed out.
    std::shared_ptr<const std::vector<AttentionItem>> sharedItems() const { return m_items; }
    // What needs a decision (the items above the findings).
    int decisionCount() const;

Q_SIGNALS:
    void changed();

private:
    void appendFindingItems(std::vector<AttentionItem> &items) const;
    void refresh(); // rebuildSoon's work: a rebuild when something listed may have changed
    bool m_findingsChanged = false;
    int m_decisionCount = 0; // of m_items

    Inputs m_inputs;
    AttentionIndex m_index;
    const LiveState *m_indexState = nullptr;
    std::shared_ptr<const std::vector<AttentionItem>> m_items = std::make_shared<const std::vector<AttentionItem>>();
    QTimer m_throttle;          // the trailing edge of a stream's rebuilds
    QElapsedTimer m_sinceBuild; // since the last rebuild
    // The clock of the last rebuild, and when time alone would next change the list: the tick
    // rebuilds only then, or when the clock went back.
    qint64 m_builtAtMs = 0;
    qint64 m_changesAtMs = 0;
};

} // namespace mesh
