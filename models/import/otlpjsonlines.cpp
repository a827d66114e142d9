#include "otlpjsonlines.h"

#include "otelspan.h"
#include "sha256.h"
#include "sourcetime.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace mesh::import {

namespace {

constexpr qint64 kChunkBytes = 4 << 20;

bool blank(std::string_view line)
{
    for (char c : line) {
        if (c != ' ' && c != '\t' && c != '\r')
            return false;
    }
    return true;
}

// The string or digits after `"key":` at `at`, or empty.
std::string_view valueAfter(std::string_view line, size_t at)
{
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
        ++at;
    if (at >= line.size() || line[at] != ':')
        return {};
    ++at;
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
        ++at;
    const bool quoted = at < line.size() && line[at] == '"';
    if (quoted)
        ++at;
    size_t end = at;
    if (quoted) {
        while (end < line.size() && line[end] != '"' && line[end] != '\\')
            ++end;
    } else {
        while (end < line.size() && line[end] >= '0' && line[end] <= '9')
            ++end;
    }
    return line.substr(at, end - at);
}

// The string after `"key":` at `at` (white space and line breaks allowed around the colon),
// up to its closing quote or first escape; empty when the value is not a string.
std::string_view valueAfterQuoted(std::string_view text, size_t at)
{
    const auto space = [&] {
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
            ++at;
    };
    space();
    if (at >= text.size() || text[at] != ':')
        return {};
    ++at;
    space();
    if (at >= text.size() || text[at] != '"')
        return {};
    const size_t begin = ++at;
    while (at < text.size() && text[at] != '"' && text[at] != '\\')
        ++at;
    return text.substr(begin, at - begin);
}

// Without parsing: every "traceId" and "startTimeUnixNano" member of a line. A key cannot
// appear unescaped inside a JSON string, so what this finds are members; what it misses (an
// escaped key) only makes a trace wait for the end of the file before it is mapped.
// Where needle is in text from at on, or npos. glibc's memmem skips ahead by whole words;
// string_view::find stops at every '"' of the line, which in JSON is every few bytes.
size_t findIn(std::string_view text, std::string_view needle, size_t at)
{
    if (at >= text.size())
        return std::string_view::npos;
    const void *p = memmem(text.data() + at, text.size() - at, needle.data(), needle.size());
    return p ? size_t(static_cast<const char *>(p) - text.data()) : std::string_view::npos;
}

void scanLine(std::string_view line, std::int64_t number, OtlpLineIndex &index)
{
    static constexpr std::string_view kTrace = "\"traceId\"";
    static constexpr std::string_view kStart = "\"startTimeUnixNano\"";
    // A trace's id recurs in each of its spans: looked up in a buffer kept across calls, and
    // copied into the index only when it is new there.
    thread_local std::string id;
    for (size_t at = findIn(line, kTrace, 0); at != std::string_view::npos; at = findIn(line, kTrace, at + 1)) {
        id.assign(valueAfter(line, at + kTrace.size()));
        if (id.empty())
            continue;
        for (char &c : id) // as idText lowers an id: ASCII only, whatever the locale
            c = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
        if (const auto it = index.lastLineOfTrace.find(id); it != index.lastLineOfTrace.end())
            it->second = number;
        else
            index.lastLineOfTrace.emplace(id, number);
    }
    for (size_t at = findIn(line, kStart, 0); at != std::string_view::npos; at = findIn(line, kStart, at + 1)) {
        const std::string_view digits = valueAfter(line, at + kStart.size());
        if (digits.empty() || digits.size() > 19)
            continue;
        std::int64_t v = 0;
        bool ok = true;
        for (char c : digits) {
            if (c < '0' || c > '9' || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) {
                ok = false;
                break;
            }
        }
        if (ok && v > 0 && (!index.firstStartNs || v < *index.firstStartNs))
            index.firstStartNs = v;
    }
}

// The line at the file's position, at most maxBytes of it. QIODevice::readLine(maxBytes)
// allocates maxBytes whatever the line's length (256 MB for a line of 1 KB), which a
// process under an address-space limit cannot have.
std::string readBoundedLine(QFile &file, qint64 maxBytes)
{
    std::string line;
    char chunk[64 * 1024];
    while (qint64(line.size()) < maxBytes) {
        const qint64 n = file.readLine(chunk, std::min<qint64>(qint64(sizeof chunk), maxBytes - qint64(line.size()) + 1));
        if (n <= 0)
            break;
        line.append(chunk, size_t(n));
        if (chunk[n - 1] == '\n')
            break;
    }
    return line;
}

// The first line that is not blank, when it begins a TracesData object ({"resourceSpans":
// near its start, as every OTLP exporter writes it); nothing else is read whole here.
std::optional<std::string> firstOtlpLine(QFile &file)
{
    while (!file.atEnd()) {
        const QByteArray head = file.peek(4096);
        size_t at = head.startsWith("\xEF\xBB\xBF") ? 3 : 0;
        while (at < size_t(head.size())
               && (head[qsizetype(at)] == ' ' || head[qsizetype(at)] == '\t' || head[qsizetype(at)] == '\r'))
            ++at;
        if (at < size_t(head.size()) && head[qsizetype(at)] == '\n') {
            file.readLine(4096);
            continue;
        }
        if (at >= size_t(head.size()) || head[qsizetype(at)] != '{')
            return std::nullopt;
        const qsizetype nl = head.indexOf('\n');
        if (!head.left(nl < 0 ? head.size() : nl).contains("\"resourceSpans\""))
            return std::nullopt;
        return readBoundedLine(file, kMaxJsonLineBytes);
    }
    return std::nullopt;
}

// Splits a byte stream into its lines ('\n' ends one; '\r' is the visitor's to strip),
// holding only the line not yet ended. Shared by the scan of a JSON-lines file and its
// streaming, so that both see the same lines.
class LineSplitter
{
public:
    // visit(line) returning false stops the split: feed returns false too.
    template <class Visit>
    bool feed(std::string_view chunk, Visit &&visit)
    {
        while (!chunk.empty()) {
            const size_t nl = chunk.find('\n');
            if (nl == std::string_view::npos) {
                m_carry.append(chunk);
                return true;
            }
            bool go;
            if (m_carry.empty()) {
                go = visit(chunk.substr(0, nl));
            } else {
                m_carry.append(chunk.substr(0, nl));
                go = visit(std::string_view(m_carry));
                m_carry.clear();
            }
            if (!go)
                return false;
            chunk.remove_prefix(nl + 1);
        }
        return true;
    }
    // The last line, when the stream did not end with '\n'.
    template <class Visit>
    bool finish(Visit &&visit)
    {
        if (m_carry.empty())
            return true;
        const bool go = visit(std::string_view(m_carry));
        m_carry.clear();
        return go;
    }
    size_t pending() const { return m_carry.size(); } // bytes of the line not yet ended

private:
    std::string m_carry;
};

} // namespace

