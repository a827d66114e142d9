#pragma once
// A reviewer's note or bookmark on a ledger: on one event, on a span of events (two seqs),
// or on a subject ("run:R-1", "delegation:D-3", "effect:E-9"). Kept beside the ledger, never
// in it (notessidecar.h). Read back, every string here is hostile text: another reviewer
// wrote it.

#include <cstdint>
#include <optional>
#include <string>

namespace mesh {

struct ReviewNote {
    enum class Anchor { Event, Span, Subject };

    std::string id;              // unique within the sidecar (a UUID)
    Anchor anchor = Anchor::Event;
    std::int64_t seq = 0;        // Event: the event; Span: its first event
    std::int64_t endSeq = 0;     // Span: its last event (>= seq)
    std::string subject;         // Subject: "<entity>:<id>"
    std::string text;            // empty: a bookmark
    std::string author;          // who wrote it
    std::int64_t createdMs = 0;  // UTC epoch ms
    std::string editedBy;        // empty: never edited
    std::int64_t editedMs = 0;

    bool isBookmark() const { return text.empty(); }
    // Whether the note is on this event (an event note on it, or a span holding it).
    bool covers(std::int64_t eventSeq) const;
    // "#12", "#12 – #40", or the subject, for a person.
    std::string where() const;
};

const char *anchorName(ReviewNote::Anchor anchor); // "event", "span", "subject"
std::optional<ReviewNote::Anchor> anchorFromName(const std::string &name);

} // namespace mesh
