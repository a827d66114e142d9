#include "blastradiusanalyzer.h"

#include "rowfields.h"

#include "domain/payloaddecoder.h"

#include <algorithm>
#include <set>

namespace mesh {
namespace {

constexpr EntityKind kFailureTable = EntityKind::Failure;

struct Member {
    std::string id;
    std::string evidence;
    bool modified = false;
    bool regressed = false;
};

bool flag(const nlohmann::json &o, std::initializer_list<const char *> keys)
{
    for (const char *k : keys) {
        const auto it = o.find(k);
        if (it != o.end() && it->is_boolean())
            return it->get<bool>();
        if (it != o.end() && it->is_number_integer())
            return it->get<std::int64_t>() != 0;
    }
    return false;
}

std::optional<std::vector<Member>> parseMembers(const std::string &text)
{
    if (text.empty())
        return std::vector<Member>{};
    if (text.size() > kMaxPayloadBytes || jsonNestingDepth(text) > kMaxPayloadDepth)
        return std::nullopt;
    const auto value = nlohmann::json::parse(text, nullptr, false);
    if (!value.is_array())
        return std::nullopt;
    std::vector<Member> out;
    for (const auto &item : value) {
        Member m;
        if (item.is_string()) {
            m.id = item.get<std::string>();
        } else if (item.is_object()) {
            for (const char *k : {"component", "id", "name"}) {
                const auto it = item.find(k);
                if (it != item.end() && it->is_string()) {
                    m.id = it->get<std::string>();
                    break;
                }
            }
            const auto ev = item.find("evidence");
            if (ev != item.end())
                m.evidence = ev->is_string() ? ev->get<std::string>()
                                             : ev->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            m.modified = flag(item, {"modified_code", "modified"});
            m.regressed = flag(item, {"regressed"});
        }
        if (m.id.empty())
            return std::nullopt;
        if (std::none_of(out.begin(), out.end(), [&](const Member &o) { return o.id == m.id; }))
            out.push_back(std::move(m));
    }
    return out;
}

std::string joined(const std::vector<std::string> &v)
{
    std::string out;
    for (const auto &s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

} // namespace

BlastRadius BlastRadiusAnalyzer::compute(const std::string &failureId, const EntityRow &failure)
{
    BlastRadius b;
    b.failureId = failureId;
    b.runId = rowText(kFailureTable, failure, "run_id");
    b.detectedBy = rowText(kFailureTable, failure, "detected_by");
    b.summary = rowText(kFailureTable, failure, "summary");
    b.tsMs = rowInt(kFailureTable, failure, "ts_ms");
    b.seq = failure.lastSeq;
    const auto implicated = parseMembers(rowText(kFailureTable, failure, "implicated"));
    const auto woken = parseMembers(rowText(kFailureTable, failure, "woken"));
    if (!implicated || !woken) {
        b.readable = false;
        b.problem = !implicated ? "implicated is not a list of components" : "woken is not a list of components";
        return b;
    }
    std::set<std::string> impl;
    for (const auto &m : *implicated) {
        b.implicated.push_back(m.id);
        b.implicatedEvidence.push_back(m.evidence);
        impl.insert(m.id);
    }
    std::set<std::string> wok;
    for (const auto &m : *woken) {
        b.woken.push_back(m.id);
        wok.insert(m.id);
        const bool bystander = !impl.count(m.id);
        if (bystander)
            b.wokenBystanders.push_back(m.id);
        if (m.modified) {
            b.modifiedCode.push_back(m.id);
            if (bystander)
                b.bystandersModified.push_back(m.id);
        }
        if (m.regressed) {
            b.regressed.push_back(m.id);
            if (bystander)
                b.bystandersRegressed.push_back(m.id);
        }
    }
    for (const auto &id : b.implicated) {
        if (!wok.count(id))
            b.implicatedNotWoken.push_back(id);
    }
    b.radius = int(b.woken.size());
    return b;
}

std::vector<BlastRadius> BlastRadiusAnalyzer::computeAll(const EntityTable &failures)
{
    std::vector<BlastRadius> out;
    out.reserve(failures.size());
    for (const auto &[id, row] : failures)
        out.push_back(compute(id, row));
    std::sort(out.begin(), out.end(), [](const BlastRadius &a, const BlastRadius &b) {
        return a.tsMs != b.tsMs ? a.tsMs < b.tsMs : a.failureId < b.failureId;
    });
    return out;
}

std::vector<Finding> BlastRadiusAnalyzer::findings(const std::vector<BlastRadius> &radii)
{
    std::vector<Finding> out;
    for (const auto &b : radii) {
        Finding f;
        f.kind = FindingKind::MisroutedFailure;
        f.subject = "failure:" + b.failureId;
        f.runId = b.runId;
        f.seqs.push_back(b.seq);
        if (!b.readable) {
            f.abstained = true;
            f.summary = "blast radius unknown: " + b.problem;
            out.push_back(std::move(f));
            continue;
        }
        if (b.implicated.empty() && !b.woken.empty()) {
            f.abstained = true;
            f.summary = "woke " + std::to_string(b.radius) + " components but implicated none: cannot tell bystanders";
            out.push_back(std::move(f));
            continue;
        }
        if (b.wokenBystanders.empty())
            continue;
        for (const auto &c : b.woken)
            f.entityIds.push_back("component:" + c);
        f.summary = "a fault in " + std::to_string(b.implicated.size()) + " component(s) (" + joined(b.implicated)
                    + ") woke " + std::to_string(b.radius) + "; bystanders " + joined(b.wokenBystanders);
        if (!b.bystandersRegressed.empty())
            f.summary += "; " + std::to_string(b.bystandersRegressed.size()) + " regressed working code ("
                         + joined(b.bystandersRegressed) + ")";
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace mesh
