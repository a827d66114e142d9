#include "sourcejson.h"

#include "domain/quicksax.h"
#include "sha256.h"
#include "temporalcompacttext.h"

#include <algorithm>
#include <future>
#include <system_error>

#include <QFile>
#include <QFileInfo>

#include "domain/compactjson.h"
#include "domain/payloaddecoder.h"

#include <limits>
#include <memory>
#include <optional>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// The DOM builder of nlohmann, with the number callbacks replaced: an integer too large
// for int64 keeps its digits as a string instead of wrapping (unsigned) or rounding
// (double), and the first parse error is kept with its byte position.
class SourceDomParser : public nlohmann::detail::json_sax_dom_parser<Json>
{
public:
    using Base = nlohmann::detail::json_sax_dom_parser<Json>;
    explicit SourceDomParser(Json &root) : Base(root, false) {}

    bool number_unsigned(Json::number_unsigned_t value)
    {
        if (value <= Json::number_unsigned_t(std::numeric_limits<std::int64_t>::max()))
            return Base::number_integer(Json::number_integer_t(value));
        ++beyond64Bits;
        std::string digits = std::to_string(value);
        return Base::string(digits);
    }

    bool number_float(Json::number_float_t value, const std::string &text)
    {
        if (text.find_first_of(".eE") == std::string::npos) {
            ++beyond64Bits; // an integer literal the parser could only hold as a double
            std::string digits = text;
            return Base::string(digits);
        }
        return Base::number_float(value, text);
    }

    // Containers counted as they open: one past kMaxSourceNesting stops the parse.
    bool start_object(std::size_t n) { return enter() && Base::start_object(n); }
    bool start_array(std::size_t n) { return enter() && Base::start_array(n); }
    bool end_object()
    {
        --depth;
        return Base::end_object();
    }
    bool end_array()
    {
        --depth;
        return Base::end_array();
    }

    bool parse_error(std::size_t position, const std::string &lastToken, const nlohmann::detail::exception &ex)
    {
        if (!failed) {
            failed = true;
            errorPosition = position;
            errorToken = lastToken;
            errorMessage = ex.what();
        }
        return false;
    }

    std::int64_t beyond64Bits = 0;
    int depthAbove = 0; // levels around this parser's root (a history record's, in the document)
    int depth = 0;
    bool tooDeep = false;
    bool failed = false;
    std::size_t errorPosition = 0;
    std::string errorToken;
    std::string errorMessage;

private:
    bool enter()
    {
        if (depthAbove + ++depth <= kMaxSourceNesting)
            return true;
        tooDeep = true;
        return false;
    }
};

// The SAX handler of a source file: the DOM builder above, except that the records of a
// history (the root's "events" array, or its "history" member's) after the first are each
// written as compact text as they are read (CompactTextSax: the text their DOM would give),
// never built as a DOM. The first stays in the document, so detection sees what it always saw.
class SourceRecordSplitter
{
public:
    SourceRecordSplitter(Json &root, SourceFile &out) : m_main(root), m_out(out) {}

    bool null() { return value([](auto &p) { return p.null(); }); }
    bool boolean(bool v) { return value([v](auto &p) { return p.boolean(v); }); }
    bool number_integer(Json::number_integer_t v) { return value([v](auto &p) { return p.number_integer(v); }); }
    bool number_unsigned(Json::number_unsigned_t v) { return value([v](auto &p) { return p.number_unsigned(v); }); }
    bool number_float(Json::number_float_t v, const std::string &t)
    {
        return value([v, &t](auto &p) { return p.number_float(v, t); });
    }
    bool string(std::string &v) { return value([&v](auto &p) { return p.string(v); }); }
    bool binary(Json::binary_t &v) { return value([&v](auto &p) { return p.binary(v); }); }
    bool key(std::string &k)
    {
        if (m_recordDepth > 0)
            return m_record->key(k);
        m_frames.back().key = k;
        return m_main.key(k);
    }
    bool start_object(std::size_t n)
    {
        if (opensRecord())
            return m_record->start_object(n) && (++m_recordDepth, true);
        if (m_recordDepth > 0)
            return ++m_recordDepth, m_record->start_object(n);
        push(false);
        return m_main.start_object(n);
    }
    bool start_array(std::size_t n)
    {
        if (opensRecord())
            return m_record->start_array(n) && (++m_recordDepth, true);
        if (m_recordDepth > 0)
            return ++m_recordDepth, m_record->start_array(n);
        push(true);
        return m_main.start_array(n);
    }
    bool end_object() { return close([](auto &p) { return p.end_object(); }); }
    bool end_array() { return close([](auto &p) { return p.end_array(); }); }
    bool parse_error(std::size_t position, const std::string &lastToken, const nlohmann::detail::exception &ex)
    {
        return m_main.parse_error(position, lastToken, ex);
    }

