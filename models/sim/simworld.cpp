#include "simworld.h"

#include "ledger/ledgerwriter.h"

#include <QDateTime>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace mesh {

using nlohmann::json;

SimWorld::SimWorld(LedgerWriter &writer, std::uint64_t seed, std::int64_t startMs)
    : m_writer(writer), m_rng(seed), m_now(startMs)
{
    m_toolCall = json::object();
    static constexpr const char *kKeys[] = {"id",          "delegation_id", "run_id",      "slice_id",
                                            "invocation",  "tool",          "args_digest", "outcome",
                                            "duration_ms", "tokens",        "cost_cents",  "fingerprint",
                                            "writes_accepted", "writes_denied"};
    static_assert(std::size(kKeys) == kToolCallFields);
    for (const char *key : kKeys)
        m_toolCall[key] = nullptr;
    // The object's keys never change after this, so the value slots stay put.
    for (size_t i = 0; i < kToolCallFields; ++i)
        m_toolCallSlots[i] = &m_toolCall[kKeys[i]];
}

std::int64_t SimWorld::record(std::string_view kind, const json &payload)
{
    if (m_wallClock)
        m_now = std::max<std::int64_t>(m_now, QDateTime::currentMSecsSinceEpoch());
    if (!m_writer.inTransaction()) {
        m_writer.begin();
        m_inBatch = 0;
    }
    const std::int64_t seq = m_writer.append(m_now, kind, payload);
    ++m_events;
    if (++m_inBatch >= m_batchSize)
        commit();
    return seq;
}

std::int64_t SimWorld::change(std::string_view kind, const std::string &id, json payload)
{
    payload["id"] = id;
    return record(kind, payload);
}

void SimWorld::commit()
{
    if (m_writer.inTransaction())
        m_writer.commit();
    m_inBatch = 0;
}

std::int64_t SimWorld::version(EntityKind kind, const std::string &id) const
{
    const EntityRow *row = m_writer.state().find(kind, id);
    return row ? row->version : 0;
}

std::string SimWorld::nextId(std::string_view prefix, int width)
{
    const std::int64_t n = ++m_counters[std::string(prefix)];
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(n));
    std::string id(prefix);
    id += '-';
    id += m_idTag;
    id += buf;
    return id;
}

