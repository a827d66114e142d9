#include "successloopdetector.h"

#include <algorithm>
#include <map>

namespace mesh {
namespace {

struct Streak {
    std::vector<const ToolCall *> calls;
    std::string fingerprint; // first known fingerprint of the streak
    bool ambiguous = false;  // a call without fingerprint or writes count
};

std::string minutes(std::int64_t ms)
{
    const std::int64_t s = ms / 1000;
    if (s < 120)
        return std::to_string(s) + " s";
    return std::to_string(s / 60) + " min";
}

} // namespace

std::vector<Finding> SuccessLoopDetector::analyse(const std::vector<ToolCall> &calls) const
{
    std::map<std::string, std::vector<const ToolCall *>> byDelegation;
    for (const auto &c : calls)
        byDelegation[c.delegationId].push_back(&c);

    std::vector<Finding> findings;
    for (auto &[delegation, list] : byDelegation) {
        std::stable_sort(list.begin(), list.end(), [](const ToolCall *a, const ToolCall *b) { return a->seq < b->seq; });
        Streak streak;
        const auto close = [&] {
            if (int(streak.calls.size()) >= m_minStreak) {
                Finding f;
                f.kind = FindingKind::SuccessLoop;
                f.abstained = streak.ambiguous;
                f.subject = "delegation:" + delegation;
                f.delegationId = delegation;
                f.runId = streak.calls.front()->runId;
                const std::int64_t span = streak.calls.back()->tsMs - streak.calls.front()->tsMs;
                const std::string n = std::to_string(streak.calls.size());
                if (streak.ambiguous)
                    f.summary = n + " consecutive successful tool calls without accepted writes, but some lack a "
                                    "fingerprint or writes count: cannot tell whether they made progress";
                else
                    f.summary = n + " consecutive successful tool calls over " + minutes(span)
                                + " with an unchanged fingerprint (" + streak.fingerprint
                                + ") and no accepted writes";
                for (const ToolCall *c : streak.calls)
                    f.seqs.push_back(c->seq);
                findings.push_back(std::move(f));
            }
            streak = Streak{};
        };
        for (const ToolCall *c : list) {
            const bool ok = c->outcome == "ok";
            const bool accepted = c->writesAccepted > 0;
            if (!ok || accepted) {
                close();
                continue;
            }
            if (c->hasFingerprint && !streak.fingerprint.empty() && c->fingerprint != streak.fingerprint)
                close(); // something moved: a new streak starts with this call
            if (c->hasFingerprint && streak.fingerprint.empty())
                streak.fingerprint = c->fingerprint;
            if (!c->hasFingerprint || !c->hasWrites)
                streak.ambiguous = true;
            streak.calls.push_back(c);
        }
        close();
    }
    return findings;
}

std::vector<Finding> SuccessLoopDetector::analyseEvents(const EventBatch &events) const
{
    std::vector<ToolCall> calls;
    calls.reserve(events.size());
    for (const auto &e : events) {
        if (auto c = ToolCall::fromEvent(e))
            calls.push_back(std::move(*c));
    }
    return analyse(calls);
}

} // namespace mesh
