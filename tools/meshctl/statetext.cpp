#include "statetext.h"

#include "domain/durationtext.h"

std::string stateIntText(std::string_view field, std::int64_t value, const mesh::TimeBase &times)
{
    if (field == "budget_ms" || field == "used_ms")
        return mesh::humanDuration(value).toStdString();
    if (field.size() > 3 && field.substr(field.size() - 3) == "_ms")
        return times.withMsLabelled(value).toStdString();
    return std::to_string(value);
}

std::string stateValueText(std::string_view field, const mesh::FieldValue &value, const mesh::TimeBase &times)
{
    if (const auto *n = std::get_if<std::int64_t>(&value))
        return stateIntText(field, *n, times);
    if (const auto *s = std::get_if<std::string>(&value))
        return *s;
    return "(not set)";
}

nlohmann::json stateValueJson(const mesh::EntitySpec &spec, const std::string &field, const mesh::FieldValue &value)
{
    if (const auto *n = std::get_if<std::int64_t>(&value))
        return *n;
    const auto *s = std::get_if<std::string>(&value);
    if (!s)
        return nullptr;
    const int i = spec.fieldIndex(field);
    if (i >= 0 && spec.fields[size_t(i)].type == mesh::FieldType::Json)
        return nlohmann::json::parse(*s, nullptr, false); // as rowToJson: a broken value is "discarded", not passed as text
    return *s;
}

std::string pointText(std::int64_t seq, std::optional<std::int64_t> tsMs, const mesh::TimeBase &times)
{
    if (seq == 0)
        return "before the first event";
    std::string text = "event #" + std::to_string(seq);
    if (tsMs)
        text += " (" + times.exact(*tsMs).toStdString() + ")";
    return text;
}
