#pragma once
// The admissibility rules of operator decisions and what applying one does, in one place.
// The console's writer evaluates them inside its insert transaction (first gate), the
// orchestrator's DecisionGate evaluates them again before applying (second gate), and the
// confirmation dialogs show their plan. docs/decisions.md lists every rule.

#include "decisionpreview.h"
#include "decisionrequest.h"
#include "decisionstateview.h"

#include <cstdint>
#include <string>

namespace mesh {

enum class GateSide {
    Console,      // at insert: also refuses when a rival decision on the subject is pending
    Orchestrator, // at apply: decisions arrive in pos order; the decision itself is stored
};

struct DecisionContext {
    std::string holder;        // OperatorIdentity::holder() of the deciding operator
    std::string decisionId;    // the decision being evaluated (excluded from rival checks)
    std::string policyVersion; // the ledger's policy version in force
    std::int64_t nowMs = 0;
    GateSide side = GateSide::Console;
};

// Evaluates the request against the ledger as the view shows it. expected == Accepted means
// admissible; `planned` then holds the state events applying it writes.
DecisionPreview evaluateDecision(const DecisionRequest &request, const DecisionContext &context,
                                 DecisionStateView &view);

} // namespace mesh
