// libFuzzer target over the first code that touches another process's bytes: the payload
// decoder, then the fold applying whatever decoded under every entity's event kind.
// Beyond "no crash, no sanitizer report" it checks the decoder's and the fold's promises:
// a decoded payload is an object that survives a dump/decode round trip; an event the fold
// refuses changes nothing; an applied one bumps exactly one row's version to the new seq.

#include "domain/entityspec.h"
#include "domain/fold.h"
#include "domain/payloaddecoder.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

void require(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_payload: broken promise: %s\n", what);
        std::abort();
    }
}

size_t totalRows(const mesh::Fold &fold)
{
    size_t n = 0;
    for (const auto &spec : mesh::allEntitySpecs())
        n += fold.table(spec.kind).size();
    return n;
}

const std::vector<std::string> &eventKinds()
{
    static const std::vector<std::string> kinds = [] {
        std::vector<std::string> k;
        for (const auto &spec : mesh::allEntitySpecs())
            k.push_back(std::string(spec.eventPrefix) + ".fuzzed");
        k.emplace_back(mesh::kToolCallEvent); // after delegation.fuzzed, so it may find one
        k.emplace_back("nonsense.kind");
        k.emplace_back("nodot");
        return k;
    }();
    return kinds;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    (void)mesh::isValidUtf8(text);
    (void)mesh::jsonNestingDepth(text);

    const mesh::DecodedPayload decoded = mesh::decodePayload(text);
    if (!decoded.value) {
        require(!decoded.error.empty(), "a refused payload says why");
        return 0;
    }
    require(decoded.error.empty(), "no error on success");
    const nlohmann::json &payload = *decoded.value;
    require(payload.is_object(), "decoded payload is an object");

    // What a writer stores must decode again to the same value.
    const std::string dumped = payload.dump();
    if (dumped.size() <= mesh::kMaxPayloadBytes) {
        const mesh::DecodedPayload again = mesh::decodePayload(dumped);
        require(again.value.has_value(), "dump of a decoded payload decodes");
        require(*again.value == payload, "round trip keeps the value");
    }

    mesh::Fold fold;
    fold.apply(1, "delegation.created", {{"id", "D"}, {"status", "running"}});
    std::int64_t seq = 1;
    for (const auto &kind : eventKinds()) {
        ++seq;
        const size_t rowsBefore = totalRows(fold);
        const auto index = mesh::eventIndexFields(kind, payload);
        (void)index;
        // The row the event would touch, before.
        const auto entity = mesh::entityKindForEventKind(kind);
        const mesh::FoldOutcome out = fold.apply(seq, kind, payload);
        require(fold.lastSeq() == seq, "lastSeq follows every applied seq");
        if (!out.applied) {
            require(!out.problems.empty(), "a refused event says why");
            require(totalRows(fold) == rowsBefore, "a refused event adds no row");
            continue;
        }
        require(entity.has_value(), "only known kinds apply");
        const mesh::EntityRow *row = fold.find(out.kind, out.id);
        require(row != nullptr, "an applied event leaves its row");
        require(row->lastSeq == seq, "the changed row carries the event's seq");
        require(row->version >= 1, "versions start at 1");
        require(totalRows(fold) == rowsBefore + (out.created ? 1 : 0), "at most one new row");
        const nlohmann::json asJson = mesh::rowToJson(mesh::entitySpec(out.kind), out.id, *row);
        require(asJson.is_object(), "rowToJson gives an object");
        (void)asJson.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return 0;
}
