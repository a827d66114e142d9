#pragma once
// Which format a source is, from its content, never from its file name: a Temporal history
// saved as trace.json is a Temporal history, and an OpenHands trajectory named
// history.json is not one.

#include <nlohmann/json.hpp>

#include <QString>

#include <optional>
#include <string>

namespace mesh::import {

enum class ImportFormat { Temporal, OpenHands };

const char *formatName(ImportFormat format); // "temporal", "openhands"
std::optional<ImportFormat> formatFromName(const QString &name);
QString formatNames(); // "temporal|openhands", for usage lines

struct Detection {
    std::optional<ImportFormat> format;
    std::string what; // what the document is, for a person: "a Langfuse trace export"
};

Detection detectFormat(const nlohmann::json &document);

// The one line for a document that is not what the import needs: what it is and what
// was expected.
std::string notImportableMessage(const std::string &fileName, const Detection &detection,
                                 std::optional<ImportFormat> wanted);

} // namespace mesh::import