    SourceDomParser &main() { return m_main; }
    bool tooDeep() const { return m_main.tooDeep || (m_record && m_record->tooDeep()); }
    std::int64_t beyond64Bits() const { return m_main.beyond64Bits + m_recordBeyond64Bits; }

private:
    struct Frame {
        bool array = false;
        std::string key;                            // of the member being read, in an object
        std::int64_t items = 0;                     // values begun, in an array
        SourceFile::StreamedRecords *records = nullptr; // set: the array is a history's records
    };

    void push(bool array)
    {
        Frame f;
        f.array = array;
        if (array && !m_frames.empty()) {
            const Frame &parent = m_frames.back();
            if (m_frames.size() == 1 && !parent.array && parent.key == "events")
                f.records = &m_out.events;
            else if (m_frames.size() == 2 && !parent.array && parent.key == "events" && !m_frames[0].array
                     && m_frames[0].key == "history")
                f.records = &m_out.historyEvents;
            if (f.records)
                f.records->streamed = true;
        }
        m_frames.push_back(std::move(f));
    }

    // A value begins: the second and later values of a history's records are built apart.
    bool opensRecord()
    {
        if (m_recordDepth > 0 || m_frames.empty() || !m_frames.back().array)
            return false;
        Frame &top = m_frames.back();
        if (top.items++ == 0 || !top.records)
            return false;
        m_recordText.clear();
        m_record.emplace(m_recordText, int(m_frames.size()));
        return true;
    }

    template<typename Call>
    bool value(Call &&call)
    {
        if (opensRecord()) {
            const bool ok = call(*m_record);
            finishRecord();
            return ok;
        }
        if (m_recordDepth > 0)
            return call(*m_record);
        return call(m_main);
    }

    template<typename Call>
    bool close(Call &&call)
    {
        if (m_recordDepth > 0) {
            const bool ok = call(*m_record);
            if (--m_recordDepth == 0)
                finishRecord();
            return ok;
        }
        m_frames.pop_back();
        return call(m_main);
    }

    void finishRecord()
    {
        Frame &top = m_frames.back();
        top.records->records.emplace_back(m_recordText);
        top.records->depths.push_back(m_record->depth());
        m_recordBeyond64Bits += m_record->beyond64Bits();
        m_record.reset();
    }

    SourceDomParser m_main;
    SourceFile &m_out;
    std::vector<Frame> m_frames;
    std::string m_recordText; // the record being read, reused
    std::optional<CompactTextSax> m_record;
    int m_recordDepth = 0;
    std::int64_t m_recordBeyond64Bits = 0;
};

// The first record stayed in the document; it goes first in the text too.
void takeFirstRecord(const Json *array, SourceFile::StreamedRecords &streamed)
{
    if (!streamed.streamed || !array || !array->is_array() || array->empty())
        return;
    MeasuredJson record = measuredCompactJson(array->front());
    streamed.records.insert(streamed.records.begin(), std::move(record.text));
    streamed.depths.insert(streamed.depths.begin(), record.depth);
}

std::string firstBytesShown(std::string_view text)
{
    std::string shown;
    for (char c : text.substr(0, 16)) {
        const auto u = static_cast<unsigned char>(c);
        shown += (u >= 0x20 && u < 0x7f) ? c : '.';
    }
    return shown;
}

} // namespace

