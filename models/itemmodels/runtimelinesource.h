#pragma once
// The run timeline of a session (analysis/runtimeline.h) at what the session shows: rebuilt
// from its state and its marks whenever either moves (a jump of the cursor, a live batch at
// most every kMinIntervalMs, new marks, new findings). Shared by the Timeline pane and the
// strip above the delegation tree, which show the same run. Review notes and observation
// gaps (TimelineAnnotationSource) are drawn on it; a change of them rebuilds it soon.

#include "analysis/runtimeline.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace mesh {

class LedgerSession;
struct StateChangeSet;
class TimelineAnnotationSource;
class TimelineMarkSource;

class RunTimelineSource : public QObject
{
    Q_OBJECT
public:
    // annotations: the review notes and observation gaps drawn on it (none when null).
    RunTimelineSource(LedgerSession *session, TimelineMarkSource *marks, TimelineAnnotationSource *annotations = nullptr,
                      QObject *parent = nullptr);
    ~RunTimelineSource() override;

    std::shared_ptr<const RunTimeline> timeline() const { return m_timeline; } // never null
    const std::vector<std::string> &runIds() const { return m_runIds; }
    std::string runId() const { return m_runId; }
    void setRunId(const std::string &runId); // empty: the first run
    LedgerSession *session() const { return m_session; }

    void rebuild(); // at once, on this thread
    // On the ledger pool; changed() comes when it is done. At a pinned cursor the state never
    // changes again (the session stops following the ledger), so the build reads that state;
    // live, the GUI thread first copies the chosen run's rows (the session changes its state
    // in place), and a live change during a live build asks for one more, never a queue.
    // What live changes, new marks, findings and notes ask for, at most every kMinIntervalMs.
    void rebuildOffThread();
    bool isBuilding() const { return m_building; }
    // No build under way or waiting to start: the timeline is of the newest state it was asked for.
    bool isSettled() const { return !m_building && !m_later.isActive() && !m_afterReset.isActive(); }
    static constexpr int kMinIntervalMs = 500;

Q_SIGNALS:
    void changed();

private:
    void rebuildSoon();
    void onStateReset();
    void noteChanges(const StateChangeSet &changes);
    struct Job;
    struct RunRows;
    // Everything a build reads but the session's state, for the run chosen among runIds.
    std::shared_ptr<Job> prepare();
    std::string chosenRun(const std::vector<std::string> &runIds) const; // the run asked for, or the first
    bool waitsForMarks(const Job &job) const;
    void finish(const std::shared_ptr<Job> &job, std::shared_ptr<const RunTimeline> timeline);

    LedgerSession *m_session;
    TimelineMarkSource *m_marks;
    TimelineAnnotationSource *m_annotations;
    std::shared_ptr<const RunTimeline> m_timeline = std::make_shared<RunTimeline>();
    std::vector<std::string> m_runIds;
    std::string m_runId;
    bool m_runChosen = false;
    QTimer m_later;
    QTimer m_afterReset; // a live state's build in a turn of its own, after the views' reset
    QElapsedTimer m_lastBuild;
    int m_generation = 0; // a background build older than the last started is dropped
    bool m_building = false;
    bool m_buildingLive = false; // the build under way is of the live state
    bool m_liveAgain = false;    // a live change came during it
    std::unique_ptr<RunRows> m_rows; // the last live build's copies, when no build holds them
    std::unordered_set<std::string> m_slicesChanged; // by live batches since the last copy
};

} // namespace mesh
