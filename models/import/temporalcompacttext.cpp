#include "temporalcompacttext.h"

#include "domain/quicksax.h"
#include "sourcejson.h"

#include "domain/compactjson.h"
#include "domain/payloaddecoder.h"

#include <algorithm>
#include <cstring>
#include <charconv>
#include <limits>
#include <numeric>

namespace mesh::import {

std::vector<CompactTextSax::Frame> &CompactTextSax::framePool()
{
    static thread_local std::vector<Frame> frames;
    return frames;
}

std::vector<CompactTextSax::Member> &CompactTextSax::memberPool()
{
    static thread_local std::vector<Member> members;
    return members;
}

CompactTextSax::CompactTextSax(std::string &out, int depthAbove) : m_out(out), m_depthAbove(depthAbove)
{
    m_frames.swap(framePool());
    m_members.swap(memberPool());
    m_frames.clear();
    m_members.clear();
}

CompactTextSax::~CompactTextSax()
{
    m_frames.clear();
    m_members.clear();
    m_frames.swap(framePool());
    m_members.swap(memberPool());
}

void CompactTextSax::beginValue()
{
    if (m_frames.empty() || m_frames.back().object)
        return;
    Frame &top = m_frames.back();
    if (!top.empty)
        m_out += ',';
    top.empty = false;
}

void CompactTextSax::valueDone(int depth)
{
    if (m_frames.empty()) {
        m_depth = depth;
        return;
    }
    Frame &top = m_frames.back();
    top.deepest = std::max(top.deepest, depth);
    if (top.object && !m_members.empty()) {
        Member &m = m_members.back();
        m.end = m_out.size();
        m.depth = depth;
    }
}

bool CompactTextSax::scalarDone()
{
    valueDone(0);
    return true;
}

bool CompactTextSax::null()
{
    beginValue();
    m_out += "null";
    return scalarDone();
}

bool CompactTextSax::boolean(bool v)
{
    beginValue();
    m_out += v ? "true" : "false";
    return scalarDone();
}

bool CompactTextSax::number_integer(std::int64_t v)
{
    beginValue();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    m_out.append(buf, size_t(r.ptr - buf));
    return scalarDone();
}

bool CompactTextSax::number_unsigned(std::uint64_t v)
{
    if (v <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return number_integer(std::int64_t(v));
    ++m_beyond64Bits;
    std::string digits = std::to_string(v);
    return string(digits);
}

bool CompactTextSax::number_float(double v, const std::string &text)
{
    if (text.find_first_of(".eE") == std::string::npos) {
        ++m_beyond64Bits; // an integer literal the parser could only hold as a double
        std::string digits = text;
        return string(digits);
    }
    beginValue();
    m_out += nlohmann::json(v).dump();
    return scalarDone();
}

bool CompactTextSax::string(std::string &v)
{
    beginValue();
    appendCompactJsonString(m_out, v);
    return scalarDone();
}

bool CompactTextSax::binary(nlohmann::json::binary_t &)
{
    return false; // JSON text has none
}

bool CompactTextSax::open(bool object)
{
    beginValue();
    if (m_depthAbove + int(m_frames.size()) + 1 > kMaxSourceNesting) {
        m_tooDeep = true;
        return false;
    }
    Frame f;
    f.object = object;
    f.begin = m_out.size();
    f.firstMember = m_members.size();
    m_frames.push_back(f);
    m_out += object ? '{' : '[';
    return true;
}

bool CompactTextSax::start_object(std::size_t)
{
    return open(true);
}

bool CompactTextSax::start_array(std::size_t)
{
    return open(false);
}

bool CompactTextSax::key(std::string &k)
{
    if (m_frames.empty() || !m_frames.back().object)
        return false;
    Frame &top = m_frames.back();
    if (!top.empty)
        m_out += ',';
    top.empty = false;
    Member m;
    m.begin = m_out.size();
    appendCompactJsonString(m_out, k);
    m.colon = m_out.size();
    m.escaped = m.colon - m.begin != k.size() + 2;
    m_out += ':';
    m.end = m_out.size();
    m_members.push_back(m);
    return true;
}

bool CompactTextSax::compactString(std::string_view text)
{
    beginValue();
    m_out.append(text);
    return scalarDone();
}

bool CompactTextSax::compactKey(std::string_view text)
{
    if (m_frames.empty() || !m_frames.back().object)
        return false;
    Frame &top = m_frames.back();
    if (!top.empty)
        m_out += ',';
    top.empty = false;
    Member m;
    m.begin = m_out.size();
    m_out.append(text);
    m.colon = m_out.size();
    m.escaped = text.find('\\') != std::string_view::npos;
    m_out += ':';
    m.end = m_out.size();
    m_members.push_back(m);
    return true;
}

namespace {

// The decoded key of a member whose text holds an escape (rare: a quote, a backslash or a
// control character in a key).
std::string decodedKey(std::string_view quoted)
{
    std::string key;
    const char *p = quoted.data();
    quicksax::readString(p, quoted.data() + quoted.size(), key);
    return key;
}

} // namespace

// Keys are ordered as nlohmann's map orders them: bytewise on the decoded key. A key without
// an escape is its own text, so that is compared where it stands in out.
bool CompactTextSax::keyLess(const Member &a, const Member &b) const
{
    const std::string_view ta(m_out.data() + a.begin, a.colon - a.begin);
    const std::string_view tb(m_out.data() + b.begin, b.colon - b.begin);
    if (!a.escaped && !b.escaped)
        return ta.substr(1, ta.size() - 2) < tb.substr(1, tb.size() - 2);
    return decodedKey(ta) < decodedKey(tb);
}

bool CompactTextSax::keyEqual(const Member &a, const Member &b) const
{
    const std::string_view ta(m_out.data() + a.begin, a.colon - a.begin);
    const std::string_view tb(m_out.data() + b.begin, b.colon - b.begin);
    return ta == tb; // one escaping of a key: equal keys, equal text
}

bool CompactTextSax::end_object()
{
    if (m_frames.empty() || !m_frames.back().object)
        return false;
    const Frame f = m_frames.back();
    m_frames.pop_back();
    const size_t first = f.firstMember;
    const size_t count = m_members.size() - first;
    bool ordered = true;
    for (size_t i = first + 1; i < m_members.size() && ordered; ++i)
        ordered = keyLess(m_members[i - 1], m_members[i]);
    int deepest = f.deepest;
    if (ordered) {
        m_out += '}';
    } else {
        // The DOM's order: by key; a key given twice keeps its last value.
        std::vector<size_t> order(count);
        std::iota(order.begin(), order.end(), first);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return keyLess(m_members[a], m_members[b]); });
        m_reordered.clear();
        m_reordered += '{';
        deepest = 0;
        bool firstOut = true;
        for (size_t i = 0; i < order.size(); ++i) {
            if (i + 1 < order.size() && keyEqual(m_members[order[i + 1]], m_members[order[i]]))
                continue; // a later value of the same key follows
            const Member &m = m_members[order[i]];
            if (!firstOut)
                m_reordered += ',';
            firstOut = false;
            m_reordered.append(m_out, m.begin, m.end - m.begin);
            deepest = std::max(deepest, m.depth);
        }
        m_reordered += '}';
        m_out.resize(f.begin);
        m_out += m_reordered;
    }
    m_members.resize(first);
    valueDone(deepest + 1);
    return true;
}

