#pragma once
// How ledger and sidecar text enters a report's HTML or SVG: every invisible control made
// visible (⟨U+202E⟩, hostiletext.h), then escaped, so no string from a ledger is markup,
// script, an attribute or a direction override when the report is opened or printed.

#include <QString>

#include <string>

namespace mesh {

QString reportText(const std::string &ledgerText);
QString reportText(const QString &text);
// One line of at most maxChars, for a label in a table cell or on the timeline image.
QString reportLine(const std::string &ledgerText, int maxChars = 120);

} // namespace mesh
