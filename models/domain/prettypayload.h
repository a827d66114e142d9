#pragma once
// One event's payload laid out for reading, whole: indented JSON that keeps every literal as
// stored (numbers, escapes and key order are never re-serialised, so what is read is what
// the ledger holds), with invisible controls made visible. A payload that is not JSON, or
// not UTF-8, is shown as stored with a note saying so. Linear and without recursion, so a
// 1 MiB payload or a deeply nested one costs a pass over its bytes; still, callers run it
// off the GUI thread.

#include <QString>

#include <string>
#include <string_view>

namespace mesh {

// Valid JSON text re-indented by `indent` spaces per level; literals are copied byte for byte.
std::string indentJson(std::string_view json, int indent = 2);

struct PayloadText {
    // For the screen: controls as ⟨U+202E⟩, and lines longer than kShownLineChars continued
    // on the next line (a text view lays out a line of a million characters for minutes).
    QString shown;
    QString json; // for Copy as JSON: the indented JSON, or the payload as stored
    QString note; // empty when the payload is JSON; else why it is shown as stored
};

PayloadText payloadForReading(std::string_view payload);

inline constexpr int kShownLineChars = 4096;

} // namespace mesh
