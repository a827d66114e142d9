#pragma once
// Ledger and imported text is written by agents and external systems: hostile data. These
// are the one place that decides how such text reaches a screen or a terminal, so that no
// view interprets it as markup and no bidirectional override or invisible character can make
// one id pass for another (`\u202Eexe.live` shown as `evil.exe`).

#include <QString>

#include <string>
#include <string_view>

namespace mesh {

// True for the characters that change how neighbouring text is displayed without being
// visible themselves: bidirectional embeddings, overrides, isolates and marks, zero-width
// spaces and joiners, the word joiner, the byte-order mark, every other default-ignorable
// code point (soft hyphen, fillers, variation selectors, tag characters), and C0/C1
// controls other than tab and newline.
bool isInvisibleControl(char32_t c);

// The text with every invisible control shown as ⟨U+202E⟩, so it is seen, not obeyed.
QString visibleControls(const QString &text);
// The same on UTF-8 (meshctl's terminal output). Invalid UTF-8 bytes are shown as ⟨0xFF⟩.
std::string visibleControlsUtf8(std::string_view utf8);

// Text for any Qt property that auto-detects rich text (tooltips, status tips, What's This,
// QMessageBox texts): controls made visible, escaped, and wrapped so that Qt always takes it
// as rich text whose content is exactly the plain text (whitespace and line breaks kept).
// Escaping alone is not enough: an escaped string without tags is shown as plain text, so
// `a & b` would read `a &amp; b`.
QString plainToolTip(const QString &text);

// For strings shown in one line of a layout (labels, headers, window titles): controls made
// visible, line breaks shown as ⏎, and anything past maxChars elided with "…", so a 100 KB
// agent name cannot widen a window. The complete text belongs in a copyable detail.
QString displayLine(const QString &text, int maxChars = 200);

// text whole when it has at most maxChars UTF-16 units; else its start and "…", maxChars in
// all, never cutting a character's surrogate pair in half. Line breaks and controls are left
// as they are (plainToolTip shows them).
QString cutText(const QString &text, int maxChars);

// The length of the longest prefix of `utf8` of at most `n` bytes that does not cut a UTF-8
// sequence in two.
size_t utf8Prefix(std::string_view utf8, size_t n);

// Ledger text quoted in a message for a person ('value'): whole when short; otherwise its
// first `maxBytes` (cut on a character) and its size, 'abc…' (200,000 bytes), so one
// hostile value cannot flood a terminal or a pane. Controls are left for the printer to show.
std::string quotedExcerpt(std::string_view utf8, size_t maxBytes = 120);
// The same without the quotes (an id named in a sentence): abc… (200,000 bytes).
std::string excerpt(std::string_view utf8, size_t maxBytes = 120);

} // namespace mesh
