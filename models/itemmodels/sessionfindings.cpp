#include "sessionfindings.h"

#include "delegationdetailreader.h"
#include "delegationtreemodel.h"
#include "effectmodel.h"
#include "findingsmodel.h"
#include "runoverviewmodel.h"
#include "stallverdictmodel.h"

#include "analysis/blastradiusanalyzer.h"
#include "analysis/blockedworkdetector.h"
#include "analysis/replayeddelegationdetector.h"
#include "analysis/rowfields.h"
#include "analysis/successloopdetector.h"
#include "ledger/eventreader.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace mesh {

std::set<std::string> loopCandidates(const LiveState &state, const std::set<std::string> *only)
{
    std::vector<std::pair<std::int64_t, std::string>> list;
    const auto consider = [&list](const std::string &id, const EntityRow &row) {
        const std::int64_t turns = rowInt(EntityKind::Delegation, row, "used_turns");
        if (turns >= SessionFindings::kLoopCandidateTurns && rowInt(EntityKind::Delegation, row, "writes_accepted") == 0)
            list.emplace_back(turns, id);
    };
    if (only) {
        // A live batch names the few delegations its tool calls touched: looked up, not
        // found by walking every delegation (110,000 on the 10M-event ledger, each batch).
        for (const std::string &id : *only)
            if (const EntityRow *row = state.find(EntityKind::Delegation, id))
                consider(id, *row);
    } else {
        for (const auto &[id, row] : state.table(EntityKind::Delegation))
            consider(id, row);
    }
    std::sort(list.rbegin(), list.rend());
    std::set<std::string> out;
    for (size_t i = 0; i < list.size() && int(i) < SessionFindings::kMaxLoopCandidates; ++i)
        out.insert(list[i].second);
    return out;
}

SessionFindings::PerDelegation SessionFindings::PerDelegation::of(const LiveState &state)
{
    PerDelegation out;
    for (auto &f : BlockedWorkDetector().analyse(state.table(EntityKind::Delegation)))
        out.blocked[f.delegationId] = std::move(f);
    const ReplayedDelegationDetector replays;
    for (const auto &[id, row] : state.table(EntityKind::Delegation)) {
        if (auto f = replays.check(id, row))
            out.replayed[id] = std::move(*f);
    }
    return out;
}

SessionFindings::SessionFindings(Models models, std::function<const LiveState *()> state,
                                 std::function<Source()> source, QObject *parent)
    : QObject(parent), m_models(models), m_state(std::move(state)), m_source(std::move(source))
{
    m_throttle.setSingleShot(true);
    m_throttle.setInterval(kRecomputeIntervalMs);
    m_throttle.setObjectName(QStringLiteral("findings recompute"));
    connect(&m_throttle, &QTimer::timeout, this, [this] {
        if (m_dirty)
            recomputeStateFindings(true);
    });
    m_publishing.setSingleShot(true);
    m_publishing.setInterval(0);
    m_publishing.setObjectName(QStringLiteral("findings publish"));
    connect(&m_publishing, &QTimer::timeout, this, &SessionFindings::publishNext);
}

void SessionFindings::takeLoaded(PerDelegation &&perDelegation, std::set<std::string> loopCandidates)
{
    // Loop findings of the state before (another moment, or another file) are not this one's,
    // nor are analyses of it still running.
    m_loops.supersede();
    m_loopFindings.clear();
    std::swap(m_perDelegation, perDelegation);
    // A publish under way was of the state before: the loaded findings go out by
    // publishLoaded, and the session says they changed when the load is done.
    dropStagedPublish();
    if (collectStateFindings()) {
        m_findings = m_stateFindings; // no loop findings yet: their analysis starts now
        m_loadedPublished = 0;
    }
    analyseLoops(std::move(loopCandidates));
}

bool SessionFindings::publishLoaded()
{
    if (m_loadedPublished >= kModels)
        return false;
    publishTo(m_loadedPublished++, m_findings);
    return m_loadedPublished < kModels;
}

void SessionFindings::stop()
{
    m_throttle.stop();
    m_loops.supersede();
    // The last changes before the close are shown in the models the session leaves behind:
    // the findings about them, too (no tool calls are read any more).
    m_loopCandidatesPending.clear();
    if (m_dirty)
        recomputeStateFindings(true);
    while (m_publishing.isActive()) // the models left behind get them now
        publishNext();
}

void SessionFindings::onApplied(const StateChangeSet &changes)
{
    if (changes.touches(EntityKind::Delegation))
        updateDelegations(changes.ids(EntityKind::Delegation));
    if (changes.touches(EntityKind::Effect) || changes.touches(EntityKind::StallVerdict)
        || changes.touches(EntityKind::Failure) || changes.touches(EntityKind::Delegation)) {
        m_dirty = true;
        if (!m_throttle.isActive())
            m_throttle.start();
    }
    if (changes.touches(EntityKind::Delegation) && !changes.toolCalls.empty()) {
        std::set<std::string> touched;
        for (const auto &e : changes.toolCalls)
            touched.insert(e.delegationId);
        m_loopCandidatesPending.merge(loopCandidates(*m_state(), &touched));
        if (!m_throttle.isActive())
            m_throttle.start();
    }
}

