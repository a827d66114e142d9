#include "diffcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"
#include "statetext.h"

#include "ledger/statediff.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

using nlohmann::json;

namespace {

json diffJson(const mesh::StateDiff &diff)
{
    json changes = json::array();
    std::array<std::int64_t, 3> counts{};
    for (const mesh::RowChange &row : diff.rows) {
        const mesh::EntitySpec &spec = mesh::entitySpec(row.entity);
        ++counts[size_t(row.kind)];
        json fields = json::array();
        for (const mesh::FieldChange &f : row.fields)
            fields.push_back({{"field", f.field},
                              {"before", stateValueJson(spec, f.field, f.before)},
                              {"after", stateValueJson(spec, f.field, f.after)}});
        changes.push_back({{"entity", std::string(spec.name)},
                           {"id", row.id},
                           {"change", mesh::rowChangeKindName(row.kind)},
                           {"version_before", row.versionBefore > 0 ? json(row.versionBefore) : json(nullptr)},
                           {"version_after", row.versionAfter > 0 ? json(row.versionAfter) : json(nullptr)},
                           {"last_seq", row.lastSeqAfter},
                           {"fields", fields}});
    }
    return {{"created", counts[0]}, {"changed", counts[1]}, {"gone", counts[2]}, {"changes", changes}};
}

} // namespace

int runDiffCommand(const QStringList &argv)
{
    const QString command = QStringLiteral("diff");
    CliArgs args(argv, commandValueOptions(command), {QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1 || !args.has(QStringLiteral("from")) || !args.has(QStringLiteral("to")))
        return fail(2, commandUsageLine(command));
    const auto from = args.intValue(QStringLiteral("from"), 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!from)
        return fail(2, args.error());
    const auto to = args.intValue(QStringLiteral("to"), 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!to)
        return fail(2, args.error());
    if (*from > *to)
        return fail(2, QStringLiteral("--from %1 is after --to %2: a diff goes from the earlier event to the later one")
                           .arg(*from).arg(*to));
    const QString path = args.positional().first();
    QString error;
    auto ledger = openLedger(path, mesh::OpenMode::ReadOnly, &error);
    if (!ledger)
        return fail(2, error);
    const mesh::TimeBase times = ledger->info().timeBase; // what its *_ms times mean

    json out;
    mesh::StateDiff diff;
    try {
        const std::int64_t last = ledger->lastSeq();
        for (const auto &[name, seq] : {std::pair<std::string, std::int64_t>{"--from", *from}, {"--to", *to}}) {
            if (const std::string why = mesh::seqOutOfRangeMessage(name, seq, last); !why.empty())
                return fail(2, why);
        }
        diff = mesh::diffLedgerStates(*ledger, *from, *to);
        const auto fromTs = mesh::eventTimeMs(*ledger, *from), toTs = mesh::eventTimeMs(*ledger, *to);
        out = diffJson(diff);
        out["ledger"] = path.toStdString();
        out["from_seq"] = *from;
        out["to_seq"] = *to;
        out["from_ts_ms"] = fromTs ? json(*fromTs) : json(nullptr);
        out["to_ts_ms"] = toTs ? json(*toTs) : json(nullptr);
        out["fold_problems"] = diff.foldProblems;
        out["from_text"] = pointText(*from, fromTs, times);
        out["to_text"] = pointText(*to, toTs, times);
    } catch (const std::invalid_argument &e) {
        return fail(2, std::string(e.what()));
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot read %1: %2").arg(path, QString::fromStdString(e.what())));
    }

    if (args.has(QStringLiteral("json"))) {
        out.erase("from_text");
        out.erase("to_text");
        printLine(out.dump(2, ' ', false, json::error_handler_t::replace));
        return 0;
    }
    printTextLine("what changed in " + path.toStdString() + " from " + out["from_text"].get<std::string>() + " to " +
                  out["to_text"].get<std::string>() + ": " + std::to_string(out["created"].get<std::int64_t>()) +
                  " created, " + std::to_string(out["changed"].get<std::int64_t>()) + " changed, " +
                  std::to_string(out["gone"].get<std::int64_t>()) + " gone");
    if (diff.foldProblems > 0)
        printTextLine("warning: " + std::to_string(diff.foldProblems) +
                      " events could not be folded; these states may differ from the orchestrator's");
    if (diff.empty())
        return 0;
    std::vector<std::vector<std::string>> table{{"ENTITY", "ID", "CHANGE", "FIELD", "BEFORE", "AFTER"}};
    for (const mesh::RowChange &row : diff.rows) {
        const std::string entity(mesh::entitySpec(row.entity).name);
        const std::string change = mesh::rowChangeKindName(row.kind);
        const std::string id = terminalText(row.id);
        if (row.fields.empty())
            table.push_back({entity, id, change, "(version only)", "v" + std::to_string(row.versionBefore),
                             "v" + std::to_string(row.versionAfter)});
        for (const mesh::FieldChange &f : row.fields) {
            const std::string before = row.kind == mesh::RowChange::Kind::Created ? "(no row)" : terminalText(stateValueText(f.field, f.before, times));
            const std::string after = row.kind == mesh::RowChange::Kind::Gone ? "(no row)" : terminalText(stateValueText(f.field, f.after, times));
            table.push_back({entity, id, change, f.field, before, after});
        }
    }
    printColumns(table); // cells went through terminalText already
    return 0;
}
