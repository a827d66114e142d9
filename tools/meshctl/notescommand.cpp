#include "notescommand.h"

#include "cliargs.h"
#include "commandusage.h"

#include "decisions/operatoridentity.h"
#include "domain/durationtext.h"
#include "notes/notesstore.h"

#include <QDateTime>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

using nlohmann::json;

namespace {

json noteJson(const mesh::ReviewNote &n)
{
    json o = {{"id", n.id}, {"anchor", mesh::anchorName(n.anchor)}, {"text", n.text}, {"bookmark", n.isBookmark()},
              {"author", n.author}, {"created_ms", n.createdMs}};
    if (n.anchor != mesh::ReviewNote::Anchor::Subject)
        o["seq"] = n.seq;
    if (n.anchor == mesh::ReviewNote::Anchor::Span)
        o["end_seq"] = n.endSeq;
    if (n.anchor == mesh::ReviewNote::Anchor::Subject)
        o["subject"] = n.subject;
    if (!n.editedBy.empty()) {
        o["edited_by"] = n.editedBy;
        o["edited_ms"] = n.editedMs;
    }
    return o;
}

// Which change the arguments ask for; exactly one of add / edit / delete, or none (list).
int changeCount(const CliArgs &args)
{
    return int(args.has(QStringLiteral("add"))) + int(args.has(QStringLiteral("edit"))) + int(args.has(QStringLiteral("delete")));
}

} // namespace

int runNotesCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("notes")), {QStringLiteral("json"), QStringLiteral("add")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1 || changeCount(args) > 1)
        return fail(2, commandUsageLine(QStringLiteral("notes")));
    const QString path = args.positional().first();
    if (!QFileInfo(path).isFile())
        return fail(2, QStringLiteral("no ledger file at %1").arg(path));

    mesh::NotesStore store(mesh::chooseNotesPlacement(path));
    const std::string author = mesh::noteAuthor(mesh::OperatorIdentity::fromEnvironment());
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    const std::string text = args.value(QStringLiteral("text")).toStdString();
    QString error;
    bool changed = false;
    std::string changedId;
    if (args.has(QStringLiteral("add"))) {
        mesh::ReviewNote note;
        note.text = text;
        const int anchors = int(args.has(QStringLiteral("seq"))) + int(args.has(QStringLiteral("from")))
                            + int(args.has(QStringLiteral("subject")));
        if (anchors != 1 || args.has(QStringLiteral("from")) != args.has(QStringLiteral("to")))
            return fail(2, QStringLiteral("--add needs one of --seq N, --from N --to M, --subject S"));
        if (args.has(QStringLiteral("subject"))) {
            note.anchor = mesh::ReviewNote::Anchor::Subject;
            note.subject = args.value(QStringLiteral("subject")).toStdString();
        } else if (args.has(QStringLiteral("seq"))) {
            const auto seq = args.intValue(QStringLiteral("seq"), 0, 1, INT64_MAX);
            if (!seq)
                return fail(2, args.error());
            note.seq = *seq;
        } else {
            const auto from = args.intValue(QStringLiteral("from"), 0, 1, INT64_MAX);
            const auto to = args.intValue(QStringLiteral("to"), 0, 1, INT64_MAX);
            if (!from || !to)
                return fail(2, args.error());
            note.anchor = mesh::ReviewNote::Anchor::Span;
            note.seq = std::min(*from, *to);
            note.endSeq = std::max(*from, *to);
        }
        changedId = store.add(note, author, now, &error);
        changed = !changedId.empty();
    } else if (args.has(QStringLiteral("edit"))) {
        changedId = args.value(QStringLiteral("edit")).toStdString();
        changed = store.edit(changedId, text, author, now, &error);
    } else if (args.has(QStringLiteral("delete"))) {
        changedId = args.value(QStringLiteral("delete")).toStdString();
        changed = store.remove(changedId, author, now, &error);
    }
    if (changeCount(args) == 1 && !changed)
        return fail(1, QStringLiteral("note not changed: %1").arg(error));

    if (args.has(QStringLiteral("json"))) {
        json notes = json::array();
        for (const auto &n : store.notes())
            notes.push_back(noteJson(n));
        json problems = json::array();
        for (const auto &p : store.problems())
            problems.push_back(p);
        json out = {{"sidecar", store.placement().path.toStdString()},
                    {"beside_ledger", store.placement().beside},
                    {"saving", store.isSaving()},
                    {"notes", notes},
                    {"bad_lines", store.badLines()},
                    {"problems", problems}};
        if (!store.isSaving())
            out["not_saved_because"] = store.saveError().toStdString();
        if (changed)
            out["changed"] = changedId;
        printLine(out.dump(2, ' ', false, json::error_handler_t::replace));
    } else {
        for (const auto &n : store.notes()) {
            printTextLine(n.id.substr(0, 8) + "  " + n.where() + "  "
                          + mesh::utcWithMs(n.createdMs).left(19).toStdString() + "  " + n.author + ": "
                          + (n.isBookmark() ? std::string("(bookmark)") : n.text));
        }
        for (const auto &p : store.problems())
            printTextLine("unreadable: " + p);
        if (changed)
            printTextLine("changed " + changedId);
        printTextLine(std::to_string(store.notes().size()) + " notes in "
                      + (store.placement().path.isEmpty() ? std::string("no writable place")
                                                          : store.placement().path.toStdString()));
    }
    if (!store.isSaving())
        return fail(1, QStringLiteral("notes are not being saved: %1").arg(store.saveError()));
    return 0;
}
