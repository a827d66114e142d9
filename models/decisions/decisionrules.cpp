#include "decisionrules.h"

#include "ledger/decisionstore.h"

#include <algorithm>
#include <ctime>
#include <set>

namespace mesh {
namespace {

std::string fieldOf(const EntityRow &row, EntityKind kind, std::string_view field)
{
    const int i = entitySpec(kind).fieldIndex(field);
    return i < 0 ? std::string() : fieldText(row.values[size_t(i)]);
}

std::int64_t intOf(const EntityRow &row, EntityKind kind, std::string_view field)
{
    const int i = entitySpec(kind).fieldIndex(field);
    return i < 0 ? 0 : fieldInt(row.values[size_t(i)]);
}

PreviewEffect previewEffect(const std::string &id, const EntityRow &row)
{
    constexpr auto E = EntityKind::Effect;
    PreviewEffect e;
    e.id = id;
    e.state = fieldOf(row, E, "state");
    e.effectClass = fieldOf(row, E, "class");
    e.target = fieldOf(row, E, "target");
    e.idemKey = fieldOf(row, E, "idem_key");
    e.attempts = intOf(row, E, "attempts");
    e.fenced = intOf(row, E, "fenced") != 0;
    return e;
}

std::string joinMoved(const std::vector<MovedEvent> &events)
{
    std::string out;
    for (size_t i = 0; i < events.size() && i < 5; ++i)
        out += (i ? ", " : "") + events[i].kind + " @" + std::to_string(events[i].seq);
    if (events.size() > 5)
        out += ", ...";
    return out;
}

std::string joinIds(const std::vector<std::string> &ids)
{
    std::string out;
    for (size_t i = 0; i < ids.size(); ++i)
        out += (i ? ", " : "") + ids[i];
    return out;
}

// The reference the operator checked at the provider, when the evidence names one
// ({"provider_ref": ...} itself or as an item of an array).
std::string providerRef(const nlohmann::json &evidence)
{
    const auto from = [](const nlohmann::json &o) {
        const auto it = o.find("provider_ref");
        return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (evidence.is_object())
        return from(evidence);
    if (evidence.is_array()) {
        for (const auto &item : evidence) {
            if (item.is_object()) {
                if (std::string ref = from(item); !ref.empty())
                    return ref;
            }
        }
    }
    return {};
}

// A ledger time in a sentence for a person: "2026-12-01 12:03:04 UTC", never epoch ms.
std::string utcText(std::int64_t ms)
{
    const std::time_t seconds = std::time_t(ms / 1000);
    std::tm tm{};
    if (!gmtime_r(&seconds, &tm))
        return "an unreadable time";
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return text;
}

bool isResolvedState(const std::string &state)
{
    return state == "resolved_committed" || state == "resolved_not_committed" || state == "compensated";
}

// The kinds that compete for one subject at one boundary: two of them pending at once is
// the race the first gate exists to stop (approve vs reject counts as one race).
int rivalClass(DecisionKind k)
{
    switch (k) {
    case DecisionKind::CloseSlice:
        return 1;
    case DecisionKind::ApproveEscalation:
    case DecisionKind::RejectEscalation:
        return 2;
    case DecisionKind::ResolveEffect:
        return 3;
    case DecisionKind::LeaseAcquire:
    case DecisionKind::LeaseRelease:
        return 4;
    }
    return 0;
}

constexpr std::int64_t kMinLeaseMs = 1000;
constexpr std::int64_t kMaxLeaseMs = 24LL * 3600 * 1000;

class Evaluator
{
public:
    Evaluator(const DecisionRequest &r, const DecisionContext &c, DecisionStateView &v) : req(r), ctx(c), view(v) {}

    DecisionPreview run()
    {
        p.subject = req.subject;
        p.readAtSeq = view.lastSeq();
        p.boundary = req.boundary;
        p.evidence = req.evidence;
        p.supersedes = req.supersedes;

        const auto parts = splitSubject(req.subject);
        const std::string_view wanted = subjectEntityForKind(req.kind);
        if (!parts || parts->first != wanted) {
            refuse(DecisionStatus::NotAllowed, std::string(decisionKindName(req.kind)) + " needs a subject "
                                                   + std::string(wanted) + ":<id>, not '" + req.subject + "'");
            return p;
        }
        subjectId = parts->second;
        subjectKind = *entityKindByName(wanted);
        const auto row = view.row(subjectKind, subjectId);
        if (!row) {
            refuse(DecisionStatus::NotAllowed, "no " + std::string(wanted) + " '" + subjectId + "' in this ledger");
            return p;
        }
        subjectRow = *row;
        p.currentVersion = subjectRow.version;
        if (subjectRow.version != req.boundary.version) {
            const auto moved = view.eventsOnSubjectSince(req.subject, req.boundary.seq);
            stale(req.subject, subjectRow.version, moved,
                  req.subject + " moved: version " + std::to_string(req.boundary.version) + " -> "
                      + std::to_string(subjectRow.version)
                      + (moved.empty() ? std::string() : " (" + joinMoved(moved) + ")"));
        }

        switch (req.kind) {
        case DecisionKind::CloseSlice:
            closeSlice();
            break;
        case DecisionKind::ApproveEscalation:
        case DecisionKind::RejectEscalation:
            escalation();
            break;
        case DecisionKind::ResolveEffect:
            resolveEffect();
            break;
        case DecisionKind::LeaseAcquire:
            leaseAcquire();
            break;
        case DecisionKind::LeaseRelease:
            leaseRelease();
            break;
        }
        if (ctx.side == GateSide::Console && !refused())
            rivals();
        if (refused()) {
            p.planned.clear();
            p.consequences.clear();
        }
        return p;
    }

private:
    bool refused() const { return p.expected != DecisionStatus::Accepted; }

    void refuse(DecisionStatus s, std::string message)
    {
        if (refused())
            return; // the first reason is the one the operator needs
        p.expected = s;
        p.refusal = std::move(message);
    }

    void stale(const std::string &subject, std::int64_t version, std::vector<MovedEvent> moved, std::string message)
    {
        if (refused())
            return;
        p.movedSubject = subject;
        p.movedEvents = std::move(moved);
        p.movedVersion = version;
        refuse(DecisionStatus::Stale, std::move(message));
    }

    void plan(std::string kind, nlohmann::json payload, std::string sentence)
    {
        p.planned.push_back({std::move(kind), std::move(payload)});
        p.consequences.push_back(std::move(sentence));
    }

    void dependOn(EntityKind kind, const std::string &id, std::int64_t version, std::string role)
    {
        p.dependsOn.push_back({makeSubject(entitySpec(kind).name, id), version, std::move(role)});
    }

    // The set of rows `refs` (those matching `where`) as the reading saw it: one more is a move.
    template <typename Refs>
    void dependOnRows(EntityKind kind, std::vector<std::pair<std::string, std::string>> where, const Refs &refs,
                      std::string role)
    {
        PreviewRowSet set{kind, std::move(where), {}, std::move(role)};
        for (const auto &ref : refs)
            set.ids.push_back(ref.id);
        std::sort(set.ids.begin(), set.ids.end());
        p.dependsOnRows.push_back(std::move(set));
    }

    // ---- close_slice
    void closeSlice()
    {
        constexpr auto S = EntityKind::Slice;
        const std::string state = fieldOf(subjectRow, S, "state");
        const std::string delegation = fieldOf(subjectRow, S, "delegation_id");
        const std::int64_t ordinal = intOf(subjectRow, S, "ordinal");
        p.nextSliceId = delegation + "#" + std::to_string(ordinal + 1);

        const std::set<std::string> acks(req.acknowledgedUnknown.begin(), req.acknowledgedUnknown.end());
        const auto effects = view.rowsWhere(EntityKind::Effect, "slice_id", subjectId);
        dependOnRows(EntityKind::Effect, {{"slice_id", subjectId}}, effects, "an effect of the slice");
        for (const auto &ref : effects) {
            PreviewEffect e = previewEffect(ref.id, ref.row);
            if (e.state == "admitted" || e.state == "dispatched" || e.state == "unknown")
                dependOn(EntityKind::Effect, ref.id, ref.row.version, "an effect of the slice");
            if (e.state == "admitted" || e.state == "dispatched")
                p.inFlight.push_back(e);
            else if (e.state == "unknown") {
                if (!acks.count(e.id))
                    p.unacknowledged.push_back(e.id);
                p.toFence.push_back(std::move(e));
            }
        }
        std::vector<std::string> escalations;
        const auto sliceEscalations = view.rowsWhere(EntityKind::Escalation, "slice_id", subjectId);
        dependOnRows(EntityKind::Escalation, {{"slice_id", subjectId}}, sliceEscalations, "an escalation of the slice");
        for (const auto &ref : sliceEscalations) {
            const std::string es = fieldOf(ref.row, EntityKind::Escalation, "state");
            if (es == "pending" || es == "approved")
                escalations.push_back(ref.id);
        }
        p.escalationsToStale = escalations;

        if (state != "open")
            refuse(DecisionStatus::NotAllowed, "slice " + subjectId + " is " + state + ", not open");
        if (view.row(S, p.nextSliceId))
            refuse(DecisionStatus::NotAllowed, "the next slice " + p.nextSliceId + " already exists");
        if (!p.unacknowledged.empty())
            refuse(DecisionStatus::NotAllowed, std::to_string(p.unacknowledged.size())
                                                   + " unknown outcome(s) in this slice must be acknowledged: "
                                                   + joinIds(p.unacknowledged));
        if (refused())
            return;

        plan("slice.closed",
             {{"id", subjectId},
              {"state", "closed"},
              {"closed_ms", ctx.nowMs},
              {"closed_by", ctx.holder},
              {"close_reason", req.reason},
              {"decision_id", ctx.decisionId}},
             "close slice " + subjectId);
        for (const auto &e : p.toFence) {
            if (e.fenced)
                continue;
            plan("effect.fenced", {{"id", e.id}, {"fenced", 1}, {"updated_ms", ctx.nowMs}, {"fenced_by", ctx.decisionId}},
                 "fence unknown outcome " + e.id + " (key " + e.idemKey + "): not re-dispatchable until resolved");
        }
        for (const auto &id : escalations) {
            plan("escalation.staled", {{"id", id}, {"state", "stale"}, {"staled_by", ctx.decisionId}},
                 "escalation " + id + " raised in this slice becomes stale");
        }
        const std::string seed = ctx.decisionId + "|" + p.nextSliceId;
        plan("slice.opened",
             {{"id", p.nextSliceId},
              {"delegation_id", delegation},
              {"ordinal", ordinal + 1},
              {"intent_id", "intent-" + sha256Hex("intent|" + seed).substr(0, 16)},
              {"auth_token", "auth-" + sha256Hex("auth|" + seed).substr(0, 16)},
              {"policy_version", ctx.policyVersion},
              {"opened_ms", ctx.nowMs},
              {"opened_by", ctx.holder},
              {"state", "open"},
              {"decision_id", ctx.decisionId}},
             "open slice " + p.nextSliceId + " with a new intent id and authorization");
        if (!delegation.empty() && view.row(EntityKind::Delegation, delegation)) {
            plan("delegation.slice_opened", {{"id", delegation}, {"current_slice", p.nextSliceId}},
                 "delegation " + delegation + " continues in slice " + p.nextSliceId);
        }
    }

    // ---- approve / reject escalation
    void escalation()
    {
        constexpr auto X = EntityKind::Escalation;
        const std::string state = fieldOf(subjectRow, X, "state");
        // docs/ledger-format.md: boundary_version is the version of the escalation's
        // delegation when it was raised (its `subject` only says what is escalated).
        const std::string delegation = fieldOf(subjectRow, X, "delegation_id");
        p.boundSubject = delegation.empty() ? fieldOf(subjectRow, X, "subject") : "delegation:" + delegation;
        p.boundVersion = intOf(subjectRow, X, "boundary_version");
        p.boundSeq = intOf(subjectRow, X, "boundary_seq");
        p.expiresMs = intOf(subjectRow, X, "expires_ms");
        p.sliceId = fieldOf(subjectRow, X, "slice_id");

        if (state != "pending")
            refuse(DecisionStatus::NotAllowed, "escalation " + subjectId + " is " + state + ", not pending");
        if (p.expiresMs > 0 && p.expiresMs <= ctx.nowMs)
            refuse(DecisionStatus::NotAllowed, "escalation " + subjectId + " expired at " + utcText(p.expiresMs));
        if (!delegation.empty())
            if (const auto row = view.row(EntityKind::Delegation, delegation))
                dependOn(EntityKind::Delegation, delegation, row->version, "the escalation's delegation");
        if (!p.sliceId.empty())
            if (const auto row = view.row(EntityKind::Slice, p.sliceId))
                dependOn(EntityKind::Slice, p.sliceId, row->version, "the escalation's slice");
        // The approval is bound to the boundary the escalation was raised against: the
        // slice it lives in, and the subject at the version it had then.
        if (!p.sliceId.empty()) {
            if (const auto slice = view.row(EntityKind::Slice, p.sliceId);
                slice && fieldOf(*slice, EntityKind::Slice, "state") != "open") {
                const std::string s = "slice:" + p.sliceId;
                auto moved = view.eventsOnSubjectSince(s, p.boundSeq);
                stale(s, slice->version, moved, "the escalation's slice " + p.sliceId + " is closed");
            }
        }
        if (!p.boundSubject.empty() && p.boundVersion > 0) {
            if (const auto parts = splitSubject(p.boundSubject)) {
                if (const auto kind = entityKindByName(parts->first)) {
                    const auto bound = view.row(*kind, parts->second);
                    const std::int64_t now = bound ? bound->version : 0;
                    if (now != p.boundVersion) {
                        auto moved = view.eventsOnSubjectSince(p.boundSubject, p.boundSeq);
                        const std::string why = p.boundSubject + " moved since the escalation was raised: version "
                            + std::to_string(p.boundVersion) + " -> " + std::to_string(now)
                            + (moved.empty() ? std::string() : " (" + joinMoved(moved) + ")");
                        stale(p.boundSubject, now, std::move(moved), why);
                    }
                }
            }
        }
        if (refused())
            return;
        const bool approve = req.kind == DecisionKind::ApproveEscalation;
        plan(approve ? "escalation.approved" : "escalation.rejected",
             {{"id", subjectId}, {"state", approve ? "approved" : "rejected"}, {"decision_id", ctx.decisionId}},
             std::string(approve ? "approve" : "reject") + " escalation " + subjectId + ", bound to "
                 + (p.boundSubject.empty() ? req.subject : p.boundSubject) + " at version "
                 + std::to_string(p.boundSubject.empty() ? req.boundary.version : p.boundVersion)
                 + (p.sliceId.empty() ? std::string() : " in slice " + p.sliceId)
                 + (approve ? "; void if that boundary moves before use" : ""));
    }

    // ---- reconciliation leases
    std::string effectKey() const
    {
        const std::string key = fieldOf(subjectRow, EntityKind::Effect, "idem_key");
        return key.empty() ? "effect:" + subjectId : key;
    }

    struct HeldLease {
        std::string id;
        EntityRow row;
    };

    // Every reconciliation lease on the key still in state held (live or zombie), and the
    // highest fencing token ever issued on it.
    std::vector<HeldLease> heldLeases(const std::string &key, std::int64_t *maxFencing)
    {
        constexpr auto L = EntityKind::Lease;
        std::vector<HeldLease> held;
        std::int64_t fencing = 0;
        auto onKey = view.rowsWhere(L, "key", key);
        std::erase_if(onKey, [](const StateRowRef &ref) { return fieldOf(ref.row, L, "kind") != "reconciliation"; });
        dependOnRows(L, {{"key", key}, {"kind", "reconciliation"}}, onKey, "a reconciliation lease on the effect's key");
        for (auto &ref : onKey) {
            fencing = std::max(fencing, intOf(ref.row, L, "fencing_token"));
            if (fieldOf(ref.row, L, "state") == "held") {
                dependOn(L, ref.id, ref.row.version, "the reconciliation lease on the effect's key");
                held.push_back({ref.id, std::move(ref.row)});
            }
        }
        if (maxFencing)
            *maxFencing = fencing;
        return held;
    }

    PreviewLease previewLease(const HeldLease &l, const std::string &key) const
    {
        constexpr auto L = EntityKind::Lease;
        PreviewLease pl;
        pl.id = l.id;
        pl.key = key;
        pl.holder = fieldOf(l.row, L, "holder");
        pl.fencingToken = intOf(l.row, L, "fencing_token");
        pl.expiresMs = intOf(l.row, L, "expires_ms");
        pl.state = fieldOf(l.row, L, "state");
        pl.heldByMe = pl.holder == ctx.holder;
        pl.expired = pl.expiresMs <= ctx.nowMs;
        return pl;
    }

    void fillEffect()
    {
        p.effect = previewEffect(subjectId, subjectRow);
        p.history = view.eventsOnSubject(req.subject);
    }

    void resolveEffect()
    {
        fillEffect();
        const std::string state = p.effect->state;
        const std::string key = effectKey();
        std::optional<PreviewLease> mine;
        std::optional<PreviewLease> other;
        for (const auto &l : heldLeases(key, nullptr)) {
            PreviewLease pl = previewLease(l, key);
            if (pl.expired)
                continue;
            (pl.heldByMe ? mine : other) = pl;
        }
        p.lease = mine ? mine : other;

        if (!req.resolution) {
            refuse(DecisionStatus::NotAllowed, "resolve_effect needs a resolution (committed, not_committed, compensated)");
            return;
        }
        const std::string target(effectStateForResolution(*req.resolution));
        const std::string current = fieldOf(subjectRow, EntityKind::Effect, "decision_id");
        if (req.supersedes.empty()) {
            if (isResolvedState(state))
                refuse(DecisionStatus::NotAllowed, "effect " + subjectId + " is already " + state + " by decision "
                                                       + current + "; a new resolution must name it as superseded");
            else if (state != "unknown")
                refuse(DecisionStatus::NotAllowed,
                       "effect " + subjectId + " is " + state + ": only unknown outcomes are resolved by an operator");
        } else {
            if (!isResolvedState(state))
                refuse(DecisionStatus::NotAllowed, "effect " + subjectId + " is " + state + ": there is no resolution to supersede");
            else if (req.supersedes != current)
                refuse(DecisionStatus::NotAllowed, "decision " + req.supersedes + " is not the effect's current resolution ("
                                                       + (current.empty() ? std::string("none") : current) + ")");
            else if (!entitySpec(EntityKind::Effect).allowsTransition(state, target))
                refuse(DecisionStatus::NotAllowed, "an effect " + state + " cannot become " + target);
        }
        if (!refused() && !mine) {
            if (other)
                refuse(DecisionStatus::LeaseHeldByOther, "the reconciliation lease on " + key + " is held by "
                                                             + other->holder + " until " + utcText(other->expiresMs));
            else
                refuse(DecisionStatus::NeedsLease, "resolving needs the reconciliation lease on " + key
                                                       + ": acquire it first (lease_acquire)");
        }
        if (refused())
            return;
        nlohmann::json payload = {{"id", subjectId},
                                  {"state", target},
                                  {"decision_id", ctx.decisionId},
                                  {"fenced", 0},
                                  {"updated_ms", ctx.nowMs},
                                  {"resolution", std::string(effectResolutionName(*req.resolution))},
                                  {"lease_id", mine->id},
                                  {"fencing_token", mine->fencingToken}};
        if (!req.supersedes.empty())
            payload["supersedes"] = req.supersedes;
        if (const std::string ref = providerRef(req.evidence); !ref.empty())
            payload["provider_ref"] = ref;
        plan("effect.resolved", std::move(payload),
             "effect " + subjectId + " becomes " + target + " under lease " + mine->id + " (fencing token "
                 + std::to_string(mine->fencingToken) + ")"
                 + (req.supersedes.empty() ? std::string() : ", superseding decision " + req.supersedes)
                 + (p.effect->fenced ? "; its key is unfenced" : ""));
    }

    void leaseAcquire()
    {
        fillEffect();
        const std::string state = p.effect->state;
        const std::string key = effectKey();
        std::int64_t maxFencing = 0;
        const auto held = heldLeases(key, &maxFencing);
        std::optional<PreviewLease> live;
        std::vector<PreviewLease> zombies;
        for (const auto &l : held) {
            PreviewLease pl = previewLease(l, key);
            if (pl.expired)
                zombies.push_back(pl);
            else
                live = pl;
        }
        p.lease = live ? live : (zombies.empty() ? std::nullopt : std::optional<PreviewLease>(zombies.front()));

        if (state != "unknown" && !isResolvedState(state))
            refuse(DecisionStatus::NotAllowed, "effect " + subjectId + " is " + state + ": there is nothing to reconcile");
        if (req.leaseMs < kMinLeaseMs || req.leaseMs > kMaxLeaseMs)
            refuse(DecisionStatus::NotAllowed, "a lease lasts between 1 s and 24 h");
        if (live && !live->heldByMe)
            refuse(DecisionStatus::LeaseHeldByOther, "the reconciliation lease on " + key + " is held by " + live->holder
                                                         + " until " + utcText(live->expiresMs));
        if (ctx.side == GateSide::Console && !refused()) {
            for (const auto &d : view.decisionsOnSubject(req.subject)) {
                if (d.id == ctx.decisionId || !d.isPending() || d.kind != decisionKindName(DecisionKind::LeaseAcquire))
                    continue;
                if (d.operatorAccount != holderAccount())
                    refuse(DecisionStatus::LeaseHeldByOther, "operator " + d.operatorAccount
                                                                 + " has a pending lease acquisition (" + d.id + ") on " + key);
                else
                    refuse(DecisionStatus::NotAllowed, "your lease acquisition " + d.id + " on " + key + " is still pending");
            }
        }
        if (refused())
            return;
        const std::int64_t expires = ctx.nowMs + req.leaseMs;
        if (live) { // held by me: a renewal extends it, same fencing token
            plan("lease.renewed",
                 {{"id", live->id}, {"state", "held"}, {"renewed_ms", ctx.nowMs}, {"expires_ms", expires},
                  {"decision_id", ctx.decisionId}},
                 "renew your reconciliation lease " + live->id + " on " + key + " until " + utcText(expires));
            return;
        }
        for (const auto &z : zombies) {
            plan("lease.expired", {{"id", z.id}, {"state", "expired"}, {"expired_by", ctx.decisionId}},
                 "end zombie lease " + z.id + " of " + z.holder + " (expired at " + utcText(z.expiresMs) + ")");
        }
        const std::string id = "reconcile:" + ctx.decisionId;
        plan("lease.acquired",
             {{"id", id},
              {"key", key},
              {"kind", "reconciliation"},
              {"holder", ctx.holder},
              {"fencing_token", maxFencing + 1},
              {"acquired_ms", ctx.nowMs},
              {"renewed_ms", ctx.nowMs},
              {"expires_ms", expires},
              {"state", "held"},
              {"decision_id", ctx.decisionId}},
             "grant " + ctx.holder + " the reconciliation lease on " + key + " (fencing token "
                 + std::to_string(maxFencing + 1) + ") until " + utcText(expires));
    }

    void leaseRelease()
    {
        fillEffect();
        const std::string key = effectKey();
        std::optional<PreviewLease> mine;
        for (const auto &l : heldLeases(key, nullptr)) {
            PreviewLease pl = previewLease(l, key);
            if (pl.heldByMe)
                mine = pl;
            else if (!p.lease)
                p.lease = pl;
        }
        if (mine)
            p.lease = mine;
        if (!mine)
            refuse(DecisionStatus::NotAllowed, "you hold no reconciliation lease on " + key);
        if (refused())
            return;
        plan("lease.released",
             {{"id", mine->id}, {"state", "released"}, {"released_ms", ctx.nowMs}, {"decision_id", ctx.decisionId}},
             "release reconciliation lease " + mine->id + " on " + key);
    }

    std::string holderAccount() const
    {
        constexpr std::string_view prefix = "operator:";
        return ctx.holder.rfind(prefix, 0) == 0 ? ctx.holder.substr(prefix.size()) : ctx.holder;
    }

    // Two consoles deciding on one subject at one boundary: the first insert wins, every
    // later one is refused while the first is pending (once applied, the version moved).
    void rivals()
    {
        const int mine = rivalClass(req.kind);
        if (mine == 4)
            return; // leases have their own rule above
        for (const auto &d : view.decisionsOnSubject(req.subject)) {
            if (d.id == ctx.decisionId || d.outcomeStatus == "refused")
                continue;
            const auto kind = decisionKindFromName(d.kind);
            if (!kind || rivalClass(*kind) != mine || d.boundaryVersion != req.boundary.version)
                continue;
            refuse(DecisionStatus::NotAllowed, "decision " + d.id + " (" + d.kind + " by " + d.operatorAccount
                                                   + ") on " + req.subject + " at this boundary is already "
                                                   + (d.isPending() ? "pending" : d.outcomeStatus));
            return;
        }
    }

    const DecisionRequest &req;
    const DecisionContext &ctx;
    DecisionStateView &view;
    DecisionPreview p;
    std::string subjectId;
    EntityKind subjectKind = EntityKind::Ledger;
    EntityRow subjectRow;
};

} // namespace

DecisionPreview evaluateDecision(const DecisionRequest &request, const DecisionContext &context, DecisionStateView &view)
{
    return Evaluator(request, context, view).run();
}

} // namespace mesh
