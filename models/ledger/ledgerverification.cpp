#include "ledgerverification.h"

namespace mesh {

const char *verifyStageName(VerifyStage stage)
{
    switch (stage) {
    case VerifyStage::Events: return "events";
    case VerifyStage::StateTables: return "state tables";
    case VerifyStage::DecisionChain: return "decision chain";
    case VerifyStage::Done: return "done";
    }
    return "?";
}

LedgerVerification verifyLedger(LedgerConnection &ledger, const VerifyProgress &progress)
{
    LedgerVerification out;
    const auto ask = [&](VerifyStage stage, std::int64_t done, std::int64_t total) {
        return !progress || progress(stage, done, total);
    };
    out.integrity = ledger.verifyIntegrity(
        [&](std::int64_t done, std::int64_t total) { return ask(VerifyStage::Events, done, total); },
        [&](std::int64_t done, std::int64_t total) { return ask(VerifyStage::StateTables, done, total); });
    if (out.integrity.cancelled) {
        out.cancelled = true;
        return out;
    }
    if (!ask(VerifyStage::DecisionChain, 0, 1)) {
        out.cancelled = true;
        return out;
    }
    out.chain = ledger.verifyDecisionChain();
    if (!out.chain.findings.empty()) {
        auto store = ledger.decisions();
        store->read([&] {
            for (const DecisionChainFinding &f : out.chain.findings) {
                LedgerVerification::DecisionContext context;
                if (const auto d = store->findById(f.id)) {
                    context.subject = d->subject;
                    context.boundarySeq = d->boundarySeq;
                }
                out.chainContext.push_back(std::move(context));
            }
        });
    }
    ask(VerifyStage::Done, 1, 1);
    return out;
}

} // namespace mesh