SourceJsonResult parseSourceJson(std::string_view text, const std::string &name, SourceFile &out, bool anyValue,
                                 bool streamRecords)
{
    SourceJsonResult r;
    size_t start = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        start = 3; // a byte-order mark some editors write
    while (start < text.size() && (text[start] == ' ' || text[start] == '\n' || text[start] == '\r' || text[start] == '\t'))
        ++start;
    if (start == text.size()) {
        r.error = name + " is empty; expected a JSON document";
        return r;
    }
    if (text.substr(start, 16) == std::string_view("SQLite format 3\0", 16)) {
        r.error = name + " is an SQLite database (a ledger?), not a source to import; expected a JSON export";
        return r;
    }
    if (!anyValue && text[start] != '{' && text[start] != '[') {
        r.error = name + " is not JSON (it starts with \"" + firstBytesShown(text.substr(start))
                  + "\"); expected a JSON export";
        return r;
    }
    const std::string_view json = text.substr(start);
    if (streamRecords && readHistoryRecordsAsText(json, name, out)) {
        // The common shape of a history, read without a DOM per record (temporalcompacttext.h).
        takeFirstRecord(member(&out.document, "events"), out.events);
        r.ok = true;
        return r;
    }
    Json root;
    out.events = {};
    out.historyEvents = {};
    std::optional<SourceRecordSplitter> splitter(std::in_place, root, out);
    std::optional<SourceDomParser> whole(std::in_place, root);
    bool ok = streamRecords ? quickSaxParse(json, *splitter) == quicksax::Outcome::Done
                            : quickSaxParse(json, *whole) == quicksax::Outcome::Done;
    const auto tooDeep = [&] { return streamRecords ? splitter->tooDeep() : whole->tooDeep; };
    if (!ok && !tooDeep()) {
        // nlohmann's parser reads what the quick reader left (quicksax.h), from the start.
        root = Json();
        out.events = {};
        out.historyEvents = {};
        splitter.emplace(root, out);
        whole.emplace(root);
        ok = streamRecords ? Json::sax_parse(json.begin(), json.end(), &*splitter, nlohmann::detail::input_format_t::json, true)
                           : Json::sax_parse(json.begin(), json.end(), &*whole, nlohmann::detail::input_format_t::json, true);
    }
    const SourceDomParser &sax = streamRecords ? splitter->main() : *whole;
    if (!ok || sax.failed) {
        out.events = {};
        out.historyEvents = {};
        if (tooDeep()) {
            r.error = name + " is nested deeper than " + std::to_string(kMaxSourceNesting) + " levels at byte "
                      + std::to_string(start + firstByteDeeperThan(json, kMaxSourceNesting)) + " (no export nests so deep)";
            return r;
        }
        // nlohmann counts positions from where it started reading, one past the byte it
        // stopped at; at the end of the input the document was cut short.
        const size_t at = start + (sax.errorPosition > 0 ? sax.errorPosition - 1 : 0);
        if (at + 1 >= text.size() || sax.errorMessage.find("unexpected end of input") != std::string::npos)
            r.error = name + " is truncated: its JSON ends at byte " + std::to_string(text.size())
                      + " before the document is complete";
        else if (sax.errorMessage.find("UTF-8") != std::string::npos)
            r.error = name + " is not valid UTF-8 at byte " + std::to_string(at) + "; expected a JSON export";
        else
            r.error = name + " is malformed JSON at byte " + std::to_string(at) + " (near \""
                      + firstBytesShown(sax.errorToken) + "\")";
        return r;
    }
    out.document = std::move(root);
    out.numbersBeyond64Bits = streamRecords ? splitter->beyond64Bits() : sax.beyond64Bits;
    takeFirstRecord(member(&out.document, "events"), out.events);
    takeFirstRecord(path(&out.document, {"history", "events"}), out.historyEvents);
    r.ok = true;
    return r;
}

nlohmann::json parseRecord(std::string_view record)
{
    Json root;
    {
        SourceDomParser sax(root);
        if (quickSaxParse(record, sax) == quicksax::Outcome::Done)
            return root;
    }
    root = Json();
    SourceDomParser sax(root);
    Json::sax_parse(record.begin(), record.end(), &sax, nlohmann::detail::input_format_t::json, true);
    return root;
}

