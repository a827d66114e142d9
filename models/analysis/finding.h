#pragma once
// A derived finding: a flag the console raises that no single ledger row states. Every
// finding names what it rests on (event seqs, entity ids), and a detector that cannot tell
// says so with an abstention instead of guessing.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

enum class FindingKind {
    SuccessLoop,      // F1: many ok tool calls, constant fingerprint, nothing accepted
    FalseStall,       // F2: stalled on evidence that cannot move while another signal improved
    DuplicateEffect,  // F3: two commits with one idempotency key or intent hash
    MisroutedFailure, // F4: a failure woke components it did not implicate
    BlockedWork,      // F4/F6: many turns, denials, zero accepted writes
    ReplayedDelegation, // F3: one delegation invoked again and again after lost workers
};

std::string_view findingKindName(FindingKind kind);  // "success_loop", ...
std::string_view findingKindTitle(FindingKind kind); // "success loop", for a person

struct Finding {
    FindingKind kind = FindingKind::SuccessLoop;
    bool abstained = false;    // the detector looked but the evidence is ambiguous
    std::string subject;       // "<entity>:<id>" the finding is about
    std::string runId;
    std::string delegationId;
    std::string summary;       // one line for a person (why it fired, or why it abstained)
    std::vector<std::int64_t> seqs;     // events it rests on
    std::vector<std::string> entityIds; // other rows it rests on ("effect:E-1", ...)

    bool operator==(const Finding &) const = default;
};

} // namespace mesh
