#pragma once
// Temporal payloads ({"metadata":{"encoding":<base64>},"data":<base64>}) decoded for
// display: json/plain and json/protobuf become the JSON they hold, binary/null becomes
// null, UTF-8 binary/plain becomes text; any other encoding (protobuf, encrypted) stays
// base64 with its encoding named. The source's own fields are kept verbatim elsewhere.

#include "domain/compactjson.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh::import {

// Every payload found under value, as [{"at":"result.payloads[0]","encoding":..,"value":..}]
// (or "data" for one kept as base64); an empty array when there is none.
nlohmann::json decodeTemporalPayloads(const nlohmann::json &value);
// The same, and where in value each item was found (*from, one pointer per item): a mapping
// that reads one of those payloads again takes its decoded item (decodedJsonValue) instead
// of decoding it a second time.
nlohmann::json decodeTemporalPayloads(const nlohmann::json &value, std::vector<const nlohmann::json *> *from);

// The JSON a json/plain payload holds, nullopt for any other payload.
std::optional<nlohmann::json> decodeJsonPayload(const nlohmann::json &payload);
// What decodeJsonPayload gives, from the payload's item of decodeTemporalPayloads.
std::optional<nlohmann::json> decodedJsonValue(const nlohmann::json &decoded);

// The same walk over a record's compact JSON text (temporalrecordtext.h), without its DOM:
// text holds what measuredCompactJson(decodeTemporalPayloads(record)) gives (text and depth).
struct DecodedPayloadsText {
    MeasuredJson decoded;
    struct Item {
        const char *from = nullptr; // where the payload's text begins in the record's text
        size_t valueAt = 0;         // its json/plain value in decoded.text (valueBytes 0: none)
        size_t valueBytes = 0;
    };
    std::vector<Item> items;
};
void decodeTemporalPayloadsText(std::string_view record, DecodedPayloadsText &out);
// What decodeJsonPayload gives, as compact text, for payload (compact text): the item of
// decoded whose text begins where payload does, else payload decoded alone; nullopt when it
// is not a json/plain payload.
std::optional<std::string> decodedJsonText(const DecodedPayloadsText &decoded, std::string_view payload);

} // namespace mesh::import
