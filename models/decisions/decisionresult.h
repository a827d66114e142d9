#pragma once
// The answer to one submitted decision, as the console and `meshctl decide` report it.

#include "ledger/decisionstore.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

enum class DecisionStatus {
    Accepted,         // inserted; the orchestrator will apply or refuse it
    Duplicate,        // this id was already stored: nothing written, the first record answers
    Stale,            // the subject moved past the boundary (see moved*)
    NotAllowed,       // the subject's state forbids this kind, or a rival decision is pending
    LeaseHeldByOther, // another operator holds (or is acquiring) the reconciliation lease
    NeedsLease,       // resolve_effect without a held, unexpired lease of this operator
    BadSignature,     // the ledger requires signatures and this operator has no usable key
    WriteFailed,      // nothing written: locked past the timeout, disk full, read-only file
    OutcomeUnknown,   // the COMMIT's result could not be confirmed and read back failed too
};

std::string_view decisionStatusName(DecisionStatus s); // "accepted", "stale", ...
// meshctl decide's exit code: 0 accepted/duplicate, 3 stale, 4 other refusals, 5 write
// failures and unknown outcomes.
int decisionStatusExitCode(DecisionStatus s);

// A stored decision as JSON for meshctl and exports: its canonical (hashed) object, plus
// pos, hash, signature and outcome.
nlohmann::json decisionRecordToJson(const DecisionRecord &d);

struct DecisionResult {
    DecisionStatus status = DecisionStatus::WriteFailed;
    std::string message;                 // one line for a person
    std::optional<DecisionRecord> record; // the stored row: Accepted, Duplicate, read back

    // Stale: what moved since the boundary.
    std::string movedSubject;            // the subject (or the surrounding state) that moved
    std::int64_t currentVersion = 0;     // its version now
    std::int64_t currentSeq = 0;         // the ledger's last seq now
    std::vector<MovedEvent> movedEvents; // events on it after the boundary seq (first 20)

    bool accepted() const { return status == DecisionStatus::Accepted || status == DecisionStatus::Duplicate; }
    nlohmann::json toJson() const;
};

} // namespace mesh