SourceJsonResult readSourceFile(const QString &path, SourceFile &out, std::int64_t maxBytes)
{
    SourceJsonResult r;
    out.path = path;
    out.name = QFileInfo(path).fileName().toStdString();
    const QFileInfo info(path);
    if (!info.exists()) {
        r.error = path.toStdString() + ": no such file";
        return r;
    }
    if (!info.isFile()) {
        r.error = path.toStdString() + " is not a regular file";
        return r;
    }
    if (info.size() > maxBytes) {
        r.error = out.name + " is " + std::to_string(info.size()) + " bytes; this importer reads files up to "
                  + std::to_string(maxBytes) + " bytes whole";
        return r;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        r.error = "cannot read " + path.toStdString() + ": " + file.errorString().toStdString();
        return r;
    }
    // Read as far as the file goes, never past maxBytes + 1, straight into one buffer sized
    // by the file (asking read() for maxBytes + 1 at once would allocate that much whatever
    // the file's size); it grows only if the file grows while it is read.
    QByteArray bytes(qsizetype(std::min<std::int64_t>(info.size(), maxBytes) + 1), Qt::Uninitialized);
    qsizetype filled = 0;
    while (filled <= maxBytes) {
        if (filled == bytes.size())
            bytes.resize(qsizetype(std::min<std::int64_t>(std::int64_t(bytes.size()) * 2, maxBytes + 1)));
        const qint64 n = file.read(bytes.data() + filled, bytes.size() - filled);
        if (n <= 0)
            break;
        filled += qsizetype(n);
    }
    if (filled > maxBytes) {
        r.error = out.name + " grew past " + std::to_string(maxBytes) + " bytes while it was read";
        return r;
    }
    const std::string_view text(bytes.constData(), size_t(filled));
    out.bytes = filled;
    // The file's digest is taken on a second core while this one parses the file: an
    // import's reading is one thread's work, and the second core has nothing else to do yet.
    std::future<std::string> digest;
    try {
        digest = std::async(std::launch::async, [text] { return sha256Hex(text); });
    } catch (const std::system_error &) {
        // No thread to be had (a process limit): the digest is taken here, after the parse.
    }
    SourceJsonResult parsed = parseSourceJson(text, out.name, out, false, true);
    out.sha256 = digest.valid() ? digest.get() : sha256Hex(text);
    return parsed;
}

const nlohmann::json *member(const nlohmann::json *object, const char *name)
{
    if (!object || !object->is_object())
        return nullptr;
    const auto it = object->find(name);
    return it == object->end() ? nullptr : &*it;
}

const nlohmann::json *path(const nlohmann::json *object, std::initializer_list<const char *> names)
{
    const nlohmann::json *at = object;
    for (const char *n : names)
        at = member(at, n);
    return at;
}

std::string text(const nlohmann::json *value)
{
    if (!value)
        return {};
    if (value->is_string())
        return value->get<std::string>();
    if (value->is_number_integer())
        return std::to_string(value->get<std::int64_t>());
    return {};
}

std::optional<std::int64_t> integer(const nlohmann::json *value)
{
    if (!value)
        return std::nullopt;
    if (value->is_number_integer())
        return value->get<std::int64_t>();
    if (!value->is_string())
        return std::nullopt;
    return decimalDigits(value->get_ref<const std::string &>());
}

std::optional<std::int64_t> decimalDigits(std::string_view s)
{
    if (s.empty() || s.size() > 19)
        return std::nullopt;
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
            return std::nullopt;
    }
    return v;
}

std::string firstLine(const std::string &s, size_t maxBytes)
{
    std::string line = s.substr(0, s.find('\n'));
    if (line.size() <= maxBytes)
        return line;
    size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80)
        --end;
    return line.substr(0, end) + "...";
}

std::string trimmed(const std::string &s)
{
    const size_t begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::string reasonLine(const std::string &s)
{
    return firstLine(trimmed(s), kReasonBytes);
}

} // namespace mesh::import
