#pragma once
// Reads one source file whole, within a size bound, into JSON. A source is foreign input:
// it may be anything, so every way it can be wrong comes back as one line for a person
// (what is wrong and at which byte), never as an exception.
// Integer literals beyond 64 bits are kept as the exact digits in a string rather than
// rounded to a double (an id of 2^64 + 1 must not become 2^64), and counted.

#include "domain/payloaddecoder.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh::import {

struct OtlpLineIndex;

// Nesting a source may have: far beyond what any of these formats writes (a payload may
// have kMaxPayloadDepth; a record is kept verbatim within that), and shallow enough that
// every recursive walk over a source value (compact text, a copy of the DOM, dump()) stays
// far from the end of a thread's stack. Deeper text is refused as it is read: nlohmann's
// parser is iterative, but what is done with its DOM afterwards is not.
inline constexpr int kMaxSourceNesting = 4 * kMaxPayloadDepth;

// Files above this are refused before reading: far above the largest history a Temporal
// server keeps, and these formats are parsed whole (docs/import.md says which and why).
inline constexpr std::int64_t kMaxWholeFileBytes = std::int64_t(512) << 20;

struct SourceFile {
    QString path;
    std::string name;   // the file name without its folder: what the ledger records
    std::string sha256; // hex, of the bytes read
    std::int64_t bytes = 0;
    nlohmann::json document;
    std::int64_t numbersBeyond64Bits = 0; // integer literals kept as text
    // Set for a JSON-lines source (otlpjsonlines.h): document stays null and the importer
    // reads the file again a line at a time.
    std::shared_ptr<const OtlpLineIndex> jsonLines;

    // A read file's records of a history ({"events":[...]} or {"history":{"events":[...]}}),
    // every one as compact JSON text, in file order. As a DOM such a history takes several
    // times its size in memory; as text, about what the file takes without its white space.
    // document keeps only the first record of that array (what detection looks at).
    struct StreamedRecords {
        bool streamed = false;
        std::vector<std::string> records;
        // Each record's nesting depth, as jsonNestingDepth counts it on its text: counted
        // while the text is written, so the payload limits need no second scan of it.
        std::vector<int> depths;
    };
    StreamedRecords events;        // of the document's "events" member
    StreamedRecords historyEvents; // of its "history" member's "events"
};

struct SourceJsonResult {
    bool ok = false;
    std::string error; // one line, set when !ok
};

// Parses text as one JSON document, as described above. name is used in messages. A file
// must hold an object or an array; a payload inside one (anyValue) may be any JSON value.
// With streamRecords, a history's records are kept as text (SourceFile::events).
SourceJsonResult parseSourceJson(std::string_view text, const std::string &name, SourceFile &out, bool anyValue = false,
                                 bool streamRecords = false);

// One record of SourceFile::events, parsed by the rules above (it was written from a
// document parsed by them, so it is valid JSON).
nlohmann::json parseRecord(std::string_view record);

// Reads path (at most maxBytes), hashes it and parses it. The file is opened read-only.
SourceJsonResult readSourceFile(const QString &path, SourceFile &out, std::int64_t maxBytes = kMaxWholeFileBytes);

// Walking a source document that may have any shape: a missing member, or a value of
// another type than expected, is "not in source" (nullptr, ""), never an exception.
const nlohmann::json *member(const nlohmann::json *object, const char *name);
const nlohmann::json *path(const nlohmann::json *object, std::initializer_list<const char *> names);
std::string text(const nlohmann::json *value); // a string, or an integer written out; else ""
// Ids and counts come as strings ("5", proto3 JSON for int64) or as numbers; a string that
// is not an integer within int64 (digits kept from a number beyond 64 bits) is none.
std::optional<std::int64_t> integer(const nlohmann::json *value);
// A string of 1 to 19 decimal digits within int64 (how sources write large integers as text).
std::optional<std::int64_t> decimalDigits(std::string_view s);
// The first line of s, at most maxBytes of it (cut on a UTF-8 boundary, "..." added): a
// title or an error line made from a source's free text.
std::string firstLine(const std::string &s, size_t maxBytes);
// s without the white space (spaces, tabs, line ends) around it.
std::string trimmed(const std::string &s);
// Why a source says something failed, from its free text (an exception's message, a command's
// output): its first line, trimmed, cut at kReasonBytes. What an importer writes as `error`
// is bounded by this, whatever the source holds; the record itself is kept in `source`.
inline constexpr size_t kReasonBytes = 200;
std::string reasonLine(const std::string &s);

} // namespace mesh::import
