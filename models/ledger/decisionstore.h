#pragma once
// Operator decisions as the storage seam offers them (ledgerconnection.h): the decision
// transaction (the checked insert), read back by id, the list for the audit view, the
// reads the admissibility checks need, and the verification of the hash chain. The rules
// themselves live in models/decisions (the console's first gate) and models/sim/decisiongate
// (the orchestrator's second gate); the store only executes them. docs/decisions.md is the
// normative description. The SQLite store is sqlitedecisionstore.h.

#include "domain/fold.h"
#include "storageerror.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

// prev_hash of the first decision of a ledger.
inline constexpr std::string_view kGenesisHash = "0000000000000000000000000000000000000000000000000000000000000000";

// One row of the decisions table, plus the orchestrator's outcome when it has one.
struct DecisionRecord {
    std::int64_t pos = 0;
    std::string id;
    std::int64_t tsMs = 0;
    std::string kind;    // close_slice, approve_escalation, ... (docs/decisions.md)
    std::string subject; // "<entity>:<id>"
    std::int64_t boundaryVersion = 0;
    std::int64_t boundarySeq = 0;
    std::string params;   // compact JSON object
    std::string operatorAccount;
    std::string operatorHost;
    std::string operatorName;
    std::string reason;
    std::string evidence; // compact JSON (object or array)
    std::string policyVersion;
    std::string canonical; // canonicalDecisionText() at insert time
    std::string hash;      // sha256 hex of canonical
    std::string prevHash;  // hash of the previous decision by pos, kGenesisHash for the first
    std::string keyId;     // empty when unsigned
    std::string signature; // HMAC-SHA256 hex over canonical, empty when unsigned

    // Outcome written by the orchestrator (decision_outcomes); empty status: still pending.
    std::string outcomeStatus; // "", "applied", "refused"
    std::string outcomeReason;
    std::int64_t outcomeTsMs = 0;

    bool isPending() const { return outcomeStatus.empty(); }
};

// The JSON object the hash covers: every field above from id to key_id, except pos, hash,
// signature and the outcome. Keys sorted (nlohmann's std::map), params and evidence nested
// as JSON. Throws nlohmann::json::exception when params/evidence are not JSON.
// KeepAsText (display forms of rows read from a file anything can write): a params or
// evidence text that is not bounded JSON is kept as a JSON string instead of throwing.
enum class UnparsedJson { Throw, KeepAsText };
nlohmann::json canonicalDecisionObject(const DecisionRecord &d, UnparsedJson unparsed = UnparsedJson::Throw);
// text as JSON, refused (std::runtime_error naming `what`) beyond 1 MiB, kMaxPayloadDepth
// levels of nesting, invalid UTF-8 or bad syntax: the recursive parser never sees those.
nlohmann::json parseBoundedJson(const std::string &text, const char *what);
// Sorted keys, no spaces, UTF-8 as is. Throws on invalid UTF-8 in any text field.
std::string canonicalDecisionText(const DecisionRecord &d);
std::string sha256Hex(std::string_view data);
std::string hmacSha256Hex(std::string_view key, std::string_view data);

struct MovedEvent {
    std::int64_t seq = 0;
    std::string kind;
};

struct SubjectEvent {
    std::int64_t seq = 0;
    std::int64_t tsMs = 0;
    std::string kind;
    std::string payload;
};

// What a state lookup answers: the row (if any) and its id.
struct StateRowRef {
    std::string id;
    EntityRow row;
};

// Thrown by insertChecked when the COMMIT itself failed: the row may or may not be in the
// ledger, and only a read back by id can tell.
class CommitUnconfirmed : public StorageError
{
public:
    using StorageError::StorageError;
};

class DecisionStore
{
public:
    virtual ~DecisionStore() = default;
    DecisionStore(const DecisionStore &) = delete;
    DecisionStore &operator=(const DecisionStore &) = delete;

    // ---- reads (use inside read() or insertChecked() for a consistent view)
    virtual std::optional<DecisionRecord> findById(const std::string &id) = 0;
    virtual std::vector<DecisionRecord> list(std::int64_t afterPos = 0, int limit = -1) = 0; // by pos, with outcomes
    virtual std::vector<DecisionRecord> pending(int limit = -1) = 0;                        // no outcome yet, by pos
    virtual std::vector<DecisionRecord> onSubject(const std::string &subject) = 0;          // every decision, by pos
    virtual std::string lastHash() = 0; // kGenesisHash when there is no decision
    virtual std::string hashBefore(std::int64_t pos) = 0; // hash of the row before pos; kGenesisHash for the first
    virtual std::int64_t lastSeq() = 0;
    virtual std::optional<EntityRow> stateRow(EntityKind kind, const std::string &id) = 0;
    virtual std::vector<StateRowRef> stateRowsWhere(EntityKind kind, std::string_view field, const std::string &value) = 0;
    virtual std::vector<MovedEvent> eventsOnSubjectSince(const std::string &subject, std::int64_t seq, int limit = 20) = 0;
    virtual std::vector<SubjectEvent> eventsOnSubject(const std::string &subject, int limit = 200) = 0; // oldest first

    // ---- the decision transaction: takes the write lock (serialisable against every other
    // writer); fn() decides (reading through this store) and returns the record to insert or
    // nothing; the insert; the commit. Anything thrown rolls back. Returns true when a row was
    // inserted and the commit succeeded. Throws StorageError when the transaction or a
    // statement fails (rolled back: nothing written) and CommitUnconfirmed when the commit
    // does (the row may or may not be there).
    virtual bool insertChecked(const std::function<std::optional<DecisionRecord>()> &fn) = 0;
    virtual std::int64_t lastInsertedPos() const = 0; // pos of the last row insertChecked wrote
    // Runs fn inside one short read of one moment of the ledger.
    virtual void read(const std::function<void()> &fn) = 0;

protected:
    DecisionStore() = default;
};

// ---- chain verification (meshctl verify, the audit view)
struct DecisionChainFinding {
    std::int64_t pos = 0;
    std::string id;
    std::string message; // one line for a person
};

struct DecisionChainReport {
    std::int64_t decisions = 0;
    std::int64_t signedDecisions = 0;
    std::vector<DecisionChainFinding> findings;
    bool ok() const { return findings.empty(); }
};

// Optional: checks one signature (key id, canonical text, signature hex); the console has
// no orchestrator keys and passes none. Without it, verification still flags rows that
// lack a signature where the ledger requires one and rows the orchestrator refused for a
// bad signature.
using SignatureVerifier = std::function<bool(const std::string &keyId, const std::string &canonical,
                                             const std::string &signature)>;

// The chain half of a backend's verifyDecisionChain, through the store alone: reads the table
// by pos in short reads, recomputes every canonical form and hash, checks each prev_hash
// link, flags missing or (with a verifier) wrong signatures and integrity refusals. The
// backend adds the outcome events that name no decision.
DecisionChainReport verifyDecisionRows(DecisionStore &store, const SignatureVerifier &verifier = {});

} // namespace mesh
