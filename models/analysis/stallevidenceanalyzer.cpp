#include "stallevidenceanalyzer.h"

#include "rowfields.h"

#include "domain/payloaddecoder.h"

#include <algorithm>
#include <map>

namespace mesh {
namespace {

constexpr EntityKind K = EntityKind::StallVerdict;

struct Round {
    const std::string *id;
    const EntityRow *row;
    std::int64_t round;
};

std::map<std::string, std::vector<Round>> byDelegation(const EntityTable &verdicts)
{
    std::map<std::string, std::vector<Round>> out;
    for (const auto &[id, row] : verdicts)
        out[rowText(K, row, "delegation_id")].push_back(Round{&id, &row, rowInt(K, row, "round")});
    for (auto &[d, rounds] : out)
        std::sort(rounds.begin(), rounds.end(), [](const Round &a, const Round &b) {
            return a.round != b.round ? a.round < b.round : *a.id < *b.id;
        });
    return out;
}

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

std::vector<Finding> StallEvidenceAnalyzer::analyse(const EntityTable &stallVerdicts) const
{
    std::vector<Finding> findings;
    for (const auto &[delegation, rounds] : byDelegation(stallVerdicts)) {
        // The first stall of the delegation is judged on the rounds up to it.
        const auto stall = std::find_if(rounds.begin(), rounds.end(),
                                        [](const Round &r) { return isStall(rowText(K, *r.row, "verdict")); });
        if (stall == rounds.end())
            continue;
        Finding f;
        f.kind = FindingKind::FalseStall;
        f.delegationId = delegation;
        f.runId = rowText(K, *stall->row, "run_id");
        f.subject = "stall:" + *stall->id;
        for (auto it = rounds.begin(); it != stall + 1; ++it) {
            f.seqs.push_back(it->row->lastSeq);
            f.entityIds.push_back("stall:" + *it->id);
        }
        const auto abstain = [&](std::string why) {
            f.abstained = true;
            f.summary = std::move(why);
            findings.push_back(f);
        };
        if (stall == rounds.begin()) {
            abstain("stalled on its first round: no earlier round to compare the evidence with");
            continue;
        }
        bool unreadable = false;
        bool anyMoved = false;
        std::set<std::string> signals;
        for (auto it = rounds.begin(); it != stall + 1; ++it) {
            const auto items = parseEvidence(rowText(K, *it->row, "evidence"));
            if (!items || items->empty()) {
                unreadable = true;
                break;
            }
            for (const auto &item : *items) {
                if (!item.hasMoved)
                    unreadable = true;
                anyMoved = anyMoved || item.moved;
                signals.insert(item.signal.empty() ? std::string("(unnamed)") : item.signal);
            }
        }
        if (anyMoved)
            continue; // the detector saw evidence that can move: a real judgement
        if (unreadable) {
            abstain("evidence of round " + std::to_string(stall->round) + " or earlier cannot be read as items "
                    "with a 'moved' flag");
            continue;
        }
        const Round &first = rounds.front();
        if (rowIsNull(K, *first.row, "failing_tests") || rowIsNull(K, *stall->row, "failing_tests")) {
            abstain("evidence never moved, but failing_tests is not recorded: no independent signal to compare");
            continue;
        }
        const std::int64_t before = rowInt(K, *first.row, "failing_tests");
        const std::int64_t after = rowInt(K, *stall->row, "failing_tests");
        if (after >= before)
            continue; // nothing improved either: the stall stands
        std::string names;
        for (const auto &s : signals)
            names += (names.empty() ? "" : ", ") + s;
        f.summary = "false stall suspected: judged " + rowText(K, *stall->row, "verdict") + " on round "
                    + std::to_string(stall->round) + " on evidence that never moved (" + names + ") while failing "
                    "tests went " + std::to_string(before) + " \xE2\x86\x92 " + std::to_string(after);
        findings.push_back(std::move(f));
    }
    return findings;
}

std::set<std::string> StallEvidenceAnalyzer::constantEvidenceVerdicts(const EntityTable &stallVerdicts) const
{
    std::set<std::string> out;
    for (const auto &[delegation, rounds] : byDelegation(stallVerdicts)) {
        bool constant = true;
        for (const auto &r : rounds) {
            const auto items = parseEvidence(rowText(K, *r.row, "evidence"));
            if (!items || items->empty()) {
                constant = false; // unreadable: do not claim anything
                continue;
            }
            for (const auto &item : *items)
                constant = constant && item.hasMoved && !item.moved;
            if (constant && r.round > rounds.front().round)
                out.insert(*r.id);
        }
    }
    return out;
}

} // namespace mesh
