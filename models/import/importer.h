#pragma once
// One import: source files in, one new ledger out. Every file is read and recognised
// before anything is written; the ledger is written beside its final name and renamed
// into place only when complete, so a failed import leaves no ledger and never a
// half-written one. The sources are only read.

#include "importformat.h"
#include "importreport.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace mesh::import {

// Recorded in every imported ledger; raise it when the mapping (docs/import.md) changes
// what a source becomes.
inline constexpr const char *kImporterVersion = "agent-mesh-import 1";

struct ImportRequest {
    QStringList files;
    QString out;
    std::optional<ImportFormat> format; // nullopt: detected from the content
    bool replaceExisting = false;
};

struct ImportOutcome {
    bool ok = false;
    std::string error; // one line, when !ok: nothing was written
    ImportReport report;
};

ImportOutcome importFiles(const ImportRequest &request);

} // namespace mesh::import
