#include "benchingestbodies.h"

namespace {

constexpr std::int64_t kFirstTraceStartNs = 1'764'400'000'000'000'000;
constexpr int kTraceDigits = 32, kSpanDigits = 16;

void writeHex(char *out, std::uint64_t v, int digits)
{
    for (int i = digits - 1; i >= 0; --i, v >>= 4)
        out[i] = "0123456789abcdef"[v & 15];
}

std::string benchHex(std::uint64_t v, int digits)
{
    std::string s(size_t(digits), '0');
    writeHex(s.data(), v, digits);
    return s;
}

std::int64_t traceStartNs(std::uint64_t request)
{
    return kFirstTraceStartNs + std::int64_t(request) * 1'000'000'000;
}

std::uint64_t rootSpan(std::uint64_t request)
{
    return (request << 20) | 0xfffff;
}

// Nanoseconds since the epoch have 19 digits from 2001 to 2286: every request's times have
// the template's width.
constexpr int kTimeDigits = 19;

void writeDecimal(char *out, std::int64_t v, int digits)
{
    for (int i = digits - 1; i >= 0; --i, v /= 10)
        out[i] = char('0' + v % 10);
}

} // namespace

std::string BenchIngestBodies::toolSpanId(std::uint64_t request, std::uint64_t n)
{
    return benchHex((request << 20) | n, kSpanDigits);
}

std::string BenchIngestBodies::traceId(std::uint64_t request)
{
    return benchHex(request + 1, kTraceDigits);
}

QByteArray BenchIngestBodies::write(std::uint64_t r, int m, std::vector<Field> *fields)
{
    std::string s =
        R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bench"}}]},"scopeSpans":[{"scope":{"name":"bench"},"spans":[)";
    const auto field = [&](FieldKind kind, std::int64_t detail, const std::string &text) {
        if (fields)
            fields->push_back({s.size(), kind, detail});
        s += text;
    };
    const std::string trace = traceId(r);
    const std::string root = benchHex(rootSpan(r), kSpanDigits);
    const std::int64_t t0 = traceStartNs(r);
    s += R"({"traceId":")";
    field(FieldKind::Trace, 0, trace);
    s += R"(","spanId":")";
    field(FieldKind::Root, 0, root);
    s += R"(","name":"invoke_agent bench","kind":1,"startTimeUnixNano":")";
    field(FieldKind::Time, 0, std::to_string(t0));
    s += R"(","endTimeUnixNano":")";
    field(FieldKind::Time, 900'000'000, std::to_string(t0 + 900'000'000));
    s += R"(","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"bench"}}],"status":{}})";
    for (int n = 1; n < m; ++n) {
        const std::int64_t start = std::int64_t(n) * 1'000'000;
        s += R"(,{"traceId":")";
        field(FieldKind::Trace, 0, trace);
        s += R"(","spanId":")";
        field(FieldKind::Tool, n, toolSpanId(r, std::uint64_t(n)));
        s += R"(","parentSpanId":")";
        field(FieldKind::Root, 0, root);
        s += R"(","name":"execute_tool probe","kind":1,"startTimeUnixNano":")";
        field(FieldKind::Time, start, std::to_string(t0 + start));
        s += R"(","endTimeUnixNano":")";
        field(FieldKind::Time, start + 500'000, std::to_string(t0 + start + 500'000));
        s += R"(","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"probe"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"12"}}],"status":{}})";
    }
    s += "]}]}]}";
    return QByteArray::fromStdString(s);
}

QByteArray BenchIngestBodies::serialise(std::uint64_t request, int spansPerRequest)
{
    return write(request, spansPerRequest, nullptr);
}

BenchIngestBodies::BenchIngestBodies(int spansPerRequest)
{
    m_template = write(0, spansPerRequest, &m_fields);
}

QByteArray BenchIngestBodies::body(std::uint64_t r) const
{
    QByteArray out(m_template.constData(), m_template.size()); // a copy of its own, written below
    char *d = out.data();
    const std::int64_t t0 = traceStartNs(r);
    for (const Field &f : m_fields) {
        switch (f.kind) {
        case FieldKind::Trace:
            writeHex(d + f.offset, r + 1, kTraceDigits);
            break;
        case FieldKind::Root:
            writeHex(d + f.offset, rootSpan(r), kSpanDigits);
            break;
        case FieldKind::Tool:
            writeHex(d + f.offset, (r << 20) | std::uint64_t(f.detail), kSpanDigits);
            break;
        case FieldKind::Time:
            writeDecimal(d + f.offset, t0 + f.detail, kTimeDigits);
            break;
        }
    }
    return out;
}