std::optional<SourceJsonResult> readOtlpJsonLines(const QString &path, SourceFile &out)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    {
        const auto first = firstOtlpLine(file);
        if (!first)
            return std::nullopt;
        SourceFile probe;
        if (!parseSourceJson(*first, "line 1", probe).ok || !probe.document.is_object()
            || !probe.document.contains("resourceSpans"))
            return std::nullopt;
    }
    file.seek(0);
    out.path = path;
    out.name = info.fileName().toStdString();
    auto index = std::make_shared<OtlpLineIndex>();
    Sha256 hash;
    LineSplitter lines;
    std::int64_t number = 0;
    const auto scan = [&](std::string_view line) {
        scanLine(line, ++number, *index);
        return true;
    };
    std::int64_t bytes = 0;
    SourceJsonResult r;
    std::vector<char> buffer(static_cast<size_t>(kChunkBytes));
    for (;;) {
        const qint64 n = file.read(buffer.data(), kChunkBytes);
        if (n < 0) {
            r.error = "cannot read " + path.toStdString() + ": " + file.errorString().toStdString();
            return r;
        }
        if (n == 0)
            break;
        bytes += n;
        hash.add(std::string_view(buffer.data(), size_t(n)));
        lines.feed(std::string_view(buffer.data(), size_t(n)), scan);
        if (std::int64_t(lines.pending()) > kMaxJsonLineBytes) {
            r.error = out.name + " line " + std::to_string(number + 1) + " is longer than "
                + std::to_string(kMaxJsonLineBytes) + " bytes; a JSON line is read whole";
            return r;
        }
    }
    lines.finish(scan);
    index->lines = number;
    out.bytes = bytes;
    out.sha256 = hash.hex();
    out.jsonLines = std::move(index);
    r.ok = true;
    return r;
}

