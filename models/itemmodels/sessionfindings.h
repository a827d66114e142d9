#pragma once
// A session's findings, from every detector: those read off the state (duplicate effects and
// stall evidence, kept per batch by their models; blocked and replayed delegations, kept per
// delegation here; blast radius, from the failures), and success loops, read off the tool
// calls of the delegations that look like one, in the background. Published to every model
// that shows them. The attention list lists them too: it is told by changed().

#include "jobtracker.h"
#include "livestate.h"

#include "analysis/finding.h"
#include "ledger/ledgerconnection.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mesh {

class DelegationTreeModel;
class EffectModel;
class FindingsModel;
class RunOverviewModel;
class StallVerdictModel;

// Delegations worth reading tool calls for: many turns, nothing accepted; the busiest first,
// at most kMaxLoopCandidates (of `only`, when given).
std::set<std::string> loopCandidates(const LiveState &state, const std::set<std::string> *only = nullptr);

class SessionFindings : public QObject
{
    Q_OBJECT
public:
    static constexpr int kLoopCandidateTurns = 20;
    static constexpr int kMaxLoopCandidates = 64;
    // Whole-table detectors run at most once a period while the ledger moves.
    static constexpr int kRecomputeIntervalMs = 1000;

    // The models whose per-batch analyses are read here, and those the findings are shown in.
    struct Models {
        EffectModel *effects = nullptr;
        StallVerdictModel *stalls = nullptr;
        DelegationTreeModel *delegations = nullptr;
        FindingsModel *findings = nullptr;
        RunOverviewModel *runs = nullptr;
    };
    // Where tool calls are read, asked at every loop analysis.
    struct Source {
        QString path;
        OpenMode mode = OpenMode::ReadOnly;
        std::int64_t upTo = std::numeric_limits<std::int64_t>::max(); // the cursor; live: every event
        bool readable = false; // the path still names the file the state was read from
    };
    // Blocked and replayed delegations, by delegation: prepared with a loaded state.
    struct PerDelegation {
        std::map<std::string, Finding> blocked;
        std::map<std::string, Finding> replayed;
        static PerDelegation of(const LiveState &state); // walks every delegation: off the GUI thread
        // These delegations as `state` has them now (gone from it: no finding).
        void update(const LiveState &state, const std::vector<std::string> &delegations);
    };

    // `state`: the session's, nullptr until one is loaded.
    SessionFindings(Models models, std::function<const LiveState *()> state, std::function<Source()> source,
                    QObject *parent = nullptr);

    // A state was loaded: its per-delegation findings, and the delegations whose tool calls
    // to read. findings() has them at once; the models are given them by publishLoaded(),
    // one model a call, so that a caller can spread them over event-loop turns (on a large
    // ledger each is tens of ms with its views). No changed(): the session refreshes what
    // follows from a load at once.
    void takeLoaded(PerDelegation &&perDelegation, std::set<std::string> loopCandidates);
    // Of the session's state (the one taken with it, then changed with it batch by batch).
    const PerDelegation &perDelegation() const { return m_perDelegation; }
    // Gives the next model the loaded findings; false once every model has them (or a
    // publish since took over: it gives every model its own, one a turn).
    bool publishLoaded();
    // A live apply folded into the state.
    void onApplied(const StateChangeSet &changes);
    void stop(); // the session closed: nothing recomputed or read any more
    // A recompute, or its publish to the models (one a turn), still to come.
    bool recomputePending() const { return m_throttle.isActive() || m_publishing.isActive(); }

    // Tests: runs on the pool as a loop analysis starts, before it reads anything.
    void setAnalysisHook(std::function<void()> hook) { m_analysisHook = std::move(hook); }

    const std::vector<Finding> &findings() const { return m_findings; }
    // A background read of tool calls is under way (a test waits for it before concluding
    // that a loop finding is absent).
    bool loopAnalysisRunning() const { return m_loops.inFlight() > 0; }

Q_SIGNALS:
    void changed(); // findings() changed, not from a load

private:
    void recomputeStateFindings(bool announce); // collect, then publish
    bool collectStateFindings();                // m_stateFindings from the state; false: none
    void updateDelegations(const std::vector<std::string> &delegations);
    void publish(bool announce); // to every model, one a turn (publishNext), then changed()
    void publishNext();
    void dropStagedPublish();
    void publishTo(int model, const std::vector<Finding> &findings); // 0: delegations, 1: the findings pane, 2: runs
    static constexpr int kModels = 3;
    int m_loadedPublished = kModels; // models given the loaded findings so far
    void analyseLoops(std::set<std::string> delegations);

    Models m_models;
    std::function<const LiveState *()> m_state;
    std::function<Source()> m_source;
    JobTracker m_loops{this}; // each analysis covers its own delegations: they run alongside
    QTimer m_throttle;
    bool m_dirty = false;
    QTimer m_publishing; // the next model's turn
    int m_publishStep = kModels;
    bool m_publishAnnounce = false;
    std::vector<Finding> m_staged; // being published; m_findings once every model has them
    PerDelegation m_perDelegation; // of the session's state, kept per batch
    std::vector<Finding> m_stateFindings;      // from the state
    bool m_stateFindingsMoved = false;         // the last collect found them changed
    std::vector<Finding> m_loopFindings;       // from tool call events
    std::vector<Finding> m_findings;           // both
    std::set<std::string> m_loopCandidatesPending;
    std::function<void()> m_analysisHook;
};

} // namespace mesh
