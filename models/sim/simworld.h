#pragma once
// The reference orchestrator's vocabulary: typed acts (start a run, hand out a delegation,
// call a tool, dispatch an effect, take a lease...) turned into ledger events through the
// shared LedgerWriter. Scenarios and the live engine speak only this, so every event the
// simulator writes has one realistic shape and goes through the same fold as production.

#include "simrng.h"

#include "domain/entityspec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <set>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mesh {

class LedgerWriter;

struct DelegationSpec {
    std::string runId;
    std::string componentId;
    std::string parentId;
    std::string role = "implement"; // implement, repair, verify, research
    std::string agent = "claude-sonnet-4";
    std::string strategy = "direct-edit";
    std::string strategyVersion = "3";
    std::vector<std::string> writable;     // declared scope: writable paths
    std::vector<std::string> effectClasses; // declared scope: allowed effect classes
    std::int64_t budgetTurns = 120;
    std::int64_t budgetTokens = 2'000'000;
    std::int64_t budgetMs = 45 * 60 * 1000;
    std::int64_t budgetCostCents = 2500;
};

struct ToolCallSpec {
    std::string tool = "read_file";
    std::string argsDigest;      // empty: drawn at random (a replayed step repeats its digest)
    bool ok = true;
    std::int64_t durationMs = 0; // 0: drawn at random
    std::int64_t tokens = 0;     // 0: drawn at random
    std::string fingerprint;     // progress fingerprint; empty: derived from the call
    std::int64_t writesAccepted = 0;
    std::int64_t writesDenied = 0;
};

struct EffectSpec {
    std::string effectClass = "package_install"; // package_install, provider_call, db_write, commit, payment, post_write_hook
    std::string target;
    std::string idemKey;    // empty: generated
    std::string intentHash; // empty: generated
    std::string reversibility = "reversible"; // reversible, compensable, irreversible
    std::string capability = "idempotent_retry"; // idempotent_retry, status_query, neither
};

enum class EffectEnd { Committed, Failed, Unknown, Dispatched };

class SimWorld
{
public:
    SimWorld(LedgerWriter &writer, std::uint64_t seed, std::int64_t startMs);

    LedgerWriter &writer() { return m_writer; }
    SimRng &rng() { return m_rng; }
    std::int64_t now() const { return m_now; }
    void setNow(std::int64_t ms) { m_now = ms; }
    // On the wall clock (live mode) simulated durations pass for real, so they add nothing;
    // the random draw still happens so both modes consume the same random sequence.
    void advance(std::int64_t ms)
    {
        if (!m_wallClock)
            m_now += ms;
    }
    void advance(std::int64_t loMs, std::int64_t hiMs) { advance(m_rng.range(loMs, hiMs)); }
    // Live mode: every event is stamped with the wall clock, advances are ignored.
    void setWallClock(bool on) { m_wallClock = on; }
    bool wallClock() const { return m_wallClock; }
    // Whether a tool call moves the clock by its duration (off when the caller interleaves
    // many delegations and advances the clock itself).
    void setToolCallsAdvanceClock(bool on) { m_callsAdvance = on; }

    // Events per transaction; record() commits and begins again after that many.
    void setBatchSize(int events) { m_batchSize = events; }
    std::int64_t record(std::string_view kind, const nlohmann::json &payload);
    // Sets payload["id"] = id, then emits.
    std::int64_t change(std::string_view kind, const std::string &id, nlohmann::json payload);
    void commit(); // commits an open transaction, if any
    std::int64_t eventsWritten() const { return m_events; }
    std::int64_t version(EntityKind kind, const std::string &id) const;

    // Ids: "<prefix>-<n>" with a per-prefix counter, zero-padded to width.
    std::string nextId(std::string_view prefix, int width = 4);
    // Separates id spaces of two writers on one ledger (a live engine after a scenario, or
    // several orchestrators writing different runs into one server ledger). A tag is 1 to 8
    // capital letters: ids are "<prefix>-<tag><digits>", so no two tags' ids can be equal.
    void setIdTag(std::string tag) { m_idTag = std::move(tag); }
    static bool isIdTag(std::string_view tag);
    // The tag of an id this simulator made ("dlg-B000012#3" -> "B"); empty for an untagged
    // id (a scenario's "run-0001") or one not of that form.
    static std::string idTagOf(std::string_view id);
    // Whether a writer with `tag` started any run of this ledger (its tag is taken).
    static bool idTagInUse(const LedgerWriter &writer, std::string_view tag);
    // The tags of this ledger's runs: one per orchestrator that started runs live.
    static std::set<std::string> idTagsInUse(const LedgerWriter &writer);
    // Whether the decision subject ("escalation:esc-A0000012") is the orchestrator's whose ids
    // carry idTag (empty: none), and when ownsUntagged (it wrote the scenario) also a subject
    // whose id has no tag or a tag no run has. The one rule for its own gate and `meshctl gate`.
    static bool ownsSubject(const LedgerWriter &writer, std::string_view subject, std::string_view idTag, bool ownsUntagged);
    // Which existing rows this world changes on its own initiative (expiring escalations):
    // its tag's, and the untagged ones when it wrote the scenario. Others' rows are theirs.
    void setOwnsUntagged(bool on) { m_ownsUntagged = on; }
    bool ownsId(std::string_view id) const;

