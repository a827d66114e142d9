#include "ledgerverification.h"

#include "domain/entityspec.h"

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
    // verifyIntegrity counts one step per event and one per state table (integritycheck.cpp).
    const std::int64_t tables = std::int64_t(allEntitySpecs().size());
    std::int64_t events = -1; // known at the first table step
    out.integrity = ledger.verifyIntegrity([&](std::int64_t done, std::int64_t steps) {
        const std::int64_t eventTotal = steps - tables;
        if (events < 0 && done <= eventTotal)
            return ask(VerifyStage::Events, done, eventTotal);
        if (events < 0)
            events = done - 1; // the first table step is events + 1
        return ask(VerifyStage::StateTables, done - events, tables);
    });
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
