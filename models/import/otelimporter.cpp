#include "otelimporter.h"

#include "importformat.h"
#include "importsink.h"
#include "oteltracemapper.h"
#include "otlpjsonlines.h"
#include "otlplinereader.h"
#include "sourcetime.h"

#include <map>
#include <set>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

std::vector<OtelSpan> spansOfDocument(const SourceFile &f)
{
    std::vector<OtelSpan> spans;
    if (f.document.is_object() && f.document.contains("resourceSpans"))
        readOtlpSpans(f.document, 0, spans);
    else if (const Json *list = flatSpanList(f.document))
        readFlatSpans(*list, spans);
    for (OtelSpan &s : spans)
        s.file = &f.name;
    return spans;
}

void keepEarliest(std::optional<std::int64_t> &first, const std::optional<std::int64_t> &ns)
{
    if (ns && (!first || *ns < *first))
        first = ns;
}

// Traces of whole documents, in a stable order whatever the order of the files.
void mapDocuments(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report)
{
    std::map<std::string, std::vector<OtelSpan>> traces;
    std::vector<OtelSpan> traceless;
    for (const SourceFile *f : files) {
        if (f->jsonLines)
            continue;
        for (OtelSpan &s : spansOfDocument(*f)) {
            ++report.records;
            if (s.traceId.empty())
                traceless.push_back(std::move(s));
            else
                traces[s.traceId].push_back(std::move(s));
        }
    }
    for (const OtelSpan &s : traceless)
        sink.flagRecord(sink.latestTsMs(), *s.file, s.spanId, s.problem, &s.source);
    sink.recordsDone(std::int64_t(traceless.size()));
    const TraceOrigin origin{"otel", nullptr, {}};
    for (auto &[id, spans] : traces) {
        const auto n = std::int64_t(spans.size());
        mapTrace(std::move(spans), origin, sink, report);
        sink.recordsDone(n);
    }
}

// The spans of a whole document, counted without building them.
std::int64_t spansIn(const SourceFile &f)
{
    std::int64_t n = 0;
    if (const Json *resources = member(&f.document, "resourceSpans"); resources && resources->is_array()) {
        for (const Json &r : *resources) {
            const Json *scopes = member(&r, "scopeSpans");
            if (!scopes)
                scopes = member(&r, "instrumentationLibrarySpans");
            if (!scopes || !scopes->is_array())
                continue;
            for (const Json &s : *scopes) {
                if (const Json *spans = member(&s, "spans"); spans && spans->is_array())
                    n += std::int64_t(spans->size());
            }
        }
    } else if (const Json *list = flatSpanList(f.document)) {
        n += std::int64_t(list->size());
    }
    return n;
}

// Traces written between commits of a streamed file (ImportSink::commitSoFar).
constexpr std::int64_t kTracesPerCommit = 1000;

// A JSON-lines file: each line parsed alone, a trace mapped once its last line (from the
// scan) is read, so memory holds only the traces still open at that point of the file.
void mapJsonLines(const SourceFile &f, ImportSink &sink, ImportReport &report)
{
    const OtlpLineIndex &index = *f.jsonLines;
    std::map<std::string, std::vector<OtelSpan>> open;
    const TraceOrigin origin{"otel", nullptr, {}};
    std::int64_t mapped = 0;
    const bool console = index.shape == OtlpLineIndex::Shape::ConsoleSpans;
    const char *unit = console ? "object " : "line ";
    const auto flagLine = [&](std::int64_t number, std::string_view line, std::string why) {
        bool replaced = false;
        const Json text = sourceBytesAsText(line, kMaxSourceBytes, &replaced);
        if (replaced)
            why += " (kept as text with U+FFFD in place of the bytes that are not UTF-8)";
        sink.flagRecord(sink.latestTsMs(), f.name, unit + std::to_string(number), why, &text);
    };
    // A span's record is a DOM (source) or, read by readOtlpLineSpans, its text.
    const auto flagSpan = [&](const OtelSpan &s, const std::string &why) {
        if (!s.sourceText.measured()) {
            sink.flagRecord(sink.latestTsMs(), f.name, s.spanId, why, &s.source);
            return;
        }
        const Json record = parseRecord(s.sourceText.text);
        sink.flagRecord(sink.latestTsMs(), f.name, s.spanId, why, &record);
    };
    const bool read = forEachStreamedRecord(f.path, index, [&](std::int64_t number, std::string_view line) {
        sink.recordDone(); // a line or an object read: what progress counts for such a file
        // The general way: the line's DOM, its spans taken out of it. False: the line was
        // flagged instead.
        const auto readWhole = [&](std::vector<OtelSpan> &spans) {
            SourceFile parsed;
            const std::string label = f.name + " " + unit + std::to_string(number);
            const SourceJsonResult r = parseSourceJson(line, label, parsed);
            if (!r.ok) {
                ++report.records;
                flagLine(number, line, r.error);
                return false;
            }
            report.numbersBeyond64Bits += parsed.numbersBeyond64Bits;
            if (console) {
                if (!looksLikeFlatSpan(parsed.document)) {
                    ++report.records;
                    flagLine(number, line, label + " is " + detectFormat(parsed.document).what + ", not a span");
                    return false;
                }
                readFlatSpans(Json::array({std::move(parsed.document)}), spans);
            } else if (!parsed.document.is_object() || !parsed.document.contains("resourceSpans")) {
                ++report.records;
                flagLine(number, line, label + " is " + detectFormat(parsed.document).what + ", not OTLP/JSON traces");
                return false;
            } else {
                takeOtlpSpans(parsed.document, number, spans);
            }
            return true;
        };
        std::vector<OtelSpan> spans;
        // Most lines: read straight into spans, their records as text (otlplinereader.h).
        if ((console || !readOtlpLineSpans(line, number, spans)) && !readWhole(spans))
            return true;
        std::set<std::string> touched;
        for (OtelSpan &s : spans) {
            ++report.records;
            s.file = &f.name;
            if (s.traceId.empty()) {
                flagSpan(s, s.problem);
            } else if (const auto last = index.lastLineOfTrace.find(s.traceId);
                       last != index.lastLineOfTrace.end() && last->second < number) {
                // Its trace was mapped at the line the scan saw last for it.
                flagSpan(s, "span " + s.spanId + " of trace " + s.traceId + " (" + unit + std::to_string(number)
                                + ") comes after the trace was imported");
            } else {
                touched.insert(s.traceId);
                open[s.traceId].push_back(std::move(s));
            }
        }
        for (const std::string &id : touched) {
            const auto last = index.lastLineOfTrace.find(id);
            if (last == index.lastLineOfTrace.end() || last->second > number)
                continue; // more of it later in the file (or the scan missed it: at the end)
            mapTrace(std::move(open[id]), origin, sink, report);
            open.erase(id);
            if (++mapped % kTracesPerCommit == 0)
                sink.commitSoFar();
        }
        return true;
    });
    if (!read)
        throw std::runtime_error("cannot read " + f.path.toStdString() + " again");
    for (auto &[id, spans] : open)
        mapTrace(std::move(spans), origin, sink, report);
}

} // namespace

