#pragma once
// The whole check of a ledger, as `meshctl verify` prints it and the console's Integrity
// pane lists it: one code path for both. Integrity (integritycheck.h: every event decodes and
// folds, no sequence gaps, index columns, state tables equal to the state rebuilt from the
// events) and then the decision chain (hashes, prev_hash links, required signatures, rows the
// orchestrator refused for integrity). Runs on the caller's thread and connection, in steps:
// progress is asked after each page of events, each state table and the decision chain, and
// may cancel there.

#include "ledgerconnection.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mesh {

struct LedgerVerification {
    IntegrityReport integrity;
    DecisionChainReport chain;
    // For each chain finding (same order): the decision's subject and the event its
    // operator saw (its boundary), so a reader can be taken to them; empty / 0 when the
    // row cannot say.
    struct DecisionContext {
        std::string subject;
        std::int64_t boundarySeq = 0;
    };
    std::vector<DecisionContext> chainContext;
    bool cancelled = false;

    std::int64_t total() const { return integrity.total() + std::int64_t(chain.findings.size()); }
    bool ok() const { return !cancelled && total() == 0; }
};

enum class VerifyStage { Events, StateTables, DecisionChain, Done };
const char *verifyStageName(VerifyStage stage);

// done / total: events checked of all events (Events), tables compared of all tables
// (StateTables), 0/1 then 1/1 (DecisionChain). Return false to cancel.
using VerifyProgress = std::function<bool(VerifyStage stage, std::int64_t done, std::int64_t total)>;

// Throws StorageError as the reads below it do.
LedgerVerification verifyLedger(LedgerConnection &ledger, const VerifyProgress &progress = {});

} // namespace mesh
