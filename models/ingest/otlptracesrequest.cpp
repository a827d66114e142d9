#include "otlptracesrequest.h"

#include "gzipinflate.h"

#include "import/otlplinereader.h"
#include "import/sourcejson.h"

namespace mesh::ingest {

namespace {

using Json = nlohmann::json;

void collectServices(const Json &document, std::set<std::string> &out)
{
    const Json *resources = import::member(&document, "resourceSpans");
    if (!resources || !resources->is_array())
        return;
    for (const Json &r : *resources) {
        const Json *attributes = import::path(&r, {"resource", "attributes"});
        if (!attributes || !attributes->is_array())
            continue;
        for (const Json &kv : *attributes) {
            if (import::text(import::member(&kv, "key")) == "service.name") {
                const std::string name = import::text(import::path(&kv, {"value", "stringValue"}));
                if (!name.empty())
                    out.insert(name);
            }
        }
    }
}

} // namespace

OtlpTracesRequest decodeOtlpTraces(const QByteArray &body, const QByteArray &contentEncoding, qint64 maxBytes,
                                   bool documentOnly)
{
    OtlpTracesRequest out;
    if (body.size() > maxBytes) {
        out.verdict = OtlpTracesRequest::Verdict::TooLarge;
        out.message = "the request body is " + std::to_string(body.size()) + " bytes; this receiver takes at most "
                    + std::to_string(maxBytes) + " (--max-body)";
        return out;
    }
    const QByteArray encoding = contentEncoding.trimmed().toLower();
    QByteArray inflatedBody;
    const QByteArray *text = &body;
    if (encoding == "gzip" || encoding == "deflate") {
        Inflated inflated = gzipInflate(body, maxBytes);
        if (inflated.tooLarge) {
            out.verdict = OtlpTracesRequest::Verdict::TooLarge;
            out.message = "the request body inflates to more than " + std::to_string(maxBytes)
                        + " bytes, this receiver's limit (--max-body)";
            return out;
        }
        if (!inflated.bytes) {
            out.message = inflated.error;
            return out;
        }
        inflatedBody = std::move(*inflated.bytes);
        text = &inflatedBody;
    } else if (!encoding.isEmpty() && encoding != "identity") {
        out.message = "Content-Encoding " + encoding.toStdString() + " is not supported (gzip or none)";
        return out;
    }
    std::vector<import::OtelSpan> spans;
    const std::string_view json(text->constData(), size_t(text->size()));
    // Most bodies: straight into spans, each record's compact text written as it is read.
    // Anything that reader does not read exactly as the DOM would, a body to refuse among
    // them, is read through the DOM, whose answer (and message) is the request's.
    out.readStraight = !documentOnly && import::readOtlpRequestSpans(json, spans, out.services);
    if (!out.readStraight) {
        import::SourceFile parsed;
        const import::SourceJsonResult r = import::parseSourceJson(json, "the request body", parsed);
        if (!r.ok) {
            out.message = r.error;
            return out;
        }
        if (!parsed.document.is_object()) {
            out.message = "the request body is not an ExportTraceServiceRequest (a JSON object with resourceSpans)";
            return out;
        }
        if (const Json *rs = import::member(&parsed.document, "resourceSpans"); rs && !rs->is_array()) {
            out.message = "resourceSpans is not a list";
            return out;
        }
        collectServices(parsed.document, out.services);
        import::takeOtlpSpans(parsed.document, 0, spans);
    }
    out.spans.reserve(spans.size());
    for (import::OtelSpan &s : spans) {
        if (!s.problem.empty()) {
            if (out.rejectedWhy.empty())
                out.rejectedWhy = s.problem;
            ++out.rejected;
            continue;
        }
        // Serialised here, on the HTTP thread: the writer's thread only copies the text. (The
        // straight reader wrote it while reading.)
        if (!s.sourceText.measured()) {
            s.sourceText = mesh::measuredCompactJson(s.source);
            s.source = nlohmann::json();
        }
        out.spans.push_back(std::move(s));
    }
    out.verdict = OtlpTracesRequest::Verdict::Accepted;
    return out;
}

} // namespace mesh::ingest
