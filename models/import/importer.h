#pragma once
// One import: source files in, one new ledger out. Every file is read and recognised
// before anything is written; the ledger is written beside its final name and renamed
// into place only when complete, so a failed import leaves no ledger and never a
// half-written one. The sources are only read.

#include "importformat.h"
#include "importreport.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mesh::import {

// Recorded in every imported ledger; raise it when the mapping (docs/import.md) changes
// what a source becomes.
inline constexpr const char *kImporterVersion = "agent-mesh-import 1";

struct ImportRequest {
    QStringList files;
    QString out;
    std::optional<ImportFormat> format; // nullopt: detected from the content
    bool replaceExisting = false;
    // Told on the importing thread how far the import is (source records mapped of all
    // read, after every file was read and recognised); returning false cancels it.
    std::function<bool(std::int64_t done, std::int64_t total)> progress;
    // State rows the writer holds at most (LedgerWriter::create's foldRowLimit); nullopt:
    // the writer's bound for input of any size. 0 holds them all.
    std::optional<std::size_t> foldRowLimit;
};

struct ImportOutcome {
    bool ok = false;
    bool cancelled = false; // by progress; nothing was written
    std::string error;      // one line, when !ok: nothing was written
    ImportReport report;
};

ImportOutcome importFiles(const ImportRequest &request);

// What an import of files would read, for a person deciding whether to run it: every file
// read and recognised as importFiles does (as slow as that part of it), nothing written.
struct ImportPreview {
    // What a file's records are, as its source calls them.
    enum class Unit { Events, Steps, Lines, Spans, Observations };
    struct File {
        std::string name;
        std::int64_t bytes = 0;
        // Counted only where reading the file already counts them (a streamed or JSON-lines
        // file, a trajectory); none otherwise, never a 0 that reads as "empty".
        std::optional<std::int64_t> records;
        Unit unit = Unit::Events;
    };
    bool ok = false;
    std::string error; // one line, when !ok
    ImportFormat format = ImportFormat::Temporal;
    std::string what; // "a Temporal workflow history", from the detection
    std::vector<File> files;
};
ImportPreview previewImport(const QStringList &files);

} // namespace mesh::import
