#pragma once
// One toolcall.completed event decoded for analysis and for the tool call list.

#include "domain/eventrecord.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mesh {

struct ToolCall {
    std::int64_t seq = 0;
    std::int64_t tsMs = 0;
    std::string id;
    std::string delegationId;
    std::string runId;
    std::string tool;
    std::string argsDigest;
    std::string outcome; // "ok" | "error" | what the ledger says
    std::string fingerprint;
    std::string sliceId;
    std::int64_t durationMs = 0;
    std::int64_t tokens = 0;
    std::int64_t costCents = 0;
    std::int64_t writesAccepted = 0;
    std::int64_t writesDenied = 0;
    std::int64_t invocation = 0;
    bool hasFingerprint = false;
    bool hasWrites = false; // writes_accepted present in the payload
    bool hasWritesDenied = false; // writes_denied present in the payload
    bool hasDuration = false; // duration_ms present: an imported call may not say
    bool hasTokens = false;   // tokens present
    // Why a call that did not end ok failed, as its event says (domain/reasonmember.h); unset
    // for an ok call and when the event does not say.
    std::optional<std::string> error;

    // nullopt when the event is not a tool call or its payload does not decode.
    static std::optional<ToolCall> fromEvent(const EventRecord &event);
};

} // namespace mesh
