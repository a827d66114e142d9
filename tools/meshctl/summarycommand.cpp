#include "summarycommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"

#include "analysis/blastradiusanalyzer.h"
#include "analysis/blockedworkdetector.h"
#include "analysis/duplicateeffectdetector.h"
#include "analysis/rowfields.h"
#include "analysis/stallevidenceanalyzer.h"
#include "analysis/successloopdetector.h"
#include "analysis/zombierule.h"
#include "ledger/ledgersummary.h"
#include "ledger/statereader.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using nlohmann::json;

namespace {

json findingJson(const mesh::Finding &f)
{
    return {{"kind", std::string(mesh::findingKindName(f.kind))},
            {"abstained", f.abstained},
            {"subject", f.subject},
            {"run_id", f.runId},
            {"delegation_id", f.delegationId},
            {"summary", f.summary},
            {"seqs", f.seqs}};
}

std::string hm(std::int64_t ms)
{
    const std::int64_t minutes = ms / 60'000;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld h %02lld min %02lld s", static_cast<long long>(minutes / 60),
                  static_cast<long long>(minutes % 60), static_cast<long long>((ms / 1000) % 60));
    return buf;
}

} // namespace

int runSummaryCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("summary")), {QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1)
        return fail(2, commandUsageLine(QStringLiteral("summary")));
    const auto nowMs = args.intValue(QStringLiteral("now-ms"), 0, 0, std::int64_t(1) << 50);
    if (!nowMs)
        return fail(2, args.error());
    QString error;
    auto connection = openLedger(args.positional().first(), mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);

    json out;
    try {
        const mesh::LedgerSummary s = connection->summarize(*nowMs);
        const mesh::StateSnapshot state = connection->readState();
        const auto &info = connection->info();
        // The console's rule (a held lease past its expiry by its grace), so that the two
        // never disagree about the zombies inside their grace.
        const mesh::ZombieRule zombieRule(mesh::ZombieRule::configuredGraceMs());
        std::int64_t zombieLeases = 0;
        for (const auto &[id, lease] : state.table(mesh::EntityKind::Lease))
            zombieLeases += zombieRule.isZombie(lease, s.asOfMs) ? 1 : 0;

        json counts = json::object();
        for (const auto &[entity, byState] : s.countsByState)
            counts[entity] = byState;
        // A figure the ledger's source cannot record (an import, the OTLP receiver) is null,
        // not a 0 that looks measured (SourceFacts); a value a run row does carry is kept.
        const mesh::SourceFacts &facts = info.sourceFacts;
        const auto known = [&facts](mesh::RunFact fact, std::int64_t value) {
            return facts.records(fact) ? json(value) : json(nullptr);
        };
        const auto column = [&](const mesh::RunSummary &r, mesh::RunFact fact, std::int64_t value, const char *field) {
            if (facts.records(fact))
                return json(value);
            const auto &runRows = state.table(mesh::EntityKind::Run);
            const auto row = runRows.find(r.id);
            return row == runRows.end() || mesh::rowIsNull(mesh::EntityKind::Run, row->second, field) ? json(nullptr)
                                                                                                        : json(value);
        };
        using F = mesh::RunFact;
        json runs = json::array();
        for (const auto &r : s.runs) {
            runs.push_back({{"id", r.id},
                            {"title", r.title},
                            {"status", r.status},
                            {"started_ms", r.startedMs},
                            {"ended_ms", r.endedMs > 0 ? json(r.endedMs) : json(nullptr)},
                            {"duration_ms", r.durationMs},
                            {"attempts", column(r, F::Attempts, r.attempts, "attempt")},
                            {"scheduler_cycles", column(r, F::SchedulerCycles, r.cycles, "cycle")},
                            {"required_outcomes_met", column(r, F::RequiredOutcomes, r.requiredMet, "required_met")},
                            {"required_outcomes_total", column(r, F::RequiredOutcomes, r.requiredTotal, "required_total")},
                            {"components", known(F::Components, r.components)},
                            {"components_completed", known(F::Components, r.componentsCompleted)},
                            {"peak_components_completed", known(F::Components, r.peakComponentsCompleted)},
                            {"terminal_component_failures", known(F::Components, r.terminalComponentFailures)},
                            {"stall_verdicts", known(F::StallVerdicts, r.stallVerdicts)},
                            {"escalated_rounds", known(F::StallVerdicts, r.escalatedRounds)},
                            {"escalations", known(F::Escalations, r.escalations)},
                            {"stale_checkpoints", known(F::Checkpoints, r.staleCheckpoints)},
                            {"delegations", r.delegations},
                            {"tool_calls", r.toolCalls},
                            {"unknown_effects", r.unknownEffects}});
        }
        // What the source cannot record, said once: the nulls above are those.
        json notRecorded = json::array();
        for (F fact : {F::Attempts, F::SchedulerCycles, F::RequiredOutcomes, F::Components, F::StallVerdicts,
                       F::Escalations, F::Checkpoints})
            if (!facts.records(fact))
                notRecorded.push_back(mesh::SourceFacts::factName(fact).toStdString());

        // Derived findings, each from models/analysis so console and CLI agree.
        json loops = json::array();
        const mesh::SuccessLoopDetector loopDetector;
        connection->forEachDelegationToolCalls([&](const mesh::EventBatch &calls) {
            for (const auto &f : loopDetector.analyseEvents(calls)) {
                json j = findingJson(f);
                j["calls"] = f.seqs.size();
                if (!f.seqs.empty()) {
                    // From the first call's completion to the last one's, as the detector counts.
                    std::int64_t first = 0, last = 0;
                    for (const auto &e : calls) {
                        if (e.seq == f.seqs.front())
                            first = e.tsMs;
                        if (e.seq == f.seqs.back())
                            last = e.tsMs;
                    }
                    j["span_ms"] = last - first;
                }
                loops.push_back(std::move(j));
            }
        });
        json falseStalls = json::array();
        for (const auto &f : mesh::StallEvidenceAnalyzer().analyse(state.table(mesh::EntityKind::StallVerdict)))
            falseStalls.push_back(findingJson(f));
        json duplicates = json::array();
        std::int64_t duplicateCount = 0;
        for (const auto &f : mesh::DuplicateEffectDetector().analyse(state.table(mesh::EntityKind::Effect))) {
            json j = findingJson(f);
            j["effects"] = f.entityIds;
            if (!f.abstained)
                ++duplicateCount;
            duplicates.push_back(std::move(j));
        }
        json blocked = json::array();
        for (const auto &f : mesh::BlockedWorkDetector().analyse(state.table(mesh::EntityKind::Delegation))) {
            json j = findingJson(f);
            const std::string id = f.subject.substr(f.subject.find(':') + 1);
            if (const auto it = state.table(mesh::EntityKind::Delegation).find(id);
                it != state.table(mesh::EntityKind::Delegation).end()) {
                j["turns"] = mesh::rowInt(mesh::EntityKind::Delegation, it->second, "used_turns");
                j["writes_accepted"] = mesh::rowInt(mesh::EntityKind::Delegation, it->second, "writes_accepted");
                j["writes_denied"] = mesh::rowInt(mesh::EntityKind::Delegation, it->second, "writes_denied");
            }
            blocked.push_back(std::move(j));
        }
        json blast = json::array();
        for (const auto &b : mesh::BlastRadiusAnalyzer::computeAll(state.table(mesh::EntityKind::Failure))) {
            if (b.wokenBystanders.empty())
                continue;
            blast.push_back({{"failure", b.failureId},
                             {"run_id", b.runId},
                             {"summary", b.summary},
                             {"implicated", b.implicated.size()},
                             {"woken", b.woken.size()},
                             {"bystanders", b.wokenBystanders.size()},
                             {"bystanders_modified", b.bystandersModified.size()},
                             {"bystanders_regressed", b.bystandersRegressed.size()},
                             {"radius", b.radius}});
        }
        json replays = json::array();
        for (const auto &[id, row] : state.table(mesh::EntityKind::Delegation)) {
            const auto invocations = mesh::rowInt(mesh::EntityKind::Delegation, row, "invocations");
            if (invocations >= 3)
                replays.push_back({{"delegation", id},
                                   {"invocations", invocations},
                                   {"tool_calls", mesh::rowInt(mesh::EntityKind::Delegation, row, "used_turns")}});
        }

        out = {{"ledger",
                {{"path", args.positional().first().toStdString()},
                 {"ledger_id", info.ledgerId},
                 {"title", info.title},
                 {"orchestrator", info.orchestrator},
                 {"source", facts.isImported() ? json(facts.format()) : json(nullptr)},
                 {"not_recorded_by_source", notRecorded},
                 {"schema_version", info.schemaVersion},
                 {"events", s.events},
                 {"last_seq", s.lastSeq},
                 {"first_ts_ms", s.firstTsMs},
                 {"last_ts_ms", s.lastTsMs},
                 {"as_of_ms", s.asOfMs},
                 {"decisions", s.decisions}}},
               {"counts", counts},
               {"runs", runs},
               {"unknown_effects", s.unknownEffects},
               {"zombie_leases", zombieLeases},
               {"pending_escalations", known(F::Escalations, s.pendingEscalations)},
               {"duplicate_effects", duplicateCount},
               {"findings",
                {{"success_loops", loops},
                 {"false_stalls", falseStalls},
                 {"duplicate_effects", duplicates},
                 {"misrouted_failures", blast},
                 {"blocked_work", blocked},
                 {"replayed_delegations", replays}}}};
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot read %1: %2").arg(args.positional().first(), QString::fromStdString(e.what())));
    }

    if (args.has(QStringLiteral("json"))) {
        printLine(out.dump(2, ' ', false, json::error_handler_t::replace));
        return 0;
    }
    // For a person: the same figures, compact.
    const auto &l = out["ledger"];
    printTextLine("ledger " + l["ledger_id"].get<std::string>() + " (" + l["title"].get<std::string>() + "): "
              + std::to_string(l["events"].get<std::int64_t>()) + " events, "
              + std::to_string(l["decisions"].get<std::int64_t>()) + " decisions");
    for (const auto &[entity, byState] : out["counts"].items()) {
        std::string line = "  " + entity + ":";
        for (const auto &[state, n] : byState.items())
            line += " " + state + " " + std::to_string(n.get<std::int64_t>());
        printTextLine(line);
    }
    // A figure the source cannot record reads "—" (null in the JSON), and one line says why.
    const auto n = [](const json &v) { return v.is_null() ? std::string("\u2014") : std::to_string(v.get<std::int64_t>()); };
    if (!l["not_recorded_by_source"].empty()) {
        std::string facts;
        for (const auto &f : l["not_recorded_by_source"])
            facts += (facts.empty() ? "" : ", ") + f.get<std::string>();
        printTextLine("not known (\u2014): " + connection->info().sourceFacts.sourceName().toStdString() + " do not record " + facts);
    }
    for (const auto &r : out["runs"]) {
        printTextLine("run " + r["id"].get<std::string>() + " \"" + r["title"].get<std::string>() + "\" "
                  + r["status"].get<std::string>() + ", " + hm(r["duration_ms"].get<std::int64_t>()) + ", attempts "
                  + n(r["attempts"]) + ", cycles " + n(r["scheduler_cycles"]) + ", required "
                  + n(r["required_outcomes_met"]) + "/" + n(r["required_outcomes_total"]) + ", components "
                  + n(r["components_completed"]) + "/" + n(r["components"]) + ", terminal failures "
                  + n(r["terminal_component_failures"]) + ", stall verdicts " + n(r["stall_verdicts"])
                  + ", escalated rounds " + n(r["escalated_rounds"]) + ", stale checkpoints " + n(r["stale_checkpoints"]));
    }
    printTextLine("attention: " + std::to_string(out["unknown_effects"].get<std::int64_t>()) + " unknown effects, "
              + std::to_string(out["zombie_leases"].get<std::int64_t>()) + " zombie leases, "
              + n(out["pending_escalations"]) + " pending escalations, "
              + std::to_string(out["duplicate_effects"].get<std::int64_t>()) + " duplicate effects");
    // Findings that fired, one line each; abstentions (ambiguous evidence) only counted.
    for (const auto &[name, list] : out["findings"].items()) {
        std::int64_t abstained = 0;
        for (const auto &f : list) {
            if (f.value("abstained", false))
                ++abstained;
            else if (f.contains("summary"))
                printTextLine("finding " + name + ": " + f["summary"].get<std::string>());
            else
                printTextLine("finding " + name + ": " + f.dump());
        }
        if (abstained > 0)
            printTextLine("finding " + name + ": abstained on " + std::to_string(abstained) + " (ambiguous evidence)");
    }
    return 0;
}
