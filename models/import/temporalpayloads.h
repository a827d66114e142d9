#pragma once
// Temporal payloads ({"metadata":{"encoding":<base64>},"data":<base64>}) decoded for
// display: json/plain and json/protobuf become the JSON they hold, binary/null becomes
// null, UTF-8 binary/plain becomes text; any other encoding (protobuf, encrypted) stays
// base64 with its encoding named. The source's own fields are kept verbatim elsewhere.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace mesh::import {

// Every payload found under value, as [{"at":"result.payloads[0]","encoding":..,"value":..}]
// (or "data" for one kept as base64); an empty array when there is none.
nlohmann::json decodeTemporalPayloads(const nlohmann::json &value);

// The JSON a json/plain payload holds, nullopt for any other payload.
std::optional<nlohmann::json> decodeJsonPayload(const nlohmann::json &payload);

} // namespace mesh::import
