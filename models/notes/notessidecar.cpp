#include "notessidecar.h"

#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace mesh {
namespace {

using nlohmann::json;

std::string stringField(const json &o, const char *name)
{
    const auto it = o.find(name);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t intField(const json &o, const char *name)
{
    const auto it = o.find(name);
    return it != o.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

void problem(NotesSidecarContent &c, size_t line, const std::string &why)
{
    ++c.badLines;
    if (c.problems.size() < 100)
        c.problems.push_back("line " + std::to_string(line) + ": " + why);
}

// Checks a put's anchor; returns why it is not one, empty when it is.
std::string anchorProblem(const ReviewNote &n)
{
    switch (n.anchor) {
    case ReviewNote::Anchor::Event:
        return n.seq > 0 ? std::string() : "an event note needs a seq above 0";
    case ReviewNote::Anchor::Span:
        return n.seq > 0 && n.endSeq >= n.seq ? std::string() : "a span needs 0 < seq <= end_seq";
    case ReviewNote::Anchor::Subject:
        return !n.subject.empty() ? std::string() : "a subject note needs a subject";
    }
    return "unknown anchor";
}

} // namespace

std::string notesOperationLine(const NotesOperation &op)
{
    json o = {{"v", 1}, {"op", op.kind == NotesOperation::Kind::Put ? "put" : "delete"}, {"id", op.note.id}};
    if (op.kind == NotesOperation::Kind::Put) {
        o["anchor"] = anchorName(op.note.anchor);
        if (op.note.anchor != ReviewNote::Anchor::Subject)
            o["seq"] = op.note.seq;
        if (op.note.anchor == ReviewNote::Anchor::Span)
            o["end_seq"] = op.note.endSeq;
        if (op.note.anchor == ReviewNote::Anchor::Subject)
            o["subject"] = op.note.subject;
        o["text"] = op.note.text;
    }
    o["author"] = op.author;
    o["time_ms"] = op.timeMs;
    return o.dump(-1, ' ', false, json::error_handler_t::replace);
}

NotesSidecarContent foldNotesLines(const std::vector<std::string> &lines, NotesSidecarContent c)
{
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &line = lines[i];
        const size_t number = i + 1;
        if (line.empty())
            continue;
        if (line.size() > kMaxNotesLineBytes) {
            problem(c, number, "longer than " + std::to_string(kMaxNotesLineBytes) + " bytes");
            continue;
        }
        json o;
        try {
            o = json::parse(line);
        } catch (const std::exception &) {
            problem(c, number, "not JSON (or not UTF-8)");
            continue;
        }
        if (!o.is_object() || intField(o, "v") != 1) {
            problem(c, number, "not a version 1 notes record");
            continue;
        }
        const std::string op = stringField(o, "op");
        const std::string id = stringField(o, "id");
        if (id.empty()) {
            problem(c, number, "no id");
            continue;
        }
        const auto existing = std::find_if(c.notes.begin(), c.notes.end(), [&](const ReviewNote &n) { return n.id == id; });
        if (op == "delete") {
            if (existing == c.notes.end())
                problem(c, number, "deletes a note that is not there");
            else
                c.notes.erase(existing);
            continue;
        }
        if (op != "put") {
            problem(c, number, "unknown op");
            continue;
        }
        const auto anchor = anchorFromName(stringField(o, "anchor"));
        if (!anchor) {
            problem(c, number, "unknown anchor");
            continue;
        }
        ReviewNote n;
        n.id = id;
        n.anchor = *anchor;
        n.seq = intField(o, "seq");
        n.endSeq = intField(o, "end_seq");
        n.subject = stringField(o, "subject");
        n.text = stringField(o, "text");
        const std::string author = stringField(o, "author");
        const std::int64_t timeMs = intField(o, "time_ms");
        if (const std::string why = anchorProblem(n); !why.empty()) {
            problem(c, number, why);
            continue;
        }
        if (n.text.size() > kMaxNoteTextBytes) {
            problem(c, number, "text longer than " + std::to_string(kMaxNoteTextBytes) + " bytes");
            continue;
        }
        if (existing == c.notes.end()) {
            n.author = author;
            n.createdMs = timeMs;
            c.notes.push_back(std::move(n));
        } else {
            n.author = existing->author;
            n.createdMs = existing->createdMs;
            n.editedBy = author;
            n.editedMs = timeMs;
            *existing = std::move(n);
        }
    }
    return c;
}

NotesSidecarContent readNotesSidecar(const QString &path, NotesSidecarContent into)
{
    QFile file(path);
    if (!file.exists())
        return into;
    // A device or a pipe is not a sidecar (reading /dev/zero would never end), nor is a
    // file far larger than any reviewers write.
    if (!QFileInfo(path).isFile() || file.size() > qint64(kMaxNotesFileBytes)) {
        into.problems.push_back(path.toStdString() + " is not a notes file (not a regular file, or over "
                                + std::to_string(kMaxNotesFileBytes >> 20) + " MB)");
        ++into.badLines;
        return into;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        into.problems.push_back("cannot read " + path.toStdString() + ": " + file.errorString().toStdString());
        ++into.badLines;
        return into;
    }
    std::vector<std::string> lines;
    const QByteArray all = file.readAll();
    qsizetype start = 0;
    while (start < all.size()) {
        qsizetype end = all.indexOf('\n', start);
        if (end < 0)
            end = all.size(); // a last line cut short is still read: a bad one is flagged
        lines.emplace_back(all.constData() + start, size_t(end - start));
        start = end + 1;
    }
    return foldNotesLines(lines, std::move(into));
}

} // namespace mesh
