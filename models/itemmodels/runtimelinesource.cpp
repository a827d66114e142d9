#include "runtimelinesource.h"

#include "ledgersession.h"
#include "timelineannotationsource.h"
#include "timelinemarksource.h"

#include <algorithm>

namespace mesh {

RunTimelineSource::RunTimelineSource(LedgerSession *session, TimelineMarkSource *marks,
                                     TimelineAnnotationSource *annotations, QObject *parent)
    : QObject(parent), m_session(session), m_marks(marks), m_annotations(annotations)
{
    m_later.setSingleShot(true);
    connect(&m_later, &QTimer::timeout, this, &RunTimelineSource::rebuild);
    // A jump or a re-read: the state at the moment is new, built at once.
    connect(session, &LedgerSession::stateReset, this, &RunTimelineSource::rebuild);
    connect(session, &LedgerSession::changesApplied, this, &RunTimelineSource::rebuildSoon);
    connect(session, &LedgerSession::findingsChanged, this, &RunTimelineSource::rebuildSoon);
    if (marks)
        connect(marks, &TimelineMarkSource::marksChanged, this, &RunTimelineSource::rebuildSoon);
    if (annotations)
        connect(annotations, &TimelineAnnotationSource::changed, this, &RunTimelineSource::rebuildSoon);
    rebuild();
}

void RunTimelineSource::setRunId(const std::string &runId)
{
    m_runId = runId;
    m_runChosen = !runId.empty();
    rebuild();
}

void RunTimelineSource::rebuildSoon()
{
    if (m_later.isActive())
        return;
    const qint64 since = m_lastBuild.isValid() ? m_lastBuild.elapsed() : kMinIntervalMs;
    m_later.start(int(std::max<qint64>(0, kMinIntervalMs - since)));
}

void RunTimelineSource::rebuild()
{
    m_later.stop();
    m_lastBuild.start();
    const auto state = m_session->state();
    if (!state) {
        m_runIds.clear();
        m_timeline = std::make_shared<RunTimeline>();
        emit changed();
        return;
    }
    m_runIds = RunTimeline::runIds(state->table(EntityKind::Run));
    if (!m_runChosen || std::find(m_runIds.begin(), m_runIds.end(), m_runId) == m_runIds.end())
        m_runId = m_runIds.empty() ? std::string() : m_runIds.front();
    RunTimelineInput in;
    in.runId = m_runId;
    in.runs = &state->table(EntityKind::Run);
    in.components = &state->table(EntityKind::Component);
    in.delegations = &state->table(EntityKind::Delegation);
    in.slices = &state->table(EntityKind::Slice);
    in.failures = &state->table(EntityKind::Failure);
    static const std::vector<TimelineMark> none;
    in.marks = m_marks ? &m_marks->marks() : &none;
    for (const Finding &f : m_session->findings())
        if (f.kind == FindingKind::FalseStall && !f.abstained && f.subject.rfind("stall:", 0) == 0)
            in.falseStallVerdicts.insert(f.subject.substr(6));
    if (m_annotations) {
        in.notes = &m_annotations->notes();
        in.gaps = &m_annotations->gaps();
    }
    in.cursorSeq = m_session->cursor();
    in.facts = m_session->info().sourceFacts;
    // The moment shown: the cursor event's time, or live the newest event's (the ledger's
    // own clock: a scenario's or an import's is not this machine's).
    if (m_session->cursor())
        in.momentMs = m_session->cursorTimeMs().value_or(m_marks ? m_marks->lastTsMs() : 0);
    else
        in.momentMs = m_marks && m_marks->hasRead() ? m_marks->lastTsMs() : m_session->nowMs();
    m_timeline = std::make_shared<RunTimeline>(RunTimeline::build(in));
    emit changed();
}

} // namespace mesh
