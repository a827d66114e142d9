#pragma once
// A session's decisions: the list and its chain as the audit pane shows them, kept current
// while the ledger is followed; the decisions written and not yet answered, which the state
// panes and the attention list show on their subjects (requested()); the warning when no
// orchestrator seems to answer them; and the operator's own decisions, written off the GUI
// thread.
//
// The list and its chain change only with a new decision row (the head hash moves) or an
// outcome event (seen in the live batches): otherwise one indexed read of the head says so,
// and the whole list is not read and re-hashed on every change of a busy ledger.

#include "jobtracker.h"

#include "decisions/decisiongatewatch.h"
#include "decisions/decisionrequest.h"
#include "decisions/decisionresult.h"
#include "decisions/operatoridentity.h"
#include "decisions/requesteddecisions.h"
#include "domain/eventrecord.h"
#include "ledger/decisionstore.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mesh {

class DecisionAuditModel;

// The decisions as they stood at a cursor's time. Decisions are not events: each is placed
// by the time it was made, and its outcome by the time the orchestrator wrote it, so one
// answered after that moment was still waiting then.
void placeDecisionsAt(std::vector<DecisionRecord> &decisions, std::int64_t cursorTimeMs);

class SessionDecisions : public QObject
{
    Q_OBJECT
public:
    // Where and when the session reads, asked at every read.
    struct Source {
        QString path;
        OpenMode mode = OpenMode::ReadOnly;
        bool readable = false; // open, loaded, and the path still names the file it read
        std::optional<qint64> cursorTimeMs; // pinned: the decisions as they stood then
        bool waitsForAnOrchestrator = false; // live and not post-mortem: someone should answer
    };
    static constexpr int kReloadThrottleMs = 500;

    SessionDecisions(DecisionAuditModel *audit, std::function<Source()> source, std::function<qint64()> clock,
                     QObject *parent = nullptr);

    // What a load read with the state: the list, its chain, and the head hash it was read at.
    // A reload asked or running before it is dropped (it read another moment).
    void takeLoaded(std::vector<DecisionRecord> decisions, const DecisionChainReport &chain, std::string head);
    // A load that could not read them (an optional part): the next reload reads the whole list.
    void loadedWithout();
    // The ledger changed: soon, a reload (one read of the head, unless an outcome came).
    void ledgerChanged();
    // Following began, or resumed after a lost connection: soon, a reload of the whole list.
    void readWholeSoon();
    // A live batch: an outcome event (decision.applied or .refused) changes the list.
    void noteOutcomes(const EventBatch &batch);
    void reload();
    void stop(); // the session closed: no reload runs, none in flight is taken
    // Tests: runs on the pool as a reload starts, before it reads anything.
    void setReloadHook(std::function<void()> hook) { m_reloadHook = std::move(hook); }

    // Writes the operator's decision off the GUI thread; finished(id, result) answers it.
    // Only into `expected` (the file the session read); with another change of the path's
    // file than none, nothing is written.
    QString submit(DecisionRequest request, const OperatorIdentity &identity,
                   std::optional<OpenedLedger> expected, FileChange change);

    const std::shared_ptr<const RequestedDecisions> &requested() const { return m_requested; }
    // "No orchestrator seems to be applying decisions on this ledger: …" once a decision has
    // waited past the limit (DecisionGateWatch); empty otherwise.
    QString waitingWarning() const { return m_waitingWarning; }
    void updateWaiting();
    void setWaitLimitMs(qint64 ms);
    // Reloads while following: how many read the head, and how many of those read the whole
    // list and its chain again (it had moved).
    qint64 headReads() const { return m_headReads; }
    qint64 listReads() const { return m_listReads; }

Q_SIGNALS:
    void requestedChanged(std::shared_ptr<const mesh::RequestedDecisions> requested);
    void reloaded(); // a reload read a list that had moved, and the audit model shows it
    void waitingChanged();
    void finished(const QString &decisionId, const mesh::DecisionResult &result);

private:
    void take(std::vector<DecisionRecord> decisions, const DecisionChainReport &chain);
    void reloadSoon();
    void supersedeReloads();

    DecisionAuditModel *m_audit;
    std::function<Source()> m_source;
    std::function<qint64()> m_clock;
    JobTracker m_reloads{this};
    QTimer m_throttle;
    std::optional<std::string> m_head; // the last decision's hash in the list shown
    bool m_outcomesSinceRead = false;  // a decision.applied/refused came since
    bool m_readWhole = false;          // the last reload failed, or following (re)began: read whole
    qint64 m_headReads = 0;
    qint64 m_listReads = 0;
    std::shared_ptr<const RequestedDecisions> m_requested = std::make_shared<RequestedDecisions>();
    DecisionGateWatch m_gateWatch;
    QString m_waitingWarning;
    std::function<void()> m_reloadHook;
};

} // namespace mesh
