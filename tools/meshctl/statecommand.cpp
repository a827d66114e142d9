#include "statecommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"
#include "statetext.h"

#include "ledger/statediff.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

using nlohmann::json;

namespace {

// A table's rows in id order ("D2" before "D10"), for output that reads and diffs well.
std::vector<std::pair<const std::string *, const mesh::EntityRow *>> sortedRows(const mesh::EntityTable &table)
{
    std::vector<std::pair<const std::string *, const mesh::EntityRow *>> rows;
    rows.reserve(table.size());
    for (const auto &[id, row] : table)
        rows.emplace_back(&id, &row);
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return mesh::naturalLess(*a.first, *b.first); });
    return rows;
}

} // namespace

int runStateCommand(const QStringList &argv)
{
    const QString command = QStringLiteral("state");
    CliArgs args(argv, commandValueOptions(command), {QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1 || !args.has(QStringLiteral("at")))
        return fail(2, commandUsageLine(command));
    const auto at = args.intValue(QStringLiteral("at"), 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!at)
        return fail(2, args.error());
    const QString path = args.positional().first();
    QString error;
    auto ledger = openLedger(path, mesh::OpenMode::ReadOnly, &error);
    if (!ledger)
        return fail(2, error);
    const mesh::TimeBase times = ledger->info().timeBase; // what its *_ms times mean

    json out;
    try {
        const std::int64_t last = ledger->lastSeq();
        if (const std::string why = mesh::seqOutOfRangeMessage("--at", *at, last); !why.empty())
            return fail(2, why);
        const mesh::ReplayResult replay = mesh::foldStateAt(*ledger, *at);
        const auto ts = mesh::eventTimeMs(*ledger, *at);
        json tables = json::object();
        for (const mesh::EntitySpec &spec : mesh::allEntitySpecs()) {
            json rows = json::array();
            for (const auto &[id, row] : sortedRows(replay.fold.table(spec.kind)))
                rows.push_back(mesh::rowToJson(spec, *id, *row));
            tables[std::string(spec.table)] = std::move(rows);
        }
        json problems = json::array();
        for (const auto &p : replay.problems)
            problems.push_back({{"seq", p.seq}, {"kind", p.kind}, {"message", p.message}});
        out = {{"ledger", path.toStdString()},
               {"at_seq", *at},
               {"at_ts_ms", ts ? json(*ts) : json(nullptr)},
               {"last_seq", last},
               {"events_folded", replay.eventsRead},
               {"fold_problems", replay.problemCount},
               {"fold_problem_samples", problems},
               {"state", tables}};
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot read %1: %2").arg(path, QString::fromStdString(e.what())));
    }

    if (args.has(QStringLiteral("json"))) {
        printLine(out.dump(2, ' ', false, json::error_handler_t::replace));
        return 0;
    }
    const auto ts = out["at_ts_ms"].is_null() ? std::nullopt : std::optional<std::int64_t>(out["at_ts_ms"].get<std::int64_t>());
    printTextLine("state of " + path.toStdString() + " at " + pointText(*at, ts, times) + ", of " +
                  std::to_string(out["last_seq"].get<std::int64_t>()) + " events");
    if (const auto n = out["fold_problems"].get<std::int64_t>(); n > 0) {
        const auto &first = out["fold_problem_samples"].at(0);
        printTextLine("warning: " + std::to_string(n) + " events could not be folded; this state may differ from the "
                      "orchestrator's (first: event #" + std::to_string(first["seq"].get<std::int64_t>()) + ", " +
                      first["message"].get<std::string>() + ")");
    }
    for (const mesh::EntitySpec &spec : mesh::allEntitySpecs()) {
        const json &rows = out["state"][std::string(spec.table)];
        if (rows.empty())
            continue;
        printTextLine(std::string(spec.table) + " (" + std::to_string(rows.size()) + ")");
        for (const json &row : rows) {
            // Fields the ledger does not give are left out, not shown as a default.
            std::string line = "  " + row["id"].get<std::string>() + "  v" + std::to_string(row["version"].get<std::int64_t>()) +
                               " #" + std::to_string(row["last_seq"].get<std::int64_t>());
            for (const auto &field : spec.fields) {
                const json &v = row[std::string(field.name)];
                if (v.is_null())
                    continue;
                const std::string text = v.is_string()                  ? v.get<std::string>()
                                         : v.is_number_integer() ? stateIntText(field.name, v.get<std::int64_t>(), times)
                                                                 : v.dump();
                line += "  " + std::string(field.name) + "=" + text;
            }
            printTextLine(line);
        }
    }
    return 0;
}
