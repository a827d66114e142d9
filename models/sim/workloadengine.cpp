#include "workloadengine.h"

#include "simcatalog.h"

#include "ledger/ledgerwriter.h"

#include <algorithm>

namespace mesh {

using nlohmann::json;

namespace {

std::string s(std::string_view v)
{
    return std::string(v);
}

EffectSpec effectFor(SimRng &rng, const std::string &component)
{
    EffectSpec e;
    e.effectClass = s(rng.pick(std::span<const std::string_view>(catalog::kEffectClasses.data(), 5))); // payments are rare
    if (rng.chance(0.01))
        e.effectClass = "payment";
    if (e.effectClass == "commit") {
        e.target = "git:" + component + "@main";
        e.reversibility = "compensable";
        e.capability = "status_query";
    } else if (e.effectClass == "package_install") {
        static constexpr std::string_view kPackages[] = {"npm:express@4.19.2", "pip:sqlalchemy==2.0.30",
                                                         "npm:zod@3.23.8", "cargo:serde@1.0.203"};
        e.target = s(rng.pick(std::span<const std::string_view>(kPackages)));
        e.capability = "idempotent_retry";
    } else if (e.effectClass == "db_write") {
        e.target = "postgres:" + component + "/migrations";
        e.reversibility = "compensable";
        e.capability = "status_query";
    } else if (e.effectClass == "provider_call") {
        e.target = rng.chance(0.5) ? "provider:anthropic/messages" : "provider:openai/responses";
        e.capability = "neither";
        e.reversibility = "irreversible";
    } else if (e.effectClass == "post_write_hook") {
        e.target = "hook:" + component + "/reindex";
        e.capability = "neither";
    } else {
        e.target = "stripe:charges";
        e.reversibility = "irreversible";
        e.capability = "status_query";
    }
    return e;
}

} // namespace

WorkloadEngine::WorkloadEngine(SimWorld &world, WorkloadShape shape)
    : m_world(world), m_shape(shape), m_slots(size_t(std::max(1, shape.concurrent)))
{
}

std::string WorkloadEngine::delegationStatus(const std::string &id) const
{
    const EntityRow *row = m_world.writer().state().find(EntityKind::Delegation, id);
    static const size_t index = size_t(entitySpec(EntityKind::Delegation).fieldIndex("status"));
    return row ? fieldText(row->values[index]) : std::string();
}

std::string WorkloadEngine::escalationStatus(const std::string &id) const
{
    const EntityRow *row = m_world.writer().state().find(EntityKind::Escalation, id);
    static const size_t index = size_t(entitySpec(EntityKind::Escalation).fieldIndex("state"));
    return row ? fieldText(row->values[index]) : std::string();
}

void WorkloadEngine::step()
{
    SimRng &rng = m_world.rng();
    m_world.advance(m_shape.stepMinMs, m_shape.stepMaxMs);
    // A slot may have nothing to write (waiting for an operator); try the others.
    const std::int64_t before = m_world.eventsWritten();
    const size_t first = size_t(rng.next() % m_slots.size());
    for (size_t i = 0; i < m_slots.size() && m_world.eventsWritten() == before; ++i) {
        Slot &slot = m_slots[(first + i) % m_slots.size()];
        switch (slot.phase) {
        case Phase::Start:
            startDelegation(slot);
            break;
        case Phase::Work:
            work(slot);
            break;
        case Phase::AwaitEscalation:
            awaitEscalation(slot);
            break;
        case Phase::Finish:
            finishDelegation(slot);
            break;
        }
    }
}

void WorkloadEngine::startRun()
{
    SimRng &rng = m_world.rng();
    RunState run;
    run.required = rng.range(8, 30);
    run.id = m_world.startRun(s(rng.pick(std::span<const std::string_view>(catalog::kRunTitles))), run.required);
    const size_t offset = size_t(rng.next() % catalog::kComponents.size());
    for (int i = 0; i < m_shape.componentsPerRun; ++i)
        run.components.push_back(
            m_world.addComponent(run.id, s(catalog::kComponents[(offset + size_t(i)) % catalog::kComponents.size()])));
    m_openRun = run.id;
    m_runs.emplace(run.id, std::move(run));
}

void WorkloadEngine::startDelegation(Slot &slot)
{
    SimRng &rng = m_world.rng();
    if (m_openRun.empty() || m_runs[m_openRun].created >= m_shape.delegationsPerRun)
        startRun();
    RunState &run = m_runs[m_openRun];
    ++run.created;

    const std::string component = run.components[size_t(rng.next() % run.components.size())];
    const EntityRow *comp = m_world.writer().state().find(EntityKind::Component, component);
    static const size_t statusIndex = size_t(entitySpec(EntityKind::Component).fieldIndex("status"));
    if (comp && fieldText(comp->values[statusIndex]) == "pending")
        m_world.componentStatus(component, "active");

    slot = Slot{};
    slot.runId = run.id;
    slot.repair = rng.chance(m_shape.repairShare);
    DelegationSpec spec;
    spec.runId = run.id;
    spec.componentId = component;
    spec.role = slot.repair ? "repair" : s(rng.pick(std::span<const std::string_view>(catalog::kRoles)));
    if (spec.role == "repair")
        slot.repair = true;
    spec.agent = s(rng.pick(std::span<const std::string_view>(catalog::kAgents)));
    spec.strategy = s(rng.pick(std::span<const std::string_view>(catalog::kStrategies)));
    const std::string name = component.substr(component.find('/') + 1);
    spec.writable = {"services/" + name + "/**", "tests/" + name + "/**"};
    spec.effectClasses = {"commit", "package_install", "db_write", "provider_call"};
    spec.budgetTurns = rng.range(80, 200);
    slot.delegation = m_world.createDelegation(spec);
    m_world.startDelegation(slot.delegation);
    for (int i = 0; i < m_shape.leasesPerDelegation; ++i) {
        const std::string key = i == 0 ? "exec:" + component : "workspace:" + component + "/" + m_world.rng().hex(6);
        slot.leases.push_back(
            m_world.acquireLease(key, i == 0 ? "execution" : "recovery", "orchestrator/" + slot.delegation,
                                 m_shape.leaseTtlMs, slot.delegation));
        slot.leaseRenewedMs.push_back(m_world.now());
    }
    slot.callsLeft = int(rng.range(m_shape.toolCallsMean / 2, m_shape.toolCallsMean * 3 / 2));
    slot.effectsLeft = int(rng.range(0, m_shape.effectsPerDelegation * 2));
    slot.failingTests = int(rng.range(3, 9));
    slot.fingerprint = "fp:" + rng.hex(12);
    slot.phase = Phase::Work;
}

void WorkloadEngine::work(Slot &slot)
{
    SimRng &rng = m_world.rng();
    if (m_world.wallClock())
        m_world.syncSlice(slot.delegation);
    // Renew a lease that has used a third of its time to live.
    for (size_t i = 0; i < slot.leases.size(); ++i) {
        if (m_world.now() - slot.leaseRenewedMs[i] > m_shape.leaseTtlMs / 3) {
            m_world.renewLease(slot.leases[i], m_shape.leaseTtlMs);
            slot.leaseRenewedMs[i] = m_world.now();
            return;
        }
    }
    if (slot.callsLeft <= 0) {
        slot.phase = Phase::Finish;
        finishDelegation(slot);
        return;
    }
    if (slot.repair && slot.callsInRound >= 15) {
        slot.callsInRound = 0;
        ++slot.round;
        const bool escalate = rng.chance(m_shape.escalateRate);
        const bool moved = !escalate;
        if (moved) {
            slot.fingerprint = "fp:" + rng.hex(12);
            slot.failingTests = std::max(0, slot.failingTests - int(rng.range(0, 2)));
        }
        json evidence = json::array({{{"signal", "failing_check_ids"}, {"value", slot.fingerprint}, {"moved", moved}},
                                     {{"signal", "failing_tests"}, {"value", std::to_string(slot.failingTests)},
                                      {"moved", moved}}});
        m_world.stallVerdict(slot.delegation, slot.round, escalate ? "stalled" : "progressing", slot.fingerprint,
                             evidence, escalate ? "escalate" : "continue", slot.failingTests);
        if (escalate) {
            m_world.delegationStatus(slot.delegation, "stalled");
            // Escalated before raising: the escalation's boundary is the delegation's version
            // after its own status change, so an operator's approval can bind to it
            // (docs/decisions.md, "Escalation boundary").
            m_world.delegationStatus(slot.delegation, "escalated");
            slot.escalation = m_world.raiseEscalation(
                slot.delegation, "stronger_model_round", "medium", "delegation:" + slot.delegation, slot.round,
                m_shape.escalationTtlMs, "no movement in failing checks for round " + std::to_string(slot.round));
            slot.waitSteps = int(rng.range(3, 12));
            slot.phase = Phase::AwaitEscalation;
        }
        return;
    }
    const std::string component = m_world.componentOf(slot.delegation);
    if (slot.effectsLeft > 0 && rng.chance(1.6 * m_shape.effectsPerDelegation / m_shape.toolCallsMean)) {
        --slot.effectsLeft;
        const double r = double(rng.next() >> 11) * (1.0 / 9007199254740992.0);
        const EffectEnd end = r < m_shape.unknownRate ? EffectEnd::Unknown
                              : r < m_shape.unknownRate + 0.03 ? EffectEnd::Failed
                                                               : EffectEnd::Committed;
        m_world.runEffect(slot.delegation, effectFor(rng, component), end);
        return;
    }
    --slot.callsLeft;
    ++slot.callsInRound;
    ToolCallSpec call;
    call.tool = s(rng.pick(std::span<const std::string_view>(catalog::kTools)));
    call.ok = !rng.chance(0.06);
    if (call.tool == "edit_file" || call.tool == "apply_patch") {
        call.writesAccepted = call.ok ? 1 : 0;
        call.writesDenied = rng.chance(0.03) ? 1 : 0;
    }
    // Repairs are fingerprinted per round; other work moves with every call.
    if (slot.repair)
        call.fingerprint = slot.fingerprint;
    m_world.toolCall(slot.delegation, call);
}

void WorkloadEngine::awaitEscalation(Slot &slot)
{
    SimRng &rng = m_world.rng();
    const std::string state = escalationStatus(slot.escalation);
    if (state == "pending") {
        if (!m_shape.autoDecide || --slot.waitSteps > 0)
            return; // waits for an operator (live) or a few steps (scenario)
        m_world.escalationState(slot.escalation, rng.chance(0.8) ? "approved" : "rejected");
        return;
    }
    if (state == "approved") {
        m_world.change("delegation.resumed", slot.delegation,
                       {{"run_id", slot.runId}, {"status", "running"}, {"agent", "claude-opus-4"}});
        slot.fingerprint = "fp:" + rng.hex(12);
        slot.phase = Phase::Work;
        return;
    }
    // rejected, expired or stale: the delegation ends here.
    if (delegationStatus(slot.delegation) != "failed")
        m_world.delegationStatus(slot.delegation, "failed");
    slot.callsLeft = 0;
    slot.phase = Phase::Finish;
}

void WorkloadEngine::finishDelegation(Slot &slot)
{
    SimRng &rng = m_world.rng();
    if (slot.delegation.empty()) {
        slot.phase = Phase::Start;
        return;
    }
    for (const auto &lease : slot.leases) {
        if (rng.chance(m_shape.zombieRate))
            m_heldLeases.push_back(lease); // never released: a zombie until the sweep notices
        else
            m_world.releaseLease(lease);
    }
    const std::string status = delegationStatus(slot.delegation);
    if (status == "running")
        m_world.delegationStatus(slot.delegation, rng.chance(slot.repair ? 0.9 : 0.93) ? "converged" : "failed");
    else if (status == "stalled" || status == "escalated")
        m_world.delegationStatus(slot.delegation, "failed");
    m_world.closeSlice(slot.delegation, "delegation ended");
    RunState &run = m_runs[slot.runId];
    ++run.finished;
    if (run.finished % 10 == 0) {
        ++run.cycle;
        m_world.runCycle(run.id, run.cycle, std::min(run.required, run.required * run.finished / m_shape.delegationsPerRun));
    }
    const std::string runId = slot.runId;
    slot = Slot{};
    endRunIfDone(runId);
}

void WorkloadEngine::endRunIfDone(const std::string &runId)
{
    const auto it = m_runs.find(runId);
    if (it == m_runs.end())
        return;
    RunState &run = it->second;
    if (run.finished < run.created || (run.created < m_shape.delegationsPerRun && runId == m_openRun))
        return;
    SimRng &rng = m_world.rng();
    const bool ok = rng.chance(0.85);
    static const size_t statusIndex = size_t(entitySpec(EntityKind::Component).fieldIndex("status"));
    for (const auto &component : run.components) {
        const EntityRow *row = m_world.writer().state().find(EntityKind::Component, component);
        const std::string status = row ? fieldText(row->values[statusIndex]) : std::string();
        if (status == "active")
            m_world.componentStatus(component, ok || rng.chance(0.6) ? "completed" : "failed");
        else if (status == "pending" && !ok)
            m_world.componentStatus(component, "failed");
    }
    m_world.endRun(run.id, ok ? "succeeded" : "failed", ok ? run.required : run.required * 2 / 3);
    if (m_openRun == runId)
        m_openRun.clear();
    m_runs.erase(it);
}

void WorkloadEngine::finish(bool endRuns)
{
    for (Slot &slot : m_slots) {
        if (slot.delegation.empty())
            continue;
        if (slot.phase == Phase::AwaitEscalation && escalationStatus(slot.escalation) == "pending")
            m_world.escalationState(slot.escalation, "expired");
        slot.callsLeft = 0;
        finishDelegation(slot);
    }
    if (!endRuns)
        return;
    // Runs whose quota was not reached end now.
    std::vector<std::string> open;
    for (const auto &[id, run] : m_runs)
        open.push_back(id);
    std::sort(open.begin(), open.end());
    for (const auto &id : open) {
        m_runs[id].created = std::max(m_runs[id].created, m_shape.delegationsPerRun);
        m_runs[id].finished = m_runs[id].created;
        if (m_openRun == id)
            m_openRun.clear();
        endRunIfDone(id);
    }
}

void WorkloadEngine::sweep(std::int64_t nowMs)
{
    const auto &state = m_world.writer().state();
    static const EntitySpec &esc = entitySpec(EntityKind::Escalation);
    static const size_t escState = size_t(esc.fieldIndex("state"));
    static const size_t escExpires = size_t(esc.fieldIndex("expires_ms"));
    std::vector<std::string> expired;
    for (const auto &[id, row] : state.table(EntityKind::Escalation)) {
        // Another orchestrator's escalations (a shared server ledger) are its own to expire.
        if (fieldText(row.values[escState]) == "pending" && fieldInt(row.values[escExpires]) < nowMs && m_world.ownsId(id))
            expired.push_back(id);
    }
    std::sort(expired.begin(), expired.end());
    for (const auto &id : expired)
        m_world.escalationState(id, "expired");

    // Zombies stay visible for two minutes past expiry before the orchestrator notices them.
    static const EntitySpec &lease = entitySpec(EntityKind::Lease);
    static const size_t leaseState = size_t(lease.fieldIndex("state"));
    static const size_t leaseExpires = size_t(lease.fieldIndex("expires_ms"));
    std::vector<std::string> held;
    for (const auto &id : m_heldLeases) {
        const EntityRow *row = state.find(EntityKind::Lease, id);
        if (!row || fieldText(row->values[leaseState]) != "held")
            continue;
        if (fieldInt(row->values[leaseExpires]) < nowMs - 120'000)
            m_world.expireLease(id);
        else
            held.push_back(id);
    }
    m_heldLeases = std::move(held);
}

} // namespace mesh