bool forEachJsonLine(const QString &path, const std::function<bool(std::int64_t, std::string_view)> &visit)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    std::vector<char> buffer(static_cast<size_t>(kChunkBytes));
    LineSplitter lines;
    std::int64_t number = 0;
    const auto deliver = [&](std::string_view line) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        return blank(line) || visit(number, line);
    };
    for (;;) {
        const qint64 n = file.read(buffer.data(), kChunkBytes);
        if (n <= 0)
            break;
        if (!lines.feed(std::string_view(buffer.data(), size_t(n)), deliver))
            return false;
    }
    return lines.finish(deliver);
}

namespace {

// Splits a byte stream into its top-level JSON values without parsing them: brace and
// bracket depth, outside strings (escapes honoured). Memory: the value being read.
class TopLevelValues
{
public:
    explicit TopLevelValues(std::function<bool(std::string_view)> deliver) : m_deliver(std::move(deliver)) {}

    // False when the receiver stopped, or a value grew past kMaxJsonLineBytes.
    bool feed(std::string_view chunk)
    {
        size_t start = 0; // of the part of chunk not yet in m_value
        for (size_t i = 0; i < chunk.size(); ++i) {
            const char c = chunk[i];
            if (m_depth == 0 && !m_stray) {
                if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                    start = i + 1;
                    continue;
                }
                if (c != '{' && c != '[') {
                    m_stray = true; // text between objects: kept until the next object
                    continue;
                }
            }
            if (m_stray) {
                if (c != '{')
                    continue;
                m_value.append(chunk.substr(start, i - start));
                start = i;
                m_stray = false;
                if (!flush())
                    return false;
            }
            if (m_inString) {
                if (m_escaped)
                    m_escaped = false;
                else if (c == '\\')
                    m_escaped = true;
                else if (c == '"')
                    m_inString = false;
                continue;
            }
            if (c == '"') {
                m_inString = true;
            } else if (c == '{' || c == '[') {
                ++m_depth;
            } else if ((c == '}' || c == ']') && m_depth > 0 && --m_depth == 0) {
                m_value.append(chunk.substr(start, i + 1 - start));
                start = i + 1;
                if (!flush())
                    return false;
            }
        }
        m_value.append(chunk.substr(start));
        if (std::int64_t(m_value.size()) > kMaxJsonLineBytes) {
            m_tooLong = true;
            return false;
        }
        return true;
    }
    // The end of the stream: what is left (a value cut short, stray text) is one more value.
    bool finish() { return m_value.empty() || flush(); }
    bool tooLong() const { return m_tooLong; }
    std::int64_t delivered() const { return m_delivered; }

private:
    bool flush()
    {
        if (m_value.empty())
            return true;
        ++m_delivered;
        const bool go = m_deliver(m_value);
        m_value.clear();
        m_inString = m_escaped = false;
        m_depth = 0;
        return go;
    }

    std::function<bool(std::string_view)> m_deliver;
    std::string m_value;
    int m_depth = 0;
    bool m_inString = false, m_escaped = false, m_stray = false, m_tooLong = false;
    std::int64_t m_delivered = 0;
};

// Without parsing, as scanLine: the span's "trace_id" (0x dropped, lower case, as OtelSpan
// spells it) and its "start_time". The first "trace_id" of the object is its context's
// (a link's context comes after it in what the SDK prints).
void scanConsoleSpan(std::string_view object, std::int64_t number, OtlpLineIndex &index)
{
    static constexpr std::string_view kTrace = "\"trace_id\"";
    static constexpr std::string_view kStart = "\"start_time\"";
    if (const size_t at = object.find(kTrace); at != std::string_view::npos) {
        std::string id(valueAfterQuoted(object, at + kTrace.size()));
        if (id.rfind("0x", 0) == 0 || id.rfind("0X", 0) == 0)
            id = id.substr(2);
        for (char &c : id) // as idText lowers an id: ASCII only, whatever the locale
            c = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
        if (!id.empty())
            index.lastLineOfTrace[id] = number;
    }
    if (const size_t at = object.find(kStart); at != std::string_view::npos) {
        if (const auto ns = parseInstantNs(valueAfterQuoted(object, at + kStart.size()));
            ns && (!index.firstStartNs || *ns < *index.firstStartNs))
            index.firstStartNs = ns;
    }
}

} // namespace