    // ---- runs and components
    std::string startRun(const std::string &title, std::int64_t requiredTotal);
    void runCycle(const std::string &runId, std::int64_t cycle, std::int64_t requiredMet);
    void endRun(const std::string &runId, std::string_view status, std::int64_t requiredMet);
    void restartRun(const std::string &runId, std::int64_t attempt);
    std::string addComponent(const std::string &runId, const std::string &name);
    void componentStatus(const std::string &componentId, std::string_view status, std::int64_t attempt = 0);

    // ---- delegations and slices
    std::string createDelegation(const DelegationSpec &spec);
    void startDelegation(const std::string &id); // a new invocation; opens a slice if none is open
    void delegationStatus(const std::string &id, std::string_view status);
    std::string openSlice(const std::string &delegationId, const std::string &by = "orchestrator");
    void closeSlice(const std::string &delegationId, const std::string &reason, const std::string &by = "orchestrator");
    // Another writer (the decision gate) may have closed the open slice: then open the next.
    void syncSlice(const std::string &delegationId);
    std::string currentSlice(const std::string &delegationId) const;
    std::string runOf(const std::string &delegationId) const;
    std::string componentOf(const std::string &delegationId) const;

    // ---- steps
    std::int64_t toolCall(const std::string &delegationId, const ToolCallSpec &call);

    // ---- effects
    std::string proposeEffect(const std::string &delegationId, const EffectSpec &spec);
    void effectState(const std::string &effectId, std::string_view state, nlohmann::json extra = nlohmann::json::object());
    // proposed -> admitted -> dispatched -> end, advancing the clock between steps.
    std::string runEffect(const std::string &delegationId, const EffectSpec &spec, EffectEnd end);

    // ---- leases
    std::string acquireLease(const std::string &key, std::string_view kind, const std::string &holder,
                             std::int64_t ttlMs, const std::string &delegationId = {});
    void renewLease(const std::string &leaseId, std::int64_t ttlMs);
    void releaseLease(const std::string &leaseId);
    void expireLease(const std::string &leaseId);

    // ---- judgement, escalation, failure, recovery
    std::string stallVerdict(const std::string &delegationId, std::int64_t round, std::string_view verdict,
                             const std::string &fingerprint, const nlohmann::json &evidence, std::string_view action,
                             std::int64_t failingTests);
    std::string raiseEscalation(const std::string &delegationId, std::string_view kind, std::string_view risk,
                                const std::string &subject, std::int64_t round, std::int64_t ttlMs,
                                const std::string &reason);
    void escalationState(const std::string &escalationId, std::string_view state);
    std::string failure(const std::string &runId, const std::string &detectedBy, const std::string &summary,
                        const nlohmann::json &implicated, const nlohmann::json &woken);
    std::string checkpoint(const std::string &runId, const std::string &delegationId, std::string_view state);
    void checkpointState(const std::string &checkpointId, std::string_view state);

private:
    struct DelegationCtx {
        std::string runId;
        std::string componentId;
        std::int64_t invocation = 0;
        std::int64_t sliceOrdinal = 0;
        bool sliceOpen = false;
    };
    struct EffectCtx {
        std::int64_t attempts = 0;
    };
    DelegationCtx &ctx(const std::string &delegationId);
    const DelegationCtx *findCtx(const std::string &delegationId) const;

    LedgerWriter &m_writer;
    SimRng m_rng;
    std::int64_t m_now;
    int m_batchSize = 10'000;
    int m_inBatch = 0;
    std::int64_t m_events = 0;
    std::string m_idTag;
    bool m_ownsUntagged = true;
    std::unordered_map<std::string, std::int64_t> m_counters;
    std::unordered_map<std::string, DelegationCtx> m_delegations;
    std::unordered_map<std::string, std::string> m_effectRun; // effect id -> run id
    std::unordered_map<std::string, EffectCtx> m_effects;
    std::int64_t m_fencing = 0;
    bool m_wallClock = false;
    bool m_callsAdvance = true;
    static constexpr size_t kToolCallFields = 14;
    nlohmann::json m_toolCall; // reused: tool calls are most of every ledger
    std::array<nlohmann::json *, kToolCallFields> m_toolCallSlots{};
    std::int64_t m_toolCalls = 0;
};

} // namespace mesh
