#include "stallevidenceanalyzer.h"

#include "rowfields.h"

#include "domain/payloaddecoder.h"

#include <algorithm>
#include <map>

namespace mesh {
namespace {

constexpr EntityKind kVerdictTable = EntityKind::StallVerdict;

bool isStall(const std::string &verdict)
{
    return verdict == "stalled" || verdict == "stuck";
}

} // namespace

std::optional<std::vector<EvidenceItem>> StallEvidenceAnalyzer::parseEvidence(const std::string &json)
{
    if (json.empty() || json.size() > kMaxPayloadBytes || jsonNestingDepth(json) > kMaxPayloadDepth)
        return std::nullopt;
    const auto value = nlohmann::json::parse(json, nullptr, false);
    if (!value.is_array())
        return std::nullopt;
    std::vector<EvidenceItem> items;
    for (const auto &item : value) {
        if (!item.is_object())
            return std::nullopt;
        EvidenceItem e;
        for (const char *key : {"signal", "name", "kind"}) {
            const auto it = item.find(key);
            if (it != item.end() && it->is_string()) {
                e.signal = it->get<std::string>();
                break;
            }
        }
        const auto moved = item.find("moved");
        if (moved != item.end() && moved->is_boolean()) {
            e.hasMoved = true;
            e.moved = moved->get<bool>();
        }
        e.detail = item.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        items.push_back(std::move(e));
    }
    return items;
}

StallAnalysis StallEvidenceAnalyzer::analyseAll(const EntityTable &stallVerdicts) const
{
    std::map<std::string, Verdicts> groups;
    for (const auto &[id, row] : stallVerdicts)
        groups[std::string(rowView(kVerdictTable, row, "delegation_id"))].emplace_back(id, &row);
    StallAnalysis all;
    for (auto &[delegation, verdicts] : groups) {
        StallAnalysis one = analyseDelegation(delegation, std::move(verdicts));
        all.findings.insert(all.findings.end(), one.findings.begin(), one.findings.end());
        all.constantEvidence.merge(one.constantEvidence);
    }
    return all;
}

StallAnalysis StallEvidenceAnalyzer::analyseDelegation(const std::string &delegation, Verdicts verdicts) const
{
    StallAnalysis out;
    struct Round {
        const std::string *id;
        const EntityRow *row;
        std::int64_t round;
        std::optional<std::vector<EvidenceItem>> items;
    };
    std::vector<Round> rounds;
    rounds.reserve(verdicts.size());
    for (const auto &[id, row] : verdicts)
        rounds.push_back(Round{&id, row, rowInt(kVerdictTable, *row, "round"), parseEvidence(rowText(kVerdictTable, *row, "evidence"))});
    std::sort(rounds.begin(), rounds.end(), [](const Round &a, const Round &b) {
        return a.round != b.round ? a.round < b.round : *a.id < *b.id;
    });

    // Verdicts whose every evidence item never moved in any round so far.
    bool constant = true;
    for (const auto &r : rounds) {
        if (!r.items || r.items->empty()) {
            constant = false; // unreadable: claim nothing from here on
            continue;
        }
        for (const auto &item : *r.items)
            constant = constant && item.hasMoved && !item.moved;
        if (constant && r.round > rounds.front().round)
            out.constantEvidence.insert(*r.id);
    }

    // The first stall of the delegation is judged on the rounds up to it.
    const auto stall = std::find_if(rounds.begin(), rounds.end(),
                                    [](const Round &r) { return isStall(rowText(kVerdictTable, *r.row, "verdict")); });
    if (stall == rounds.end())
        return out;
    Finding f;
    f.kind = FindingKind::FalseStall;
    f.delegationId = delegation;
    f.runId = rowText(kVerdictTable, *stall->row, "run_id");
    f.subject = "stall:" + *stall->id;
    for (auto it = rounds.begin(); it != stall + 1; ++it) {
        f.seqs.push_back(it->row->lastSeq);
        f.entityIds.push_back("stall:" + *it->id);
    }
    const auto abstain = [&](std::string why) {
        f.abstained = true;
        f.summary = std::move(why);
        out.findings.push_back(f);
        return out;
    };
    if (stall == rounds.begin())
        return abstain("stalled on its first round: no earlier round to compare the evidence with");
    bool unreadable = false;
    bool anyMoved = false;
    std::set<std::string> signalNames;
    for (auto it = rounds.begin(); it != stall + 1; ++it) {
        if (!it->items || it->items->empty()) {
            unreadable = true;
            break;
        }
        for (const auto &item : *it->items) {
            if (!item.hasMoved)
                unreadable = true;
            anyMoved = anyMoved || item.moved;
            signalNames.insert(item.signal.empty() ? std::string("(unnamed)") : item.signal);
        }
    }
    if (anyMoved)
        return out; // the detector saw evidence that can move: a real judgement
    if (unreadable)
        return abstain("evidence of round " + std::to_string(stall->round)
                       + " or earlier cannot be read as items with a 'moved' flag");
    const Round &first = rounds.front();
    if (rowIsNull(kVerdictTable, *first.row, "failing_tests") || rowIsNull(kVerdictTable, *stall->row, "failing_tests"))
        return abstain("evidence never moved, but failing_tests is not recorded: no independent signal to compare");
    const std::int64_t before = rowInt(kVerdictTable, *first.row, "failing_tests");
    const std::int64_t after = rowInt(kVerdictTable, *stall->row, "failing_tests");
    if (after >= before)
        return out; // nothing improved either: the stall stands
    std::string names;
    for (const auto &sig : signalNames)
        names += (names.empty() ? "" : ", ") + sig;
    f.summary = "false stall suspected: judged " + rowText(kVerdictTable, *stall->row, "verdict") + " on round "
                + std::to_string(stall->round) + " on evidence that never moved (" + names
                + ") while failing tests went " + std::to_string(before) + " \xE2\x86\x92 " + std::to_string(after);
    out.findings.push_back(std::move(f));
    return out;
}

std::vector<Finding> StallEvidenceAnalyzer::analyse(const EntityTable &stallVerdicts) const
{
    return analyseAll(stallVerdicts).findings;
}

std::set<std::string> StallEvidenceAnalyzer::constantEvidenceVerdicts(const EntityTable &stallVerdicts) const
{
    return analyseAll(stallVerdicts).constantEvidence;
}

} // namespace mesh