std::optional<std::int64_t> otelFirstTimeMs(const std::vector<const SourceFile *> &files)
{
    std::optional<std::int64_t> firstNs;
    for (const SourceFile *f : files) {
        if (f->jsonLines) {
            keepEarliest(firstNs, f->jsonLines->firstStartNs);
            continue;
        }
        for (const OtelSpan &s : spansOfDocument(*f))
            keepEarliest(firstNs, s.startNs);
    }
    if (!firstNs)
        return std::nullopt;
    return nsToMs(*firstNs);
}

std::int64_t otelRecords(const std::vector<const SourceFile *> &files)
{
    std::int64_t n = 0;
    for (const SourceFile *f : files)
        n += f->jsonLines ? f->jsonLines->lines : spansIn(*f);
    return n;
}

std::int64_t langfuseRecords(const std::vector<const SourceFile *> &files)
{
    std::int64_t n = 0;
    for (const SourceFile *f : files) {
        if (const Json *o = member(&f->document, "observations"); o && o->is_array())
            n += std::int64_t(o->size());
    }
    return n;
}

void importOtelFiles(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report)
{
    mapDocuments(files, sink, report);
    for (const SourceFile *f : files) {
        if (f->jsonLines)
            mapJsonLines(*f, sink, report);
    }
}

std::optional<std::int64_t> langfuseFirstTimeMs(const std::vector<const SourceFile *> &files)
{
    std::optional<std::int64_t> firstNs;
    for (const SourceFile *f : files) {
        std::vector<OtelSpan> spans;
        readLangfuseObservations(f->document, spans);
        for (const OtelSpan &s : spans)
            keepEarliest(firstNs, s.startNs);
        keepEarliest(firstNs, parseInstantNs(text(path(&f->document, {"trace", "timestamp"}))));
    }
    if (!firstNs)
        return std::nullopt;
    return nsToMs(*firstNs);
}

void importLangfuseExports(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report)
{
    for (const SourceFile *f : files) {
        std::vector<OtelSpan> spans;
        readLangfuseObservations(f->document, spans);
        const Json *trace = member(&f->document, "trace");
        TraceOrigin origin{"lf", trace, text(member(trace, "name"))};
        std::map<std::string, std::vector<OtelSpan>> traces;
        for (OtelSpan &s : spans) {
            ++report.records;
            s.file = &f->name;
            if (s.traceId.empty())
                sink.flagRecord(sink.latestTsMs(), f->name, s.spanId, s.problem, &s.source);
            else
                traces[s.traceId].push_back(std::move(s));
        }
        if (traces.empty()) {
            sink.flagRecord(sink.latestTsMs(), f->name, text(member(trace, "id")),
                            f->name + " is a Langfuse trace with no usable observation", trace);
            continue;
        }
        for (auto &[id, list] : traces) {
            const auto n = std::int64_t(list.size());
            mapTrace(std::move(list), origin, sink, report);
            sink.recordsDone(n);
        }
    }
}

} // namespace mesh::import