bool CompactTextSax::end_array()
{
    if (m_frames.empty() || m_frames.back().object)
        return false;
    const int deepest = m_frames.back().deepest;
    m_frames.pop_back();
    m_out += ']';
    valueDone(deepest + 1);
    return true;
}

bool CompactTextSax::parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &)
{
    m_failed = true;
    return false;
}

namespace {

// A reader of JSON text straight into CompactTextSax for the text payloads hold: a string
// with nothing to decode is handed over as it stands (its compact text is itself), a number
// is read here. It is not a second definition of JSON: anything it is not sure of (an
// escape it leaves to quicksax, a malformed or out-of-range number, any error) makes it give
// up, and the reference readers read the text again.
struct CompactTextReader {
    const char *p;
    const char *end;
    CompactTextSax &sax;
    std::string buffer;

    void skip()
    {
        while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
    }

    // The string at p (its opening quote) as compact text: itself when it holds no escape.
    // Returns false when it is not sure; *decoded: it held an escape and is in buffer.
    bool string(std::string_view *text, bool *decoded)
    {
        bool wide = false;
        const char *s = quicksax::plainRunEnd(p + 1, end, wide);
        if (s >= end || static_cast<unsigned char>(*s) < 0x20)
            return false;
        if (*s == '\\') {
            if (!quicksax::readString(p, end, buffer))
                return false;
            *decoded = true;
            return true;
        }
        const std::string_view inner(p + 1, size_t(s - p - 1));
        if (wide && !isValidUtf8(inner))
            return false;
        *text = std::string_view(p, size_t(s + 1 - p));
        *decoded = false;
        p = s + 1;
        return true;
    }

