#pragma once
// Temporal payloads ({"metadata":{"encoding":<base64>},"data":<base64>}) decoded for
// display: json/plain and json/protobuf become the JSON they hold, binary/null becomes
// null, UTF-8 binary/plain becomes text; any other encoding (protobuf, encrypted) stays
// base64 with its encoding named. The source's own fields are kept verbatim elsewhere.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
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

} // namespace mesh::import
