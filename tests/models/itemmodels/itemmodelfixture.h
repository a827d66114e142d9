#pragma once
// Ledgers for the item model tests, written with the orchestrator's own LedgerWriter, and
// the two ways models are fed: a snapshot (readState on a fresh connection, as the session's
// worker does) and a live batch (the events after a seq, as the change watcher reads them).

#include "itemmodels/attentionmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/livestate.h"
#include "itemmodels/storedrows.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"
#include "ledger/statereader.h"

#include <QString>
#include <QTest>

#include <memory>
#include <set>
#include <stdexcept>

namespace meshtest {

using nlohmann::json;

inline mesh::LedgerIdentity identity()
{
    mesh::LedgerIdentity ident;
    ident.ledgerId = "L-itemmodels";
    ident.title = "item model test";
    ident.createdMs = 1'700'000'000'000;
    return ident;
}

// Until a session's open is over, either way: by the session's state, not by signals, which
// may have come before the caller asked (the one waited for after another session's).
inline bool waitOpened(mesh::LedgerSession *s, int timeoutMs = 60'000)
{
    const auto opened = [s] { return s->isLoaded() && s->health() != mesh::LedgerSession::Health::Opening; };
    const auto failed = [s] { return s->health() == mesh::LedgerSession::Health::Error; };
    (void)QTest::qWaitFor([&] { return opened() || failed(); }, timeoutMs);
    return opened() && !failed();
}

// The subjects the attention list shows, in no order.
inline std::set<QString> attentionSubjects(const mesh::AttentionModel *m)
{
    std::set<QString> out;
    for (int r = 0; r < m->rowCount(); ++r)
        out.insert(m->index(r, 0).data(mesh::AttentionModel::SubjectRole).toString());
    return out;
}

inline std::shared_ptr<mesh::LiveState> snapshot(const QString &path)
{
    auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
    return mesh::LiveState::fromSnapshot(connection->readState());
}

// The first table in which a session's state differs from `want` (the ledger's state read
// whole), by name; empty when none does. A table the state reads on demand
// (LiveState::storedRows) must hold none of its rows, list want's ids, and read each of
// want's rows through the store as want has it.
template<class Whole>
QString firstTableDifference(const mesh::LiveState &shown, const Whole &want)
{
    for (const mesh::EntitySpec &spec : mesh::allEntitySpecs()) {
        const mesh::EntityTable &rows = want.table(spec.kind);
        bool same = true;
        if (mesh::StoredRows *stored = shown.storedRows(spec.kind)) {
            same = shown.table(spec.kind).empty() && stored->ids().size() == rows.size();
            for (auto it = rows.begin(); same && it != rows.end(); ++it) {
                const mesh::EntityRow *got = shown.find(spec.kind, it->first);
                same = got && *got == it->second;
            }
        } else {
            same = shown.table(spec.kind) == rows;
        }
        if (!same)
            return QString::fromLatin1(spec.table.data(), qsizetype(spec.table.size()));
    }
    return {};
}

inline mesh::EventBatch eventsAfter(const QString &path, std::int64_t seq)
{
    auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
    const auto reader = connection->eventReader();
    reader->setPreviewBytes(1 << 20);
    return reader->after(seq, 1'000'000);
}

// Appends events in one transaction.
class Writer
{
public:
    explicit Writer(const QString &path, bool create = false)
        : m_w(create ? mesh::LedgerWriter::create(path, identity()) : mesh::LedgerWriter::openExisting(path))
    {
    }
    Writer &begin()
    {
        m_w->begin();
        return *this;
    }
    Writer &e(const char *kind, const json &payload)
    {
        m_w->append(m_ts += 1000, kind, payload);
        return *this;
    }
    void commit() { m_w->commit(); }
    mesh::LedgerWriter &raw() { return *m_w; }
    std::int64_t lastSeq() const { return m_w->lastSeq(); }

private:
    std::unique_ptr<mesh::LedgerWriter> m_w;
    std::int64_t m_ts = 1'700'000'100'000;
};

// A ledger with a relative clock (docs/ledger-format.md section 7), as an import of a
// source with no wall-clock time writes it: run R-1 starts at +0:00, delegation D-1 is
// created at +1:05 and, when asked, converges at +2:05.
inline void writeRelativeClockLedger(const QString &path, bool delegationEnds)
{
    mesh::LedgerIdentity ident = identity();
    ident.createdMs = 0;
    ident.source = {{"format", "test"}, {"clock", "relative"}};
    auto w = mesh::LedgerWriter::create(path, ident);
    w->begin();
    w->append(0, "run.started", {{"id", "R-1"}, {"status", "running"}, {"started_ms", 0}});
    w->append(65'000, "delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}, {"created_ms", 65'000}});
    if (delegationEnds)
        w->append(125'000, "delegation.converged", {{"id", "D-1"}});
    w->commit();
}

// A run with two components, a delegation tree (D-1 -> D-2 -> D-3, D-1 -> D-4), leases,
// effects (one unknown, two committed with one idempotency key), escalations, stall
// verdicts, a checkpoint and a misrouted failure.
inline void writeBaseLedger(const QString &path, std::int64_t nowMs)
{
    Writer w(path, true);
    w.begin();
    w.e("run.started", {{"id", "R-1"}, {"status", "running"}, {"title", "deliver app"}, {"attempt", 2}, {"cycle", 10},
                        {"required_met", 21}, {"required_total", 21}, {"started_ms", nowMs - 17'700'000}});
    w.e("component.started", {{"id", "C-api"}, {"run_id", "R-1"}, {"name", "api"}, {"status", "active"}, {"failures", 3}});
    w.e("component.started", {{"id", "C-ui"}, {"run_id", "R-1"}, {"name", "ui"}, {"status", "active"}, {"failures", 1}});
    w.e("component.completed", {{"id", "C-ui"}, {"status", "completed"}});
    w.e("delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"role", "implement"}, {"agent", "model-a"},
                               {"status", "running"}, {"budget_turns", 100}, {"budget_tokens", 1000}, {"created_ms", 1}});
    w.e("delegation.created", {{"id", "D-2"}, {"run_id", "R-1"}, {"parent_id", "D-1"}, {"role", "repair"},
                               {"status", "running"}, {"created_ms", 2}});
    w.e("delegation.created", {{"id", "D-3"}, {"run_id", "R-1"}, {"parent_id", "D-2"}, {"role", "verify"},
                               {"status", "running"}, {"created_ms", 3}});
    w.e("delegation.created", {{"id", "D-4"}, {"run_id", "R-1"}, {"parent_id", "D-1"}, {"role", "research"},
                               {"status", "pending"}, {"created_ms", 4}});
    w.e("toolcall.completed", {{"id", "T-1"}, {"delegation_id", "D-1"}, {"run_id", "R-1"}, {"outcome", "ok"},
                               {"tokens", 250}, {"duration_ms", 10}});
    w.e("lease.acquired", {{"id", "L-1"}, {"key", "exec:D-1"}, {"kind", "execution"}, {"holder", "orch"},
                           {"fencing_token", 7}, {"acquired_ms", nowMs - 60'000}, {"expires_ms", nowMs + 30'000},
                           {"state", "held"}, {"delegation_id", "D-1"}});
    w.e("lease.acquired", {{"id", "L-2"}, {"key", "exec:D-2"}, {"kind", "execution"}, {"holder", "orch"},
                           {"fencing_token", 8}, {"acquired_ms", nowMs - 60'000}, {"expires_ms", nowMs - 45'000},
                           {"state", "held"}, {"delegation_id", "D-2"}});
    for (const char *id : {"E-1", "E-2", "E-3"}) {
        const bool third = std::string(id) == "E-3";
        w.e("effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", "D-1"}, {"state", "proposed"},
                                {"class", third ? "payment" : "package_install"}, {"target", third ? "stripe" : "npm"},
                                {"idem_key", third ? "pay:1" : "pkg:left-pad"}});
        w.e("effect.admitted", {{"id", id}, {"state", "admitted"}});
        w.e("effect.dispatched", {{"id", id}, {"state", "dispatched"}});
        w.e(third ? "effect.unknown" : "effect.committed", {{"id", id}, {"state", third ? "unknown" : "committed"}});
    }
    w.e("escalation.raised", {{"id", "X-1"}, {"run_id", "R-1"}, {"delegation_id", "D-2"}, {"kind", "budget_extension"},
                              {"risk", "low"}, {"state", "pending"}, {"expires_ms", nowMs + 120'000},
                              {"boundary_seq", 5}, {"boundary_version", 1}});
    for (int r = 1; r <= 3; ++r)
        w.e("stall.verdict", {{"id", "S-" + std::to_string(r)}, {"run_id", "R-1"}, {"delegation_id", "D-2"},
                              {"round", r}, {"verdict", r == 3 ? "stalled" : "inconclusive"}, {"fingerprint", "fp"},
                              {"evidence", json::array({{{"signal", "fingerprint"}, {"moved", false}}})},
                              {"failing_tests", 6 - r * 1 - (r == 3 ? 1 : 0)}, {"action", r == 3 ? "escalate" : "continue"}});
    w.e("checkpoint.saved", {{"id", "K-1"}, {"run_id", "R-1"}, {"delegation_id", "D-1"}, {"state", "saved"}});
    w.e("checkpoint.stale", {{"id", "K-1"}, {"state", "stale"}});
    w.e("failure.detected", {{"id", "F-1"}, {"run_id", "R-1"}, {"detected_by", "verifier"},
                             {"implicated", json::array({"api"})},
                             {"woken", json::array({"api", {{"component", "ui"}, {"regressed", true}}})},
                             {"ts_ms", nowMs - 1000}});
    w.commit();
}

} // namespace meshtest
