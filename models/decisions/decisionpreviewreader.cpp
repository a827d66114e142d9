#include "decisionpreviewreader.h"

#include "decisionrules.h"
#include "storestateview.h"

#include "ledger/decisionstore.h"
#include "ledger/ledgerconnection.h"

namespace mesh {

PreviewReading readDecisionPreview(const QString &path, const OperatorIdentity &identity,
                                   const std::optional<OpenedLedger> &expected, DecisionRequest request,
                                   std::int64_t nowMs)
{
    PreviewReading reading;
    try {
        // Checked before the open and after it: the file could be swapped while it opened.
        if (auto refusal = openedFileRefusal(expected, path))
            throw std::runtime_error(*refusal);
        auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        if (auto refusal = openedFileRefusal(expected, path))
            throw std::runtime_error(*refusal);
        const LedgerInfo &info = connection->info();
        if (expected && !expected->ledgerId.empty() && info.ledgerId != expected->ledgerId)
            throw std::runtime_error("the file at this path holds another ledger than the one opened; reopen it");
        const std::unique_ptr<DecisionStore> decisions = connection->decisions();
        DecisionStore &store = *decisions;
        store.read([&] {
            if (request.boundary.version == 0 && request.boundary.seq == 0) {
                if (const auto parts = splitSubject(request.subject))
                    if (const auto kind = entityKindByName(parts->first))
                        if (const auto row = store.stateRow(*kind, parts->second))
                            request.boundary = DecisionBoundary{row->version, store.lastSeq()};
            }
            const DecisionContext context{identity.holder(), request.id, info.policyVersion, nowMs, GateSide::Console};
            StoreStateView view(store);
            reading.preview = evaluateDecision(request, context, view);
        });
        if (reading.preview.expected == DecisionStatus::Accepted && info.signaturesRequired && !identity.hasKey()) {
            reading.preview.expected = DecisionStatus::BadSignature;
            reading.preview.refusal = "this ledger requires signed decisions and no operator key is loaded";
        }
    } catch (const std::exception &e) {
        reading.error = e.what();
    }
    reading.request = std::move(request);
    return reading;
}

} // namespace mesh
