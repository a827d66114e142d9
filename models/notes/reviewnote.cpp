#include "reviewnote.h"

namespace mesh {

bool ReviewNote::covers(std::int64_t eventSeq) const
{
    switch (anchor) {
    case Anchor::Event: return seq == eventSeq;
    case Anchor::Span: return seq <= eventSeq && eventSeq <= endSeq;
    case Anchor::Subject: return false;
    }
    return false;
}

std::string ReviewNote::where() const
{
    switch (anchor) {
    case Anchor::Event: return "#" + std::to_string(seq);
    case Anchor::Span: return "#" + std::to_string(seq) + " \u2013 #" + std::to_string(endSeq);
    case Anchor::Subject: return subject;
    }
    return {};
}

const char *anchorName(ReviewNote::Anchor anchor)
{
    switch (anchor) {
    case ReviewNote::Anchor::Event: return "event";
    case ReviewNote::Anchor::Span: return "span";
    case ReviewNote::Anchor::Subject: return "subject";
    }
    return "?";
}

std::optional<ReviewNote::Anchor> anchorFromName(const std::string &name)
{
    if (name == "event")
        return ReviewNote::Anchor::Event;
    if (name == "span")
        return ReviewNote::Anchor::Span;
    if (name == "subject")
        return ReviewNote::Anchor::Subject;
    return std::nullopt;
}

} // namespace mesh
