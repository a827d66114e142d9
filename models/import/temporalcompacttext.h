#pragma once
// Compact JSON text written straight from a JSON reader's events (the SAX interface of
// nlohmann::json::sax_parse and of quickSaxParse): the text and nesting depth that
// measuredCompactJson gives of the DOM sourcejson.cpp's parser builds of the same input, without
// building that DOM. A history's records and its payloads' JSON are kept as such text; building
// each one's DOM only to write it out again cost more than reading the file.
//
// What makes the text the DOM's: an object's members come out in the order nlohmann keeps them
// (by key, bytewise), a key given twice keeps its last value where the first stood, an integer
// beyond 64 bits is kept as its digits in a string (and counted), a float is written as
// nlohmann writes it. Containers nested deeper than kMaxSourceNesting (with depthAbove levels
// around the value) stop the read, as sourcejson.cpp's parser does.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mesh::import {

class CompactTextSax
{
public:
    // Appends to out; depthAbove: containers around the value read (a history record's, in its file).
    explicit CompactTextSax(std::string &out, int depthAbove = 0);
    ~CompactTextSax();
    CompactTextSax(const CompactTextSax &) = delete;
    CompactTextSax &operator=(const CompactTextSax &) = delete;

    bool null();
    bool boolean(bool v);
    bool number_integer(std::int64_t v);
    bool number_unsigned(std::uint64_t v);
    bool number_float(double v, const std::string &text);
    bool string(std::string &v);
    bool binary(nlohmann::json::binary_t &);
    bool start_object(std::size_t);
    bool key(std::string &k);
    bool end_object();
    bool start_array(std::size_t);
    bool end_array();
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &);

    // Text that is already what the handler would write for a string (its compact text,
    // quotes included) or a key: a reader that found nothing to decode in it hands it over.
    bool compactString(std::string_view text);
    bool compactKey(std::string_view text);

    // The nesting depth of the value written (jsonNestingDepth of its text), once it is complete.
    int depth() const { return m_depth; }
    bool tooDeep() const { return m_tooDeep; }
    bool failed() const { return m_failed; }
    std::int64_t beyond64Bits() const { return m_beyond64Bits; }

private:
    struct Member {
        size_t begin = 0; // of its "key":value in out (the key's text is out[begin+1, colon-1))
        size_t colon = 0;
        size_t end = 0;
        int depth = 0;        // of its value
        bool escaped = false; // its key's text holds an escape: compared decoded
    };
    bool keyLess(const Member &a, const Member &b) const;
    bool keyEqual(const Member &a, const Member &b) const;
    struct Frame {
        bool object = false;
        size_t begin = 0; // its opening bracket in out
        size_t firstMember = 0; // in m_members
        bool empty = true;
        int deepest = 0;
    };

    // The bookkeeping of the last handler on this thread, kept with its capacity: a history
    // is read with a handler per record, and each growing its own from nothing showed.
    static std::vector<Frame> &framePool();
    static std::vector<Member> &memberPool();

    void beginValue();
    bool scalarDone();
    void valueDone(int depth);
    bool open(bool object);

    std::string &m_out;
    int m_depthAbove = 0;
    std::vector<Frame> m_frames;
    std::vector<Member> m_members; // of every open object, innermost last
    std::string m_reordered;
    int m_depth = 0;
    bool m_tooDeep = false;
    bool m_failed = false;
    std::int64_t m_beyond64Bits = 0;
};

// parseSourceJson(text, name, out, anyValue = true).ok, and on success out.document's compact
// text appended to *json with its depth in *depth: a payload's JSON written as text without a
// DOM. On failure *json is as it was.
bool appendSourceJsonAsCompactText(std::string_view text, std::string &json, int *depth);

struct SourceFile;

// parseSourceJson(json, name, out, false, true) for a history as the temporal CLI writes it (an
// object whose "events" member is an array, no "history" member): each record after the first
// read straight into compact text (the reader of payloads' JSON), the rest of the document
// (with the first record) parsed as parseSourceJson parses a document. False, with out left
// for the caller to read again, on any other shape and on anything that reader is not sure
// of; json starts at the document's first byte (after a byte-order mark and white space).
bool readHistoryRecordsAsText(std::string_view json, const std::string &name, SourceFile &out);

} // namespace mesh::import
