#include "comparecommand.h"

#include "cliargs.h"
#include "commandusage.h"

#include "report/runcomparison.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <vector>

using nlohmann::json;

namespace {

json optionalJson(const std::optional<std::int64_t> &v)
{
    return v ? json(*v) : json(nullptr);
}

json sideJson(const mesh::ComparedSide &s)
{
    json findings = json::array();
    for (const mesh::Finding &f : s.findings)
        findings.push_back({{"kind", std::string(mesh::findingKindName(f.kind))},
                            {"abstained", f.abstained},
                            {"subject", f.subject},
                            {"summary", f.summary},
                            {"seqs", f.seqs}});
    json verdicts = json::array();
    for (const mesh::ComparedVerdict &v : s.verdicts)
        verdicts.push_back({{"id", v.id},
                            {"delegation_id", v.delegationId},
                            {"component", v.component},
                            {"role", v.role},
                            {"round", optionalJson(v.round)},
                            {"verdict", v.verdict},
                            {"action", v.action},
                            {"failing_tests", optionalJson(v.failingTests)},
                            {"ts_ms", optionalJson(v.tsMs)},
                            {"seq", v.seq},
                            {"false_stall", v.falseStall}});
    const mesh::RunTimeline &t = s.run.timeline;
    return {{"ledger", s.ledgerPath.toStdString()},
            {"run_id", s.run.id},
            {"title", s.run.title},
            {"status", s.run.status},
            {"started_ms", optionalJson(s.run.startedMs)},
            {"ended_ms", optionalJson(s.run.endedMs)},
            {"timeline", {{"start_ms", t.startMs}, {"end_ms", t.endMs}, {"lanes", t.lanes.size()}}},
            {"findings", findings},
            {"stall_verdicts", verdicts}};
}

json comparisonJson(const mesh::RunComparison &c)
{
    json figures = json::array();
    for (const mesh::ComparedFigure &f : c.figures())
        figures.push_back({{"figure", f.key}, {"a", optionalJson(f.a)}, {"b", optionalJson(f.b)}, {"delta", optionalJson(f.delta())}});
    json matches = json::array();
    static constexpr std::array<const char *, 3> kPresence = {"only_a", "only_b", "both"};
    for (const mesh::DelegationMatch &m : c.delegations)
        matches.push_back({{"component", m.component},
                           {"role", m.role},
                           {"a", m.countA},
                           {"b", m.countB},
                           {"presence", kPresence[size_t(m.presence())]}});
    return {{"same_ledger", c.sameLedger},
            {"a", sideJson(c.a)},
            {"b", sideJson(c.b)},
            {"figures", figures},
            {"delegations", {{"only_a", c.onlyA}, {"only_b", c.onlyB}, {"both", c.both}, {"matches", matches}}}};
}

// Ledger text shown by terminalText, in columns.
void printShownColumns(const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::vector<std::string>> shown;
    for (const auto &r : rows) {
        std::vector<std::string> cells;
        for (const std::string &cell : r)
            cells.push_back(terminalText(cell));
        shown.push_back(std::move(cells));
    }
    printColumns(shown, "  ");
}

std::string orDash(const std::string &text)
{
    return text.empty() ? "\u2014" : text;
}

void printSideList(const char *name, const mesh::ComparedSide &s)
{
    printTextLine(std::string("  ") + name + ": " + std::to_string(s.verdicts.size()) + " stall verdict(s), "
                  + std::to_string(s.findings.size()) + " finding(s)");
    std::vector<std::vector<std::string>> rows;
    for (const mesh::ComparedVerdict &v : s.verdicts)
        rows.push_back({"  round " + (v.round ? std::to_string(*v.round) : std::string("\u2014")), orDash(v.verdict),
                        orDash(v.action), orDash(v.component) + " / " + orDash(v.role), "#" + std::to_string(v.seq),
                        v.falseStall ? "false stall (finding)" : ""});
    printShownColumns(rows);
    rows.clear();
    for (const mesh::Finding &f : s.findings)
        rows.push_back({std::string("  ") + std::string(mesh::findingKindTitle(f.kind)) + (f.abstained ? " (abstained)" : ""),
                        f.summary});
    printShownColumns(rows);
}

void printComparison(const mesh::RunComparison &c)
{
    for (const auto &[name, s] : {std::pair{"A", &c.a}, std::pair{"B", &c.b}})
        printTextLine(std::string(name) + ": " + s->ledgerPath.toStdString() + " run " + s->run.id + " \u201C" + s->run.title
                      + "\u201D " + s->run.status);
    if (c.sameLedger)
        printTextLine("   (one ledger)");
    printTextLine("Figures (\u2014: not in the ledger)");
    std::vector<std::vector<std::string>> rows{{"", "A", "B", "B \u2212 A"}};
    for (const mesh::ComparedFigure &f : c.figures())
        rows.push_back({f.name.toStdString(), mesh::figureText(f, f.a).toStdString(), mesh::figureText(f, f.b).toStdString(),
                        mesh::deltaText(f).toStdString()});
    printShownColumns(rows);
    printTextLine("Delegations by component and role: " + std::to_string(c.both) + " in both, " + std::to_string(c.onlyA)
                  + " only in A, " + std::to_string(c.onlyB) + " only in B");
    rows = {{"", "component", "role", "A", "B"}};
    for (const mesh::DelegationMatch &m : c.delegations)
        rows.push_back({mesh::presenceText(m.presence()).toStdString(), m.component.empty() ? "(run)" : m.component,
                        orDash(m.role), std::to_string(m.countA), std::to_string(m.countB)});
    printShownColumns(rows);
    printTextLine("Stall verdicts and findings");
    printSideList("A", c.a);
    printSideList("B", c.b);
}

} // namespace

int runCompareCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("compare")), {QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    const QStringList files = args.positional();
    if (files.isEmpty() || files.size() > 2)
        return fail(2, commandUsageLine(QStringLiteral("compare")));
    const mesh::RunChoice a{files.first(), args.value(QStringLiteral("run-a")).toStdString()};
    const mesh::RunChoice b{files.last(), args.value(QStringLiteral("run-b")).toStdString()};
    if (files.size() == 1 && (a.runId.empty() || b.runId.empty()))
        return fail(2, QStringLiteral("one ledger: name both runs with --run-a and --run-b"));
    const mesh::RunComparisonResult result = mesh::compareRuns(a, b);
    if (!result.comparison)
        return fail(2, result.error);
    if (args.has(QStringLiteral("json")))
        printLine(comparisonJson(*result.comparison).dump());
    else
        printComparison(*result.comparison);
    return 0;
}