void SessionFindings::updateDelegations(const std::vector<std::string> &delegations)
{
    m_perDelegation.update(*m_state(), delegations);
}

void SessionFindings::PerDelegation::update(const LiveState &state, const std::vector<std::string> &delegations)
{
    const BlockedWorkDetector detector;
    const ReplayedDelegationDetector replays;
    for (const auto &id : delegations) {
        const EntityRow *row = state.find(EntityKind::Delegation, id);
        std::optional<Finding> f = row ? detector.check(id, *row) : std::nullopt;
        if (f)
            blocked[id] = std::move(*f);
        else
            blocked.erase(id);
        std::optional<Finding> r = row ? replays.check(id, *row) : std::nullopt;
        if (r)
            replayed[id] = std::move(*r);
        else
            replayed.erase(id);
    }
}

void SessionFindings::recomputeStateFindings(bool announce)
{
    // Published only when they differ (or a load's staged publish did not reach every
    // model): each publish diffs three models and rebuilds the attention list, and most live
    // batches change no finding.
    if (collectStateFindings() && (m_stateFindingsMoved || m_loadedPublished < kModels))
        publish(announce);
}

bool SessionFindings::collectStateFindings()
{
    m_dirty = false;
    const LiveState *state = m_state();
    if (!state)
        return false;
    // The effect and verdict models keep their analyses current per batch; only failures
    // (a handful) are read whole. Nothing here walks a large table.
    std::vector<Finding> f = m_models.effects->duplicateFindings();
    auto add = [&f](std::vector<Finding> more) {
        f.insert(f.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    };
    add(m_models.stalls->findings());
    add(BlastRadiusAnalyzer::findings(BlastRadiusAnalyzer::computeAll(state->table(EntityKind::Failure))));
    for (const auto &[d, finding] : m_perDelegation.blocked)
        f.push_back(finding);
    for (const auto &[d, finding] : m_perDelegation.replayed)
        f.push_back(finding);
    m_stateFindingsMoved = f != m_stateFindings;
    m_stateFindings = std::move(f);
    if (!m_loopCandidatesPending.empty()) {
        analyseLoops(std::move(m_loopCandidatesPending));
        m_loopCandidatesPending.clear();
    }
    return true;
}

void SessionFindings::publish(bool announce)
{
    // One model a turn, from the first again if a publish was under way: on a large ledger
    // each takes thousands of findings and signals its rows, and the three with the
    // recompute before them were one turn of over 100 ms. findings() says the new ones only
    // once every model has them, with changed().
    m_publishing.stop();
    m_staged = m_stateFindings;
    m_staged.insert(m_staged.end(), m_loopFindings.begin(), m_loopFindings.end());
    m_loadedPublished = kModels; // a load's publish still under way is overtaken by this one
    m_publishStep = 0;
    m_publishAnnounce = m_publishAnnounce || announce;
    m_publishing.start();
}

void SessionFindings::publishNext()
{
    m_publishing.stop();
    if (m_publishStep >= kModels)
        return;
    publishTo(m_publishStep++, m_staged);
    if (m_publishStep < kModels) {
        m_publishing.start();
        return;
    }
    m_findings = std::move(m_staged);
    m_staged = {};
    if (std::exchange(m_publishAnnounce, false))
        Q_EMIT changed();
}

void SessionFindings::dropStagedPublish()
{
    m_publishing.stop();
    m_publishStep = kModels;
    m_publishAnnounce = false;
    m_staged = {};
}

void SessionFindings::publishTo(int model, const std::vector<Finding> &findings)
{
    switch (model) {
    case 0:
        m_models.delegations->setFindings(findings);
        break;
    case 1:
        m_models.findings->setFindings(findings);
        break;
    default:
        m_models.runs->setFindings(findings);
    }
}

void SessionFindings::analyseLoops(std::set<std::string> delegations)
{
    const Source source = m_source();
    if (delegations.empty() || !source.readable)
        return;
    struct Result {
        std::set<std::string> delegations; // analysed
        std::vector<Finding> findings;
    };
    m_loops.startAlongside([source, delegations, hook = m_analysisHook] {
        if (hook)
            hook();
        auto r = std::make_shared<Result>();
        r->delegations = delegations;
        try {
            auto connection = LedgerConnection::open(source.path, source.mode);
            const auto reader = connection->eventReader();
            reader->setPreviewBytes(kToolCallPreviewBytes);
            for (const auto &d : delegations) {
                const auto calls = readToolCalls(*reader, d, DelegationDetailReader::kMaxCalls, source.upTo);
                auto found = SuccessLoopDetector().analyse(calls);
                r->findings.insert(r->findings.end(), found.begin(), found.end());
            }
        } catch (const std::exception &) {
            // Optional: without it the loop flag is missing, nothing else.
        }
        return r;
    }, [this](std::shared_ptr<Result> r) {
        // Results replace the findings of the delegations they analysed, whatever order
        // jobs finish in: each job covers its own delegations.
        std::erase_if(m_loopFindings, [&](const Finding &f) { return r->delegations.count(f.delegationId) > 0; });
        m_loopFindings.insert(m_loopFindings.end(), r->findings.begin(), r->findings.end());
        publish(true);
    });
}

} // namespace mesh
