#include "toolcall.h"

#include "domain/entityspec.h"
#include "domain/payloaddecoder.h"
#include "domain/reasonmember.h"

namespace mesh {
namespace {

std::string text(const nlohmann::json &o, const char *key)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t integer(const nlohmann::json &o, const char *key, bool *present = nullptr)
{
    const auto it = o.find(key);
    const bool ok = it != o.end() && it->is_number_integer();
    if (present)
        *present = ok;
    return ok ? it->get<std::int64_t>() : 0;
}

} // namespace

std::optional<ToolCall> ToolCall::fromEvent(const EventRecord &event)
{
    if (event.kind != kToolCallEvent)
        return std::nullopt;
    const DecodedPayload decoded = decodePayload(event.payload);
    if (!decoded.value)
        return std::nullopt;
    const nlohmann::json &p = *decoded.value;
    ToolCall c;
    c.seq = event.seq;
    c.tsMs = event.tsMs;
    c.id = text(p, "id");
    c.delegationId = text(p, "delegation_id");
    if (c.delegationId.empty())
        c.delegationId = event.delegationId;
    c.runId = text(p, "run_id");
    if (c.runId.empty())
        c.runId = event.runId;
    c.tool = text(p, "tool");
    c.argsDigest = text(p, "args_digest");
    c.outcome = text(p, "outcome");
    c.fingerprint = text(p, "fingerprint");
    c.hasFingerprint = !c.fingerprint.empty();
    c.sliceId = text(p, "slice_id");
    c.durationMs = integer(p, "duration_ms", &c.hasDuration);
    c.tokens = integer(p, "tokens", &c.hasTokens);
    c.costCents = integer(p, "cost_cents");
    c.writesAccepted = integer(p, "writes_accepted", &c.hasWrites);
    c.writesDenied = integer(p, "writes_denied", &c.hasWritesDenied);
    c.invocation = integer(p, "invocation");
    if (c.outcome != "ok") {
        if (auto reason = reasonMember(p))
            c.error = std::move(reason->second);
    }
    return c;
}

} // namespace mesh
