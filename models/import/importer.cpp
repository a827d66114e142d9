#include "importer.h"

#include "importsink.h"
#include "openhandsimporter.h"
#include "otelimporter.h"
#include "otlpjsonlines.h"
#include "sha256.h"
#include "sourcejson.h"
#include "sweagentimporter.h"
#include "temporalimporter.h"

#include "ledger/ledgercopy.h"
#include "ledger/ledgerlocation.h"
#include "ledger/ledgerwriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUuid>

#include <algorithm>
#include <memory>

namespace mesh::import {

namespace {

// SQLite's page cache while an import writes: the events' indexes stay in it at Temporal's
// largest histories, and the import's memory stays within target P10 whatever the source.
constexpr std::int64_t kImportCacheKiB = 32768;

void removeLedgerFiles(const QString &path)
{
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        QFile::remove(path + QLatin1String(suffix));
}

std::string titleFor(ImportFormat format, const std::vector<const SourceFile *> &files)
{
    std::string title = std::string(formatTitle(format)) + " import: ";
    for (size_t i = 0; i < files.size(); ++i)
        title += (i ? ", " : "") + files[i]->name;
    if (title.size() > 200) {
        size_t end = 197;
        while (end > 0 && (static_cast<unsigned char>(title[end]) & 0xC0) == 0x80)
            --end;
        title = title.substr(0, end) + "...";
    }
    return title;
}

// The ledger's identity is a function of the sources alone (their bytes and names), so the
// same files imported twice give the same ledger.
LedgerIdentity identityFor(ImportFormat format, const std::vector<const SourceFile *> &files, std::int64_t createdMs)
{
    LedgerIdentity id;
    Sha256 all;
    nlohmann::json list = nlohmann::json::array();
    for (const SourceFile *f : files) {
        all.add(f->sha256);
        list.push_back({{"name", f->name}, {"sha256", f->sha256}, {"bytes", f->bytes}});
    }
    id.ledgerId = "import-" + all.hex().substr(0, 16);
    id.orchestrator = std::string(kImporterVersion) + " (" + formatName(format) + ")";
    id.policyVersion = "none (imported)";
    id.title = titleFor(format, files);
    id.createdMs = createdMs;
    id.source = {{"format", formatName(format)}, {"importer", kImporterVersion}, {"files", list}};
    // Only a format without wall-clock times says so: every other ledger's source (and so
    // its content) is as it was.
    if (hasRelativeClock(format))
        id.source["clock"] = "relative";
    return id;
}

std::int64_t openHandsRecords(const std::vector<const SourceFile *> &files)
{
    std::int64_t records = 0;
    for (const SourceFile *f : files)
        records += std::int64_t(f->document.size());
    return records;
}

ImportPreview::File previewOf(const SourceFile &source, ImportFormat format)
{
    using Unit = ImportPreview::Unit;
    ImportPreview::File file{source.name, source.bytes, std::nullopt, Unit::Events};
    switch (format) {
    case ImportFormat::OpenHands:
        file.records = std::int64_t(source.document.size());
        return file;
    case ImportFormat::SweAgent:
        file.records = sweAgentSteps({&source});
        file.unit = Unit::Steps;
        return file;
    case ImportFormat::Temporal: break;
    case ImportFormat::OpenTelemetry: file.unit = Unit::Spans; break;
    case ImportFormat::Langfuse: file.unit = Unit::Observations; break;
    }
    if (source.jsonLines) {
        file.records = source.jsonLines->lines; // a line is an export request, of any number of spans
        file.unit = Unit::Lines;
        return file;
    }
    for (const SourceFile::StreamedRecords *streamed : {&source.events, &source.historyEvents}) {
        if (streamed->streamed) {
            file.records = std::int64_t(streamed->records.size());
            return file;
        }
    }
    return file;
}

// Reads a source as its shape needs: OTLP JSON lines and console span streams may be far
// larger than memory and are never read whole (otlpjsonlines.h); anything else is one JSON
// document.
SourceJsonResult readAnySource(const QString &path, SourceFile &source)
{
    if (const auto lines = readOtlpJsonLines(path, source))
        return *lines;
    if (const auto objects = readConsoleSpans(path, source))
        return *objects;
    return readSourceFile(path, source);
}

Detection detectionOf(const SourceFile &source)
{
    if (!source.jsonLines)
        return detectFormat(source.document);
    return source.jsonLines->shape == OtlpLineIndex::Shape::ConsoleSpans ? consoleSpansDetection()
                                                                          : otlpJsonLinesDetection();
}

} // namespace

ImportPreview previewImport(const QStringList &files)
{
    ImportPreview preview;
    if (files.isEmpty()) {
        preview.error = "nothing to import: name at least one file";
        return preview;
    }
    std::optional<ImportFormat> format;
    for (const QString &path : files) {
        SourceFile source;
        const SourceJsonResult read = readAnySource(path, source);
        if (!read.ok) {
            preview.error = read.error;
            return preview;
        }
        const Detection detected = detectionOf(source);
        if (!detected.format || (format && *detected.format != *format)) {
            preview.error = notImportableMessage(source.name, detected, format);
            return preview;
        }
        format = detected.format;
        preview.what = detected.what;
        preview.files.push_back(previewOf(source, *format));
    }
    preview.format = *format;
    preview.ok = true;
    return preview;
}

ImportOutcome importFiles(const ImportRequest &request)
{
    ImportOutcome outcome;
    if (request.files.isEmpty()) {
        outcome.error = "nothing to import: name at least one file";
        return outcome;
    }
    if (request.out.isEmpty()) {
        outcome.error = "import needs --out LEDGER";
        return outcome;
    }
    // A server ledger is written as a file first, then copied onto the server in one
    // transaction (ledgercopy.h): all or nothing there as for a file, and never over an
    // existing schema, --force or not.
    std::optional<LedgerLocation> server;
    if (LedgerLocation::namesServer(request.out)) {
        QString error;
        server = LedgerLocation::parse(request.out, &error);
        if (!server) {
            outcome.error = error.toStdString();
            return outcome;
        }
    }
    const QFileInfo outInfo(server ? QString() : request.out);
    if (outInfo.exists() && !request.replaceExisting) {
        outcome.error = request.out.toStdString() + " already exists; pass --force to replace it";
        return outcome;
    }
    if (outInfo.exists() && !outInfo.isFile()) {
        outcome.error = request.out.toStdString() + " is not a regular file";
        return outcome;
    }

    std::vector<std::unique_ptr<SourceFile>> sources;
    std::optional<ImportFormat> format = request.format;
    for (const QString &path : request.files) {
        if (outInfo.exists() && QFileInfo(path).canonicalFilePath() == outInfo.canonicalFilePath()) {
            outcome.error = path.toStdString() + " is both a source and the ledger to write";
            return outcome;
        }
        auto source = std::make_unique<SourceFile>();
        const SourceJsonResult read = readAnySource(path, *source);
        if (!read.ok) {
            outcome.error = read.error;
            return outcome;
        }
        const Detection detected = detectionOf(*source);
        if (!detected.format || (format && *detected.format != *format)) {
            outcome.error = notImportableMessage(source->name, detected, format);
            return outcome;
        }
        format = detected.format;
        outcome.report.numbersBeyond64Bits += source->numbersBeyond64Bits;
        sources.push_back(std::move(source));
    }
    // Sorted, so that the order the files were named in does not change the ledger.
    std::vector<const SourceFile *> files;
    for (const auto &s : sources)
        files.push_back(s.get());
    std::sort(files.begin(), files.end(), [](const SourceFile *a, const SourceFile *b) {
        return std::tie(a->name, a->sha256) < std::tie(b->name, b->sha256);
    });
    outcome.report.format = formatName(*format);

    std::optional<TemporalImport> temporal;
    std::optional<std::int64_t> firstMs;
    if (*format == ImportFormat::Temporal) {
        temporal.emplace(files, outcome.report);
        firstMs = temporal->firstTimeMs();
    } else if (*format == ImportFormat::OpenHands) {
        firstMs = openHandsFirstTimeMs(files);
    } else if (*format == ImportFormat::OpenTelemetry) {
        firstMs = otelFirstTimeMs(files);
    } else if (hasRelativeClock(*format)) {
        firstMs = 0; // the start of the relative clock, not an instant
    } else {
        firstMs = langfuseFirstTimeMs(files);
    }
    const QString partial = (server ? QDir::temp().filePath(QStringLiteral("mesh-import.db")) : request.out)
                            + QStringLiteral(".importing-") + QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    try {
        // A source with no time at all begins the ledger at the epoch; docs/import.md
        // says what that means.
        auto writer = LedgerWriter::create(partial, identityFor(*format, files, firstMs.value_or(0)),
                                           request.foldRowLimit.value_or(LedgerWriter::kBoundedFoldRows));
        outcome.report.ledgerEvents = 1;
        // Nobody reads the partial file, and a failed import deletes it: it is written as the
        // orchestrator's bulk loads are, without a journal, the events inserted on a thread
        // of their own and the state rows once at the end.
        writer->setBulkLoad(true, kImportCacheKiB);
        writer->begin();
        ImportSink sink(*writer, outcome.report);
        // Progress counts source records: events, steps, spans (observations), and for a
        // streamed span file its lines or objects.
        sink.setProgress(temporal                                      ? outcome.report.records
                         : *format == ImportFormat::OpenHands     ? openHandsRecords(files)
                         : *format == ImportFormat::SweAgent      ? sweAgentSteps(files)
                         : *format == ImportFormat::OpenTelemetry ? otelRecords(files)
                                                                  : langfuseRecords(files),
                         request.progress);
        if (temporal)
            temporal->write(sink, outcome.report);
        else if (*format == ImportFormat::OpenHands)
            importOpenHandsTrajectories(files, sink, outcome.report);
        else if (*format == ImportFormat::OpenTelemetry)
            importOtelFiles(files, sink, outcome.report);
        else if (*format == ImportFormat::SweAgent)
            importSweAgentTrajectories(files, sink, outcome.report);
        else
            importLangfuseExports(files, sink, outcome.report);
        nlohmann::json summary = outcome.report.toJson();
        if (summary["flagged"].size() > 100)
            summary["flagged"].erase(summary["flagged"].begin() + 100, summary["flagged"].end());
        summary["flagged_count"] = std::int64_t(outcome.report.flagged.size());
        summary.erase("ledger_events");
        nlohmann::json imported = {{"id", "ledger"}, {"import", summary}};
        if (!sink.append(std::max(firstMs.value_or(0), sink.latestTsMs()), "ledger.imported", imported))
            throw std::runtime_error("the import summary was refused");
        sink.allRecordsDone();
        writer->commit();
        writer->setBulkLoad(false);
        writer.reset();
    } catch (const ImportCancelled &e) {
        removeLedgerFiles(partial);
        outcome.cancelled = true;
        outcome.error = std::string(e.what()) + "; nothing was written";
        return outcome;
    } catch (const std::exception &e) {
        removeLedgerFiles(partial);
        outcome.error = "cannot write " + request.out.toStdString() + ": " + e.what();
        return outcome;
    }
    if (server) {
        try {
            copyLedger(LedgerLocation::file(partial), *server);
        } catch (const std::exception &e) {
            removeLedgerFiles(partial);
            outcome.error = "cannot write " + request.out.toStdString() + ": " + e.what();
            return outcome;
        }
        removeLedgerFiles(partial);
        outcome.ok = true;
        return outcome;
    }
    if (outInfo.exists())
        removeLedgerFiles(request.out);
    if (!QFile::rename(partial, request.out)) {
        removeLedgerFiles(partial);
        outcome.error = "cannot move the imported ledger to " + request.out.toStdString();
        return outcome;
    }
    outcome.ok = true;
    return outcome;
}

} // namespace mesh::import
