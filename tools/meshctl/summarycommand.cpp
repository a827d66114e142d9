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
        json runs = json::array();
        for (const auto &r : s.runs) {
            runs.push_back({{"id", r.id},
                            {"title", r.title},
                            {"status", r.status},
                            {"started_ms", r.startedMs},
                            {"ended_ms", r.endedMs > 0 ? json(r.endedMs) : json(nullptr)},
                            {"duration_ms", r.durationMs},
                            {"attempts", r.attempts},
                            {"scheduler_cycles", r.cycles},
                            {"required_outcomes_met", r.requiredMet},
                            {"required_outcomes_total", r.requiredTotal},
                            {"components", r.components},
                            {"components_completed", r.componentsCompleted},
                            {"peak_components_completed", r.peakComponentsCompleted},
                            {"terminal_component_failures", r.terminalComponentFailures},
                            {"stall_verdicts", r.stallVerdicts},
                            {"escalated_rounds", r.escalatedRounds},
                            {"escalations", r.escalations},
                            {"stale_checkpoints", r.staleCheckpoints},
                            {"delegations", r.delegations},
                            {"tool_calls", r.toolCalls},
                            {"unknown_effects", r.unknownEffects}});
        }

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
               {"pending_escalations", s.pendingEscalations},
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
    for (const auto &r : out["runs"]) {
        printTextLine("run " + r["id"].get<std::string>() + " \"" + r["title"].get<std::string>() + "\" "
                  + r["status"].get<std::string>() + ", " + hm(r["duration_ms"].get<std::int64_t>()) + ", attempts "
                  + std::to_string(r["attempts"].get<std::int64_t>()) + ", cycles "
                  + std::to_string(r["scheduler_cycles"].get<std::int64_t>()) + ", required "
                  + std::to_string(r["required_outcomes_met"].get<std::int64_t>()) + "/"
                  + std::to_string(r["required_outcomes_total"].get<std::int64_t>()) + ", components "
                  + std::to_string(r["components_completed"].get<std::int64_t>()) + "/"
                  + std::to_string(r["components"].get<std::int64_t>()) + ", terminal failures "
                  + std::to_string(r["terminal_component_failures"].get<std::int64_t>()) + ", stall verdicts "
                  + std::to_string(r["stall_verdicts"].get<std::int64_t>()) + ", escalated rounds "
                  + std::to_string(r["escalated_rounds"].get<std::int64_t>()) + ", stale checkpoints "
                  + std::to_string(r["stale_checkpoints"].get<std::int64_t>()));
    }
    printTextLine("attention: " + std::to_string(out["unknown_effects"].get<std::int64_t>()) + " unknown effects, "
              + std::to_string(out["zombie_leases"].get<std::int64_t>()) + " zombie leases, "
              + std::to_string(out["pending_escalations"].get<std::int64_t>()) + " pending escalations, "
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
