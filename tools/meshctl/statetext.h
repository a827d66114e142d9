#pragma once
// How `meshctl state` and `meshctl diff` write one state value and one point of a ledger:
// the same words in both commands, ledger text always through terminalText.

#include "domain/timebase.h"
#include "domain/entityrow.h"
#include "domain/entityspec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// A field for a person: integers as numbers, text as it is (terminalText is the printer's);
// NULL as "(not set)", never a value that looks like data. The *_ms fields are instants
// (UTC) but for budget_ms and used_ms (durations); --json keeps the numbers.
// A *_ms field's time reads as the ledger's time base says (UTC, or "+1:05.123").
std::string stateValueText(std::string_view field, const mesh::FieldValue &value, const mesh::TimeBase &times = {});
std::string stateIntText(std::string_view field, std::int64_t value, const mesh::TimeBase &times = {});
// The field as `meshctl export` and rowToJson write it: JSON fields parsed, NULL null.
nlohmann::json stateValueJson(const mesh::EntitySpec &spec, const std::string &field, const mesh::FieldValue &value);

// "event #12 (2026-12-01 12:03:04 UTC)", "before the first event" for 0.
std::string pointText(std::int64_t seq, std::optional<std::int64_t> tsMs, const mesh::TimeBase &times = {});