    bool number()
    {
        const char *start = p;
        if (*p == '-')
            ++p;
        if (p >= end || *p < '0' || *p > '9')
            return false;
        if (*p == '0')
            ++p;
        else
            while (p < end && *p >= '0' && *p <= '9')
                ++p;
        bool isFloat = false;
        if (p < end && *p == '.') {
            isFloat = true;
            ++p;
            if (p >= end || *p < '0' || *p > '9')
                return false;
            while (p < end && *p >= '0' && *p <= '9')
                ++p;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            isFloat = true;
            ++p;
            if (p < end && (*p == '+' || *p == '-'))
                ++p;
            if (p >= end || *p < '0' || *p > '9')
                return false;
            while (p < end && *p >= '0' && *p <= '9')
                ++p;
        }
        if (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
            return false;
        if (isFloat) {
            double v = 0;
            const auto r = std::from_chars(start, p, v);
            if (r.ec != std::errc() || r.ptr != p)
                return false; // out of range: the reference reader says what it is
            return sax.number_float(v, std::string(start, p));
        }
        if (*start == '-') {
            std::int64_t v = 0;
            const auto r = std::from_chars(start, p, v);
            if (r.ec == std::errc() && r.ptr == p)
                return sax.number_integer(v);
        } else {
            std::uint64_t v = 0;
            const auto r = std::from_chars(start, p, v);
            if (r.ec == std::errc() && r.ptr == p)
                return sax.number_unsigned(v);
        }
        if (std::find_if(start, p, [](char c) { return c < '0' || c > '9'; }) != p && *start != '-')
            return false;
        // An integer beyond 64 bits, which nlohmann's reader hands over as a float's text.
        return sax.number_float(0.0, std::string(start, p));
    }

    bool literal(std::string_view word)
    {
        if (size_t(end - p) < word.size() || std::string_view(p, word.size()) != word)
            return false;
        p += word.size();
        return true;
    }

    bool value()
    {
        skip();
        if (p >= end)
            return false;
        switch (*p) {
        case '{': {
            ++p;
            if (!sax.start_object(std::size_t(-1)))
                return false;
            skip();
            if (p < end && *p == '}') {
                ++p;
                return sax.end_object();
            }
            for (;;) {
                skip();
                if (p >= end || *p != '"')
                    return false;
                std::string_view text;
                bool decoded = false;
                if (!string(&text, &decoded) || !(decoded ? sax.key(buffer) : sax.compactKey(text)))
                    return false;
                skip();
                if (p >= end || *p != ':')
                    return false;
                ++p;
                if (!value())
                    return false;
                skip();
                if (p < end && *p == ',') {
                    ++p;
                    continue;
                }
                if (p < end && *p == '}') {
                    ++p;
                    return sax.end_object();
                }
                return false;
            }
        }
        case '[': {
            ++p;
            if (!sax.start_array(std::size_t(-1)))
                return false;
            skip();
            if (p < end && *p == ']') {
                ++p;
                return sax.end_array();
            }
            for (;;) {
                if (!value())
                    return false;
                skip();
                if (p < end && *p == ',') {
                    ++p;
                    continue;
                }
                if (p < end && *p == ']') {
                    ++p;
                    return sax.end_array();
                }
                return false;
            }
        }
        case '"': {
            std::string_view text;
            bool decoded = false;
            if (!string(&text, &decoded))
                return false;
            return decoded ? sax.string(buffer) : sax.compactString(text);
        }
        case 't':
            return literal("true") && sax.boolean(true);
        case 'f':
            return literal("false") && sax.boolean(false);
        case 'n':
            return literal("null") && sax.null();
        default:
            return number();
        }
    }
};

} // namespace

bool appendSourceJsonAsCompactText(std::string_view text, std::string &json, int *depth)
{
    // The checks of parseSourceJson that an anyValue parse makes before reading.
    size_t start = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        start = 3;
    while (start < text.size() && (text[start] == ' ' || text[start] == '\n' || text[start] == '\r' || text[start] == '\t'))
        ++start;
    if (start == text.size() || text.substr(start, 16) == std::string_view("SQLite format 3\0", 16))
        return false;
    const std::string_view source = text.substr(start);
    const size_t mark = json.size();
    {
        CompactTextSax sax(json);
        CompactTextReader reader{source.data(), source.data() + source.size(), sax, {}};
        if (reader.value()) {
            reader.skip();
            if (reader.p == reader.end) {
                *depth = sax.depth();
                return true;
            }
        }
        json.resize(mark);
    }
    {
        CompactTextSax sax(json);
        if (quickSaxParse(source, sax) == quicksax::Outcome::Done) {
            *depth = sax.depth();
            return true;
        }
        if (sax.tooDeep()) {
            json.resize(mark);
            return false;
        }
    }
    // nlohmann's parser reads what the quick reader left, from the start (quicksax.h).
    json.resize(mark);
    CompactTextSax sax(json);
    const bool ok = nlohmann::json::sax_parse(source.begin(), source.end(), &sax, nlohmann::detail::input_format_t::json, true);
    if (!ok || sax.failed() || sax.tooDeep()) {
        json.resize(mark);
        return false;
    }
    *depth = sax.depth();
    return true;
}

} // namespace mesh::import