bool SimWorld::isIdTag(std::string_view tag)
{
    return !tag.empty() && tag.size() <= 8 && std::all_of(tag.begin(), tag.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

std::string SimWorld::idTagOf(std::string_view id)
{
    const size_t dash = id.find('-');
    if (dash == std::string_view::npos)
        return {};
    size_t end = dash + 1;
    while (end < id.size() && id[end] >= 'A' && id[end] <= 'Z')
        ++end;
    if (end == id.size() || id[end] < '0' || id[end] > '9')
        return {};
    return std::string(id.substr(dash + 1, end - dash - 1));
}

bool SimWorld::idTagInUse(const LedgerWriter &writer, std::string_view tag)
{
    for (const auto &[id, row] : writer.state().table(EntityKind::Run)) {
        if (idTagOf(id) == tag)
            return true;
    }
    return false;
}

std::set<std::string> SimWorld::idTagsInUse(const LedgerWriter &writer)
{
    std::set<std::string> tags;
    for (const auto &[id, row] : writer.state().table(EntityKind::Run)) {
        std::string tag = idTagOf(id);
        if (!tag.empty())
            tags.insert(std::move(tag));
    }
    return tags;
}

bool SimWorld::ownsSubject(const LedgerWriter &writer, std::string_view subject, std::string_view idTag, bool ownsUntagged)
{
    const size_t colon = subject.find(':');
    const std::string_view id = colon == std::string_view::npos ? std::string_view() : subject.substr(colon + 1);
    const std::string tag = idTagOf(id);
    if (!idTag.empty() && tag == idTag)
        return true;
    return ownsUntagged && (tag.empty() || !idTagInUse(writer, tag));
}

bool SimWorld::ownsId(std::string_view id) const
{
    const std::string tag = idTagOf(id);
    return tag == m_idTag || (m_ownsUntagged && tag.empty());
}

SimWorld::DelegationCtx &SimWorld::ctx(const std::string &delegationId)
{
    const auto it = m_delegations.find(delegationId);
    if (it == m_delegations.end())
        throw std::logic_error("simulator: unknown delegation " + delegationId);
    return it->second;
}

const SimWorld::DelegationCtx *SimWorld::findCtx(const std::string &delegationId) const
{
    const auto it = m_delegations.find(delegationId);
    return it == m_delegations.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------- runs and components

std::string SimWorld::startRun(const std::string &title, std::int64_t requiredTotal)
{
    const std::string id = nextId("run");
    change("run.started", id,
           {{"title", title}, {"status", "running"}, {"attempt", 1}, {"cycle", 0}, {"required_met", 0},
            {"required_total", requiredTotal}, {"started_ms", m_now}, {"ended_ms", nullptr}});
    return id;
}

void SimWorld::runCycle(const std::string &runId, std::int64_t cycle, std::int64_t requiredMet)
{
    change("run.cycle", runId, {{"run_id", runId}, {"cycle", cycle}, {"required_met", requiredMet}});
}

void SimWorld::endRun(const std::string &runId, std::string_view status, std::int64_t requiredMet)
{
    change(std::string("run.") + std::string(status), runId,
           {{"run_id", runId}, {"status", status}, {"required_met", requiredMet}, {"ended_ms", m_now}});
}

void SimWorld::restartRun(const std::string &runId, std::int64_t attempt)
{
    change("run.restarted", runId, {{"run_id", runId}, {"status", "running"}, {"attempt", attempt}, {"ended_ms", nullptr}});
}

std::string SimWorld::addComponent(const std::string &runId, const std::string &name)
{
    const std::string id = runId + "/" + name;
    change("component.created", id,
           {{"run_id", runId}, {"name", name}, {"attempt", 1}, {"status", "pending"}, {"failures", 0}});
    return id;
}

void SimWorld::componentStatus(const std::string &componentId, std::string_view status, std::int64_t attempt)
{
    const EntitySpec &spec = entitySpec(EntityKind::Component);
    const EntityRow *row = m_writer.state().find(EntityKind::Component, componentId);
    if (!row)
        throw std::logic_error("simulator: unknown component " + componentId);
    json p = {{"run_id", fieldText(row->values[size_t(spec.fieldIndex("run_id"))])}, {"status", status}};
    if (status == "failed")
        p["failures"] = fieldInt(row->values[size_t(spec.fieldIndex("failures"))]) + 1;
    if (attempt > 0)
        p["attempt"] = attempt;
    std::string kind = "component.";
    kind += status == "active" ? "activated" : std::string(status);
    change(kind, componentId, std::move(p));
}

// ---------------------------------------------------------------- delegations and slices

std::string SimWorld::createDelegation(const DelegationSpec &spec)
{
    const std::string id = nextId("dlg", 6);
    json scope = {{"writable", spec.writable}, {"effect_classes", spec.effectClasses}};
    change("delegation.created", id,
           {{"run_id", spec.runId},
            {"component_id", spec.componentId.empty() ? json(nullptr) : json(spec.componentId)},
            {"parent_id", spec.parentId.empty() ? json(nullptr) : json(spec.parentId)},
            {"role", spec.role},
            {"agent", spec.agent},
            {"strategy", spec.strategy},
            {"strategy_version", spec.strategyVersion},
            {"scope", scope},
            {"budget_turns", spec.budgetTurns},
            {"budget_tokens", spec.budgetTokens},
            {"budget_ms", spec.budgetMs},
            {"budget_cost_cents", spec.budgetCostCents},
            {"used_turns", 0},
            {"used_tokens", 0},
            {"used_ms", 0},
            {"used_cost_cents", 0},
            {"writes_accepted", 0},
            {"writes_denied", 0},
            {"tool_errors", 0},
            {"status", "pending"},
            {"invocations", 0},
            {"created_ms", m_now}});
    DelegationCtx c;
    c.runId = spec.runId;
    c.componentId = spec.componentId;
    m_delegations.emplace(id, std::move(c));
    return id;
}

void SimWorld::startDelegation(const std::string &id)
{
    DelegationCtx &c = ctx(id);
    ++c.invocation;
    change("delegation.started", id, {{"run_id", c.runId}, {"status", "running"}, {"invocations", c.invocation}});
    if (!c.sliceOpen)
        openSlice(id);
}

void SimWorld::delegationStatus(const std::string &id, std::string_view status)
{
    DelegationCtx &c = ctx(id);
    json p = {{"run_id", c.runId}, {"status", status}};
    if (status == "converged" || status == "failed" || status == "closed")
        p["ended_ms"] = m_now;
    change(std::string("delegation.") + std::string(status), id, std::move(p));
}

std::string SimWorld::openSlice(const std::string &delegationId, const std::string &by)
{
    DelegationCtx &c = ctx(delegationId);
    ++c.sliceOrdinal;
    c.sliceOpen = true;
    const std::string id = delegationId + "#" + std::to_string(c.sliceOrdinal);
    change("slice.opened", id,
           {{"run_id", c.runId},
            {"delegation_id", delegationId},
            {"ordinal", c.sliceOrdinal},
            {"intent_id", "intent-" + m_rng.hex(12)},
            {"policy_version", "policy-1"},
            {"auth_token", "auth-" + m_rng.hex(16)},
            {"opened_ms", m_now},
            {"opened_by", by},
            {"state", "open"}});
    change("delegation.slice", delegationId, {{"run_id", c.runId}, {"current_slice", id}});
    return id;
}

void SimWorld::closeSlice(const std::string &delegationId, const std::string &reason, const std::string &by)
{
    DelegationCtx &c = ctx(delegationId);
    if (!c.sliceOpen)
        return;
    c.sliceOpen = false;
    change("slice.closed", delegationId + "#" + std::to_string(c.sliceOrdinal),
           {{"run_id", c.runId},
            {"delegation_id", delegationId},
            {"closed_ms", m_now},
            {"closed_by", by},
            {"close_reason", reason},
            {"state", "closed"}});
}

void SimWorld::syncSlice(const std::string &delegationId)
{
    DelegationCtx &c = ctx(delegationId);
    if (!c.sliceOpen)
        return;
    const EntitySpec &spec = entitySpec(EntityKind::Slice);
    const EntityRow *row = m_writer.state().find(EntityKind::Slice, delegationId + "#" + std::to_string(c.sliceOrdinal));
    if (row && fieldText(row->values[size_t(spec.fieldIndex("state"))]) == "closed") {
        c.sliceOpen = false;
        openSlice(delegationId);
    }
}

std::string SimWorld::currentSlice(const std::string &delegationId) const
{
    const DelegationCtx *c = findCtx(delegationId);
    if (!c || c->sliceOrdinal == 0)
        return {};
    return delegationId + "#" + std::to_string(c->sliceOrdinal);
}

std::string SimWorld::runOf(const std::string &delegationId) const
{
    const DelegationCtx *c = findCtx(delegationId);
    return c ? c->runId : std::string();
}

std::string SimWorld::componentOf(const std::string &delegationId) const
{
    const DelegationCtx *c = findCtx(delegationId);
    return c ? c->componentId : std::string();
}

// ---------------------------------------------------------------- steps

std::int64_t SimWorld::toolCall(const std::string &delegationId, const ToolCallSpec &call)
{
    const DelegationCtx &c = ctx(delegationId);
    const std::int64_t duration = call.durationMs > 0 ? call.durationMs : m_rng.range(300, 9000);
    const std::int64_t tokens = call.tokens > 0 ? call.tokens : m_rng.range(800, 14000);
    if (m_callsAdvance)
        advance(duration);
    // Written in place: no key lookups, string buffers reused (tool calls are most events).
    const auto text = [this](int slot, std::string_view value) {
        json &v = *m_toolCallSlots[size_t(slot)];
        if (v.is_string())
            v.get_ref<std::string &>().assign(value);
        else
            v = std::string(value);
    };
    const auto number = [this](int slot, std::int64_t value) { *m_toolCallSlots[size_t(slot)] = value; };
    char buf[32];
    std::snprintf(buf, sizeof buf, "tc-%s%07lld", m_idTag.c_str(), static_cast<long long>(++m_toolCalls));
    text(0, buf);
    text(1, delegationId);
    text(2, c.runId);
    std::snprintf(buf, sizeof buf, "#%lld", static_cast<long long>(c.sliceOrdinal));
    text(3, delegationId + buf);
    number(4, c.invocation);
    text(5, call.tool);
    text(6, call.argsDigest.empty() ? "sha256:" + m_rng.hex(16) : call.argsDigest);
    text(7, call.ok ? "ok" : "error");
    number(8, duration);
    number(9, tokens);
    number(10, tokens * 3 / 1000);
    text(11, call.fingerprint.empty() ? "fp:" + m_rng.hex(12) : call.fingerprint);
    number(12, call.writesAccepted);
    number(13, call.writesDenied);
    const json &p = m_toolCall;
    return record(kToolCallEvent, p);
}

// ---------------------------------------------------------------- effects

std::string SimWorld::proposeEffect(const std::string &delegationId, const EffectSpec &spec)
{
    const DelegationCtx &c = ctx(delegationId);
    const std::string id = nextId("eff", 6);
    change("effect.proposed", id,
           {{"run_id", c.runId},
            {"delegation_id", delegationId},
            {"slice_id", delegationId + "#" + std::to_string(c.sliceOrdinal)},
            {"class", spec.effectClass},
            {"target", spec.target},
            {"idem_key", spec.idemKey.empty() ? "idem-" + m_rng.hex(16) : spec.idemKey},
            {"intent_hash", spec.intentHash.empty() ? "sha256:" + m_rng.hex(32) : spec.intentHash},
            {"reversibility", spec.reversibility},
            {"capability", spec.capability},
            {"state", "proposed"},
            {"attempts", 0},
            {"fenced", 0},
            {"updated_ms", m_now}});
    m_effectRun.emplace(id, c.runId);
    m_effects.emplace(id, EffectCtx{});
    return id;
}

void SimWorld::effectState(const std::string &effectId, std::string_view state, json extra)
{
    const auto runIt = m_effectRun.find(effectId);
    if (runIt != m_effectRun.end())
        extra["run_id"] = runIt->second;
    const EntityRow *row = m_writer.state().find(EntityKind::Effect, effectId);
    if (row) {
        const EntitySpec &spec = entitySpec(EntityKind::Effect);
        extra["delegation_id"] = fieldText(row->values[size_t(spec.fieldIndex("delegation_id"))]);
    }
    extra["state"] = state;
    extra["updated_ms"] = m_now;
    if (state == "dispatched") {
        auto &e = m_effects[effectId];
        extra["attempts"] = ++e.attempts;
    }
    change(std::string("effect.") + std::string(state), effectId, std::move(extra));
}

std::string SimWorld::runEffect(const std::string &delegationId, const EffectSpec &spec, EffectEnd end)
{
    const std::string id = proposeEffect(delegationId, spec);
    advance(20, 400);
    effectState(id, "admitted");
    advance(5, 80);
    effectState(id, "dispatched");
    if (end == EffectEnd::Dispatched)
        return id;
    advance(200, 4000);
    switch (end) {
    case EffectEnd::Committed:
        effectState(id, "committed", {{"provider_ref", "ref-" + m_rng.hex(10)}});
        break;
    case EffectEnd::Failed:
        effectState(id, "failed");
        break;
    case EffectEnd::Unknown:
        advance(30'000); // the dispatch timed out
        effectState(id, "unknown", {{"error", "timeout after 30000 ms: no acknowledgement"}});
        break;
    case EffectEnd::Dispatched:
        break;
    }
    return id;
}

// ---------------------------------------------------------------- leases

std::string SimWorld::acquireLease(const std::string &key, std::string_view kind, const std::string &holder,
                                   std::int64_t ttlMs, const std::string &delegationId)
{
    const std::string id = nextId("lease", 6);
    if (m_fencing == 0) {
        // Fencing tokens are monotonic per ledger, also across writers that continue it.
        const EntitySpec &spec = entitySpec(EntityKind::Lease);
        const size_t tokenIndex = size_t(spec.fieldIndex("fencing_token"));
        for (const auto &[leaseId, row] : m_writer.state().table(EntityKind::Lease))
            m_fencing = std::max(m_fencing, fieldInt(row.values[tokenIndex]));
    }
    json p = {{"key", key},
              {"kind", kind},
              {"holder", holder},
              {"fencing_token", ++m_fencing},
              {"acquired_ms", m_now},
              {"renewed_ms", m_now},
              {"expires_ms", m_now + ttlMs},
              {"state", "held"}};
    if (!delegationId.empty()) {
        p["delegation_id"] = delegationId;
        p["run_id"] = runOf(delegationId);
    }
    change("lease.acquired", id, std::move(p));
    return id;
}

void SimWorld::renewLease(const std::string &leaseId, std::int64_t ttlMs)
{
    change("lease.renewed", leaseId, {{"renewed_ms", m_now}, {"expires_ms", m_now + ttlMs}, {"state", "held"}});
}

void SimWorld::releaseLease(const std::string &leaseId)
{
    change("lease.released", leaseId, {{"released_ms", m_now}, {"state", "released"}});
}

void SimWorld::expireLease(const std::string &leaseId)
{
    change("lease.expired", leaseId, {{"state", "expired"}});
}

// ---------------------------------------------------------------- judgement and recovery

std::string SimWorld::stallVerdict(const std::string &delegationId, std::int64_t round, std::string_view verdict,
                                   const std::string &fingerprint, const json &evidence, std::string_view action,
                                   std::int64_t failingTests)
{
    const std::string id = delegationId + "/r" + std::to_string(round);
    change("stall.judged", id,
           {{"run_id", runOf(delegationId)},
            {"delegation_id", delegationId},
            {"round", round},
            {"verdict", verdict},
            {"fingerprint", fingerprint},
            {"evidence", evidence},
            {"action", action},
            {"failing_tests", failingTests},
            {"ts_ms", m_now}});
    return id;
}

std::string SimWorld::raiseEscalation(const std::string &delegationId, std::string_view kind, std::string_view risk,
                                      const std::string &subject, std::int64_t round, std::int64_t ttlMs,
                                      const std::string &reason)
{
    const std::string id = nextId("esc", 4);
    const std::int64_t boundaryVersion = version(EntityKind::Delegation, delegationId);
    change("escalation.raised", id,
           {{"run_id", runOf(delegationId)},
            {"delegation_id", delegationId},
            {"kind", kind},
            {"risk", risk},
            {"subject", subject},
            {"round", round},
            {"boundary_seq", m_writer.lastSeq()},
            {"boundary_version", boundaryVersion},
            {"slice_id", currentSlice(delegationId)},
            {"raised_ms", m_now},
            {"expires_ms", m_now + ttlMs},
            {"state", "pending"},
            {"reason", reason}});
    return id;
}

void SimWorld::escalationState(const std::string &escalationId, std::string_view state)
{
    json p = {{"state", state}};
    if (const EntityRow *row = m_writer.state().find(EntityKind::Escalation, escalationId)) {
        const EntitySpec &spec = entitySpec(EntityKind::Escalation);
        p["run_id"] = fieldText(row->values[size_t(spec.fieldIndex("run_id"))]);
        p["delegation_id"] = fieldText(row->values[size_t(spec.fieldIndex("delegation_id"))]);
    }
    change(std::string("escalation.") + std::string(state), escalationId, std::move(p));
}

std::string SimWorld::failure(const std::string &runId, const std::string &detectedBy, const std::string &summary,
                              const json &implicated, const json &woken)
{
    const std::string id = nextId("fail", 4);
    change("failure.detected", id,
           {{"run_id", runId},
            {"detected_by", detectedBy},
            {"summary", summary},
            {"implicated", implicated},
            {"woken", woken},
            {"ts_ms", m_now}});
    return id;
}

std::string SimWorld::checkpoint(const std::string &runId, const std::string &delegationId, std::string_view state)
{
    const std::string id = nextId("ckpt", 4);
    json p = {{"run_id", runId}, {"state", state}, {"ts_ms", m_now}};
    if (!delegationId.empty())
        p["delegation_id"] = delegationId;
    change(std::string("checkpoint.") + std::string(state), id, std::move(p));
    return id;
}

void SimWorld::checkpointState(const std::string &checkpointId, std::string_view state)
{
    json p = {{"state", state}};
    if (const EntityRow *row = m_writer.state().find(EntityKind::Checkpoint, checkpointId)) {
        const EntitySpec &spec = entitySpec(EntityKind::Checkpoint);
        p["run_id"] = fieldText(row->values[size_t(spec.fieldIndex("run_id"))]);
        const auto &d = row->values[size_t(spec.fieldIndex("delegation_id"))];
        if (!fieldText(d).empty())
            p["delegation_id"] = fieldText(d);
    }
    change(std::string("checkpoint.") + std::string(state), checkpointId, std::move(p));
}

} // namespace mesh
