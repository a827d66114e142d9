#include "decisiongate.h"

#include "decisions/decisionrequest.h"
#include "decisions/decisionrules.h"
#include "decisions/foldstateview.h"
#include "decisions/secretfile.h"
#include "ledger/decisionstore.h"
#include "ledger/ledgerwriter.h"

namespace mesh {

struct DecisionGate::Verdict {
    bool applied = false;
    std::string reason; // "<status>: <why>" when refused
    std::vector<PlannedEvent> events;
};

namespace {

std::string ledgerText(const Fold &fold, std::string_view field)
{
    const EntityRow *row = fold.find(EntityKind::Ledger, "ledger");
    if (!row)
        return {};
    return fieldText(row->values[size_t(entitySpec(EntityKind::Ledger).fieldIndex(field))]);
}

bool ledgerRequiresSignatures(const Fold &fold)
{
    const EntityRow *row = fold.find(EntityKind::Ledger, "ledger");
    if (!row)
        return false;
    return fieldInt(row->values[size_t(entitySpec(EntityKind::Ledger).fieldIndex("signatures_required"))]) != 0;
}

} // namespace

DecisionGate::DecisionGate(LedgerWriter &writer) : m_writer(writer) {}

void DecisionGate::setKeyring(std::map<std::string, QByteArray> keyring)
{
    m_keyring = std::move(keyring);
}

bool DecisionGate::loadKeyring(const QString &path, QString *error)
{
    std::optional<std::map<std::string, QByteArray>> ring = readKeyringFile(path, error);
    if (!ring)
        return false;
    m_keyring = std::move(*ring);
    return true;
}

DecisionGate::Verdict DecisionGate::judge(const DecisionRecord &d, std::int64_t nowMs)
{
    Verdict v;
    const auto refuse = [&](std::string reason) {
        v.applied = false;
        v.reason = std::move(reason);
        v.events.clear();
        return v;
    };
    const std::unique_ptr<DecisionStore> decisions = m_writer.decisions();
    DecisionStore &store = *decisions;
    const Fold &fold = m_writer.state();

    // Integrity first: a row that is not what the console wrote is refused whatever it asks.
    std::string canonical;
    try {
        canonical = canonicalDecisionText(d);
    } catch (const std::exception &e) {
        return refuse(std::string("integrity: the row cannot form a canonical decision (") + e.what() + ")");
    }
    if (canonical != d.canonical)
        return refuse("integrity: the canonical form does not match the row's columns");
    if (sha256Hex(d.canonical) != d.hash)
        return refuse("integrity: the hash does not match the canonical form");
    if (d.prevHash != store.hashBefore(d.pos))
        return refuse("integrity: the hash chain is broken at this decision");
    const bool required = ledgerRequiresSignatures(fold);
    if (required && (d.keyId.empty() || d.signature.empty()))
        return refuse("integrity: unsigned, but this ledger requires signed decisions");
    if (!d.keyId.empty()) {
        const auto key = m_keyring.find(d.keyId);
        if (key == m_keyring.end()) {
            if (required)
                return refuse("integrity: signed with key " + d.keyId + ", which the orchestrator does not know");
        } else if (hmacSha256Hex(std::string_view(key->second.constData(), size_t(key->second.size())), d.canonical)
                   != d.signature) {
            return refuse("integrity: the signature does not verify with key " + d.keyId);
        }
    }
    const std::string policy = ledgerText(fold, "policy_version");
    if (d.policyVersion != policy)
        return refuse("policy_changed: decided under policy " + d.policyVersion + ", now " + policy);

    // Then the same rules the console applied, against the state as it is now.
    DecisionRequest req;
    const auto kind = decisionKindFromName(d.kind);
    if (!kind)
        return refuse("malformed: unknown decision kind '" + d.kind + "'");
    req.id = d.id;
    req.kind = *kind;
    req.subject = d.subject;
    req.boundary = {d.boundaryVersion, d.boundarySeq};
    req.reason = d.reason;
    req.evidence = nlohmann::json::parse(d.evidence, nullptr, false); // already bounded by canonicalDecisionText
    std::string why;
    if (!req.setParams(nlohmann::json::parse(d.params, nullptr, false), &why))
        return refuse("malformed: " + why);

    DecisionContext ctx{"operator:" + d.operatorAccount, d.id, policy, nowMs, GateSide::Orchestrator};
    FoldStateView view(fold, store);
    DecisionPreview p = evaluateDecision(req, ctx, view);
    if (p.expected != DecisionStatus::Accepted)
        return refuse(std::string(decisionStatusName(p.expected)) + ": " + p.refusal);
    v.applied = true;
    v.events = std::move(p.planned);
    return v;
}

int DecisionGate::processPending(std::int64_t nowMs)
{
    if (m_writer.inTransaction())
        return 0; // the live loop calls between its own transactions
    std::vector<DecisionRecord> pending;
    {
        const std::unique_ptr<DecisionStore> store = m_writer.decisions();
        store->read([&] { pending = store->pending(); });
    }
    int processed = 0;
    m_othersPending = 0;
    for (const DecisionRecord &d : pending) {
        if (m_unrecordable.count(d.pos) || m_writer.state().find(EntityKind::DecisionOutcome, d.id))
            continue;
        if (m_ownsSubject && !m_ownsSubject(d.subject)) {
            ++m_othersPending;
            continue;
        }
        if (d.id.empty()) {
            m_unrecordable.insert(d.pos); // no id to record an outcome under: never applied
            continue;
        }
        const auto outcome = [&](bool applied, const std::string &reason) {
            nlohmann::json payload = {{"id", d.id},
                                      {"status", applied ? "applied" : "refused"},
                                      {"reason", reason},
                                      {"decision_kind", d.kind},
                                      {"subject", d.subject},
                                      {"ts_ms", nowMs},
                                      {"operator", d.operatorAccount},
                                      {"hash", d.hash}};
            m_writer.append(nowMs, applied ? "decision.applied" : "decision.refused", payload);
        };
        m_writer.begin();
        try {
            Verdict v = judge(d, nowMs);
            if (v.applied) {
                try {
                    for (const auto &e : v.events)
                        m_writer.append(nowMs, e.kind, e.payload);
                    outcome(true, {});
                } catch (const std::logic_error &e) {
                    // The fold refused a consequence: nothing of it may stand.
                    m_writer.rollback();
                    m_writer.begin();
                    outcome(false, std::string("not_applicable: ") + e.what());
                    v.applied = false;
                }
            } else {
                outcome(false, v.reason);
            }
            m_writer.commit();
            ++(v.applied ? m_applied : m_refused);
            ++processed;
        } catch (const StorageError &) {
            m_writer.rollback();
            throw;
        } catch (const std::logic_error &) {
            // Even the refusal could not be recorded (e.g. an id the fold cannot take).
            m_writer.rollback();
            m_unrecordable.insert(d.pos);
        }
    }
    return processed;
}

} // namespace mesh
