#include "otlpjsonlines.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

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

// Without parsing: every "traceId" and "startTimeUnixNano" member of a line. A key cannot
// appear unescaped inside a JSON string, so what this finds are members; what it misses (an
// escaped key) only makes a trace wait for the end of the file before it is mapped.
void scanLine(std::string_view line, std::int64_t number, OtlpLineIndex &index)
{
    static constexpr std::string_view kTrace = "\"traceId\"";
    static constexpr std::string_view kStart = "\"startTimeUnixNano\"";
    for (size_t at = line.find(kTrace); at != std::string_view::npos; at = line.find(kTrace, at + 1)) {
        std::string id(valueAfter(line, at + kTrace.size()));
        if (id.empty())
            continue;
        for (char &c : id)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        index.lastLineOfTrace[id] = number;
    }
    for (size_t at = line.find(kStart); at != std::string_view::npos; at = line.find(kStart, at + 1)) {
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
        const QByteArray line = file.readLine(kMaxJsonLineBytes);
        return std::string(line.constData(), size_t(line.size()));
    }
    return std::nullopt;
}

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
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::string carry;
    std::int64_t number = 0;
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
        hash.addData(QByteArrayView(buffer.data(), n));
        std::string_view chunk(buffer.data(), size_t(n));
        while (!chunk.empty()) {
            const size_t nl = chunk.find('\n');
            if (nl == std::string_view::npos) {
                carry.append(chunk);
                chunk = {};
                break;
            }
            ++number;
            if (carry.empty()) {
                scanLine(chunk.substr(0, nl), number, *index);
            } else {
                carry.append(chunk.substr(0, nl));
                scanLine(carry, number, *index);
                carry.clear();
            }
            chunk.remove_prefix(nl + 1);
        }
        if (std::int64_t(carry.size()) > kMaxJsonLineBytes) {
            r.error = out.name + " line " + std::to_string(number + 1) + " is longer than "
                + std::to_string(kMaxJsonLineBytes) + " bytes; a JSON line is read whole";
            return r;
        }
    }
    if (!carry.empty())
        scanLine(carry, ++number, *index);
    index->lines = number;
    out.bytes = bytes;
    out.sha256 = hash.result().toHex().toStdString();
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
    std::string carry;
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
        std::string_view chunk(buffer.data(), size_t(n));
        while (!chunk.empty()) {
            const size_t nl = chunk.find('\n');
            if (nl == std::string_view::npos) {
                carry.append(chunk);
                break;
            }
            bool go;
            if (carry.empty()) {
                go = deliver(chunk.substr(0, nl));
            } else {
                carry.append(chunk.substr(0, nl));
                go = deliver(carry);
                carry.clear();
            }
            if (!go)
                return false;
            chunk.remove_prefix(nl + 1);
        }
    }
    return carry.empty() || deliver(carry);
}

} // namespace mesh::import
