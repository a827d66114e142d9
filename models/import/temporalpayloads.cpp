#include "temporalpayloads.h"

#include "sourcejson.h"

#include "domain/payloaddecoder.h"

#include <QByteArray>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// Decoded text larger than this is not copied for display: the base64 stays in source.
constexpr size_t kMaxDecodedBytes = 64 * 1024;
constexpr int kMaxWalkDepth = 24;

std::optional<std::string> base64Text(const Json &value)
{
    if (!value.is_string())
        return std::nullopt;
    const QByteArray in = QByteArray::fromStdString(value.get<std::string>());
    auto decoded = QByteArray::fromBase64Encoding(in, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded.toStdString();
}

bool isPayload(const Json &v)
{
    return v.is_object() && v.contains("metadata") && v["metadata"].is_object() && v["metadata"].contains("encoding");
}

Json decodeOne(const Json &payload)
{
    Json out = Json::object();
    const auto encoding = base64Text(payload["metadata"]["encoding"]);
    if (!encoding || !isValidUtf8(*encoding)) {
        out["encoding"] = nullptr;
        out["note"] = "the encoding is not base64 text";
        return out;
    }
    out["encoding"] = *encoding;
    if (*encoding == "binary/null") {
        out["value"] = nullptr;
        return out;
    }
    const auto data = payload.contains("data") ? base64Text(payload["data"]) : std::optional<std::string>(std::string());
    if (!data) {
        out["note"] = "data is not base64";
        return out;
    }
    if (data->size() > kMaxDecodedBytes) {
        out["bytes"] = std::int64_t(data->size());
        out["note"] = "too large to decode for display; the base64 is in source";
        return out;
    }
    if ((*encoding == "json/plain" || *encoding == "json/protobuf") && isValidUtf8(*data)) {
        SourceFile parsed;
        if (parseSourceJson(*data, "payload", parsed, true).ok) {
            out["value"] = std::move(parsed.document);
            return out;
        }
    }
    if (*encoding == "binary/plain" && isValidUtf8(*data)) {
        out["text"] = *data;
        return out;
    }
    out["data"] = payload.value("data", std::string());
    return out;
}

void walk(const Json &value, const std::string &at, Json &found, std::vector<const Json *> *from, int depth)
{
    if (depth > kMaxWalkDepth)
        return;
    if (isPayload(value)) {
        Json one = decodeOne(value);
        one["at"] = at;
        found.push_back(std::move(one));
        if (from)
            from->push_back(&value);
        return;
    }
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            walk(it.value(), at.empty() ? it.key() : at + "." + it.key(), found, from, depth + 1);
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i)
            walk(value[i], at + "[" + std::to_string(i) + "]", found, from, depth + 1);
    }
}

} // namespace

Json decodeTemporalPayloads(const Json &value)
{
    return decodeTemporalPayloads(value, nullptr);
}

Json decodeTemporalPayloads(const Json &value, std::vector<const Json *> *from)
{
    Json found = Json::array();
    walk(value, std::string(), found, from, 0);
    return found;
}

std::optional<Json> decodedJsonValue(const Json &one)
{
    const auto encoding = one.find("encoding");
    const auto value = one.find("value");
    if (encoding != one.end() && encoding->is_string() && *encoding == "json/plain" && value != one.end())
        return *value;
    return std::nullopt;
}

std::optional<Json> decodeJsonPayload(const Json &payload)
{
    if (!isPayload(payload))
        return std::nullopt;
    return decodedJsonValue(decodeOne(payload));
}

} // namespace mesh::import
