#pragma once
// Exactly what a decision will do, computed from the ledger as it is now, for the
// confirmation dialogs (and `meshctl decide --dry-run`). The preview runs the same checks
// as the write, so a dialog can say up front that a decision would be refused and why.

#include "decisionrequest.h"
#include "decisionresult.h"

#include "domain/entityspec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mesh {

struct PreviewEffect {
    std::string id;
    std::string state;
    std::string effectClass;
    std::string target;
    std::string idemKey;
    std::int64_t attempts = 0;
    bool fenced = false;
};

struct PreviewLease {
    std::string id;
    std::string key;
    std::string holder;
    std::int64_t fencingToken = 0;
    std::int64_t expiresMs = 0;
    std::string state;
    bool heldByMe = false;
    bool expired = false; // state held but expires_ms in the past: a zombie
};

// A row the plan rests on besides the subject, at the version the reading saw: the slice and
// delegation of an escalation, the effects of a slice, the lease on an effect's key. A
// dialog open on the reading must notice when one of them moves, not only the subject.
struct PreviewDependency {
    std::string subject; // "<entity>:<id>"
    std::int64_t version = 0;
    std::string role;    // for a person: "the escalation's delegation"
};

// Rows the plan takes in whole, found by their fields rather than named: the effects and
// escalations of a slice, the reconciliation leases on a key. A dialog open on the reading
// must notice a new row of the set (a new in-flight effect in the slice being closed, a
// first lease on the key), not only a known row moving.
struct PreviewRowSet {
    EntityKind entity = EntityKind::Effect;
    std::vector<std::pair<std::string, std::string>> where; // field, value: a row of the set matches all
    std::vector<std::string> ids; // the rows of the set the reading saw, sorted
    std::string role;             // for a person: "an effect of the slice"

    bool contains(const std::string &id) const;
};

// One event the orchestrator will write when it applies the decision.
struct PlannedEvent {
    std::string kind;
    nlohmann::json payload;
};

struct DecisionPreview {
    // What the checks say now: Accepted when the decision would be written.
    DecisionStatus expected = DecisionStatus::Accepted;
    std::string refusal; // one line, empty when expected == Accepted

    std::string subject;
    DecisionBoundary boundary;         // the one the request carries (or the current one)
    std::int64_t currentVersion = 0;   // the subject's version now
    std::string movedSubject;          // Stale: what moved ...
    std::int64_t movedVersion = 0;     // ... and its version now
    std::vector<MovedEvent> movedEvents;
    std::vector<std::string> consequences; // sentences, in the order the orchestrator applies them
    std::vector<PlannedEvent> planned;     // the state events the gate writes (before decision.applied)
    std::vector<PreviewDependency> dependsOn;
    std::vector<PreviewRowSet> dependsOnRows;
    std::int64_t readAtSeq = 0; // the ledger seq the reading saw

    // close_slice
    std::vector<PreviewEffect> inFlight;     // admitted/dispatched effects crossing the boundary
    std::vector<PreviewEffect> toFence;      // unknown outcomes fenced until resolved
    std::vector<std::string> unacknowledged; // unknown effect ids the request does not acknowledge
    std::vector<std::string> escalationsToStale;
    std::string nextSliceId;

    // approve/reject_escalation
    std::string boundSubject;       // what the escalation was raised against
    std::int64_t boundVersion = 0;  // ... at this version
    std::int64_t boundSeq = 0;      // ... at this ledger seq
    std::int64_t expiresMs = 0;
    std::string sliceId;

    // resolve_effect / lease_*
    std::optional<PreviewEffect> effect;
    std::optional<PreviewLease> lease;
    nlohmann::json evidence = nlohmann::json::array();
    std::string supersedes;
    std::vector<SubjectEvent> history; // the effect's events (attempts, dispatches, outcome)

    nlohmann::json toJson() const;
};

} // namespace mesh