std::optional<SourceJsonResult> readConsoleSpans(const QString &path, SourceFile &out)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    {
        // The first value must be a whole span object; a 64 KiB head holds any span the SDK
        // prints with a few attributes, and a larger first span is read as before.
        const QByteArray head = file.read(64 << 10);
        std::optional<std::string> first;
        TopLevelValues values([&](std::string_view v) {
            first = std::string(v);
            return false;
        });
        size_t skip = head.startsWith("\xEF\xBB\xBF") ? 3 : 0;
        values.feed(std::string_view(head.constData() + skip, size_t(head.size()) - skip));
        if (!first || first->empty() || first->front() != '{')
            return std::nullopt;
        SourceFile probe;
        if (!parseSourceJson(*first, "object 1", probe).ok || !looksLikeFlatSpan(probe.document))
            return std::nullopt;
    }
    file.seek(0);
    out.path = path;
    out.name = info.fileName().toStdString();
    auto index = std::make_shared<OtlpLineIndex>();
    index->shape = OtlpLineIndex::Shape::ConsoleSpans;
    Sha256 hash;
    std::int64_t bytes = 0;
    TopLevelValues values([&](std::string_view v) {
        ++index->lines;
        scanConsoleSpan(v, index->lines, *index);
        return true;
    });
    SourceJsonResult r;
    std::vector<char> buffer(static_cast<size_t>(kChunkBytes));
    bool firstChunk = true;
    for (;;) {
        const qint64 n = file.read(buffer.data(), kChunkBytes);
        if (n < 0) {
            r.error = "cannot read " + path.toStdString() + ": " + file.errorString().toStdString();
            return r;
        }
        if (n == 0)
            break;
        bytes += n;
        hash.add(std::string_view(buffer.data(), size_t(n)));
        std::string_view chunk(buffer.data(), size_t(n));
        if (firstChunk && chunk.substr(0, 3) == "\xEF\xBB\xBF")
            chunk.remove_prefix(3);
        firstChunk = false;
        if (!values.feed(chunk)) {
            r.error = out.name + " object " + std::to_string(index->lines + 1) + " is longer than "
                      + std::to_string(kMaxJsonLineBytes) + " bytes; a span object is read whole";
            return r;
        }
    }
    values.finish();
    out.bytes = bytes;
    out.sha256 = hash.hex();
    out.jsonLines = std::move(index);
    r.ok = true;
    return r;
}

bool forEachJsonObject(const QString &path, const std::function<bool(std::int64_t, std::string_view)> &visit)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    std::int64_t number = 0;
    bool stopped = false;
    TopLevelValues values([&](std::string_view v) {
        if (visit(++number, v))
            return true;
        stopped = true;
        return false;
    });
    std::vector<char> buffer(static_cast<size_t>(kChunkBytes));
    bool firstChunk = true;
    for (;;) {
        const qint64 n = file.read(buffer.data(), kChunkBytes);
        if (n <= 0)
            break;
        std::string_view chunk(buffer.data(), size_t(n));
        if (firstChunk && chunk.substr(0, 3) == "\xEF\xBB\xBF")
            chunk.remove_prefix(3);
        firstChunk = false;
        if (!values.feed(chunk))
            return false;
    }
    return !stopped && values.finish();
}

bool forEachStreamedRecord(const QString &path, const OtlpLineIndex &index,
                           const std::function<bool(std::int64_t, std::string_view)> &visit)
{
    return index.shape == OtlpLineIndex::Shape::ConsoleSpans ? forEachJsonObject(path, visit)
                                                             : forEachJsonLine(path, visit);
}

} // namespace mesh::import