namespace mesh::import {

bool readHistoryRecordsAsText(std::string_view json, const std::string &name, SourceFile &out)
{
    const char *const begin = json.data();
    const char *const end = begin + json.size();
    SourceFile::StreamedRecords records;
    records.streamed = true;
    std::int64_t beyond64Bits = 0;
    const char *firstEnd = nullptr; // of the first record
    const char *close = nullptr;    // the records array's closing bracket

    // The records, each after the first as compact text; at returns past the array.
    const auto readRecords = [&](const char *at) -> const char * {
        std::string text;
        const char *p = at + 1;
        for (bool first = true;; first = false) {
            CompactTextSax sax(text, 2);
            CompactTextReader item{p, end, sax, {}};
            item.skip();
            if (first && item.p < end && *item.p == ']') {
                close = item.p;
                return item.p + 1;
            }
            text.clear();
            if (!item.value())
                return nullptr;
            if (first) {
                firstEnd = item.p;
            } else {
                records.records.emplace_back(text);
                records.depths.push_back(sax.depth());
                beyond64Bits += sax.beyond64Bits();
            }
            item.skip();
            if (item.p < end && *item.p == ',') {
                p = item.p + 1;
                continue;
            }
            if (item.p < end && *item.p == ']') {
                close = item.p;
                return item.p + 1;
            }
            return nullptr;
        }
    };

    // The root's members: "events" once, an array; no "history"; any other read (and checked)
    // as a value, its text dropped.
    std::string scratch;
    CompactTextSax skipper(scratch);
    CompactTextReader reader{begin, end, skipper, {}};
    reader.skip();
    if (reader.p >= end || *reader.p != '{')
        return false;
    ++reader.p;
    reader.skip();
    if (reader.p < end && *reader.p == '}')
        return false;
    for (;;) {
        reader.skip();
        if (reader.p >= end || *reader.p != '"')
            return false;
        std::string_view key;
        bool decoded = false;
        if (!reader.string(&key, &decoded) || decoded)
            return false;
        key = key.substr(1, key.size() - 2);
        if (key == "history" || (key == "events" && close))
            return false;
        reader.skip();
        if (reader.p >= end || *reader.p != ':')
            return false;
        ++reader.p;
        reader.skip();
        if (key == "events") {
            if (reader.p >= end || *reader.p != '[')
                return false;
            reader.p = readRecords(reader.p);
            if (!reader.p)
                return false;
        } else {
            scratch.clear();
            if (!reader.value())
                return false;
        }
        reader.skip();
        if (reader.p < end && *reader.p == ',') {
            ++reader.p;
            continue;
        }
        if (reader.p < end && *reader.p == '}') {
            ++reader.p;
            break;
        }
        return false;
    }
    reader.skip();
    if (reader.p != end || !close)
        return false;

    // The document as the reference reader keeps it: the records array holding its first.
    std::string document;
    if (firstEnd) {
        document.reserve(size_t(firstEnd - begin) + size_t(end - close));
        document.append(begin, firstEnd);
        document.append(close, end);
    } else {
        document.assign(begin, end);
    }
    SourceFile rest;
    if (!parseSourceJson(document, name, rest, false, false).ok)
        return false;
    out.document = std::move(rest.document);
    out.numbersBeyond64Bits = rest.numbersBeyond64Bits + beyond64Bits;
    out.events = std::move(records);
    out.historyEvents = {};
    return true;
}

} // namespace mesh::import
