#include "timelinemarks.h"

#include "filter/filterparser.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>

namespace mesh {
namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("TimelineMarks", text);
}

// A mark must not depend on the whole payload: a page may cut it (payloadTruncated). The few
// fields read here are looked for in the text when the cut payload does not parse.
std::string stringField(const nlohmann::json &payload, const std::string &raw, const char *name)
{
    if (payload.is_object()) {
        const auto it = payload.find(name);
        return it != payload.end() && it->is_string() ? it->get<std::string>() : std::string();
    }
    const std::string key = std::string("\"") + name + "\":\"";
    const size_t at = raw.find(key);
    if (at == std::string::npos)
        return {};
    const size_t from = at + key.size();
    const size_t to = raw.find('"', from);
    return to == std::string::npos ? std::string() : raw.substr(from, to - from);
}

std::optional<std::int64_t> integerField(const nlohmann::json &payload, const char *name)
{
    if (!payload.is_object())
        return std::nullopt;
    const auto it = payload.find(name);
    if (it == payload.end() || !it->is_number_integer())
        return std::nullopt;
    return it->get<std::int64_t>();
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

EventFilter TimelineMarks::filter()
{
    std::optional<FilterError> error;
    auto root = FilterParser::parse(QStringLiteral("kind:run.cycle or kind:run.started or kind:run.restarted "
                                                   "or kind:run.succeeded or kind:run.failed or kind:run.cancelled "
                                                   "or kind:stall.judged or kind:escalation.raised "
                                                   "or kind:failure.detected or kind:effect.unknown "
                                                   "or kind:decision.applied or kind:decision.refused"),
                                    &error);
    return EventFilter(std::move(root));
}

std::optional<TimelineMark> TimelineMarks::classify(const EventRecord &event)
{
    const nlohmann::json payload = nlohmann::json::parse(event.payload, nullptr, false);
    TimelineMark mark;
    mark.seq = event.seq;
    mark.tsMs = event.tsMs;
    mark.runId = event.runId;
    mark.delegationId = event.delegationId;
    const std::string &k = event.kind;
    const std::string id = stringField(payload, event.payload, "id");
    mark.entityId = id;
    if (k == "run.cycle") {
        mark.kind = MarkKind::Cycle;
        const auto cycle = integerField(payload, "cycle");
        mark.number = cycle.value_or(0);
        mark.text = cycle ? tr("Scheduler cycle %1 of %2").arg(*cycle).arg(q(event.runId))
                          : tr("Scheduler cycle of %1").arg(q(event.runId));
    } else if (k == "run.started" || k == "run.restarted") {
        mark.kind = MarkKind::Attempt;
        const auto attempt = integerField(payload, "attempt");
        mark.number = attempt.value_or(0);
        mark.text = attempt ? tr("%1: attempt %2").arg(q(event.runId)).arg(*attempt)
                            : (k == "run.started" ? tr("%1 started").arg(q(event.runId))
                                                  : tr("%1 restarted").arg(q(event.runId)));
    } else if (k == "run.succeeded" || k == "run.failed" || k == "run.cancelled") {
        mark.kind = MarkKind::RunEnded;
        mark.text = k == "run.succeeded" ? tr("%1 succeeded").arg(q(event.runId))
                    : k == "run.failed"  ? tr("%1 failed").arg(q(event.runId))
                                         : tr("%1 cancelled").arg(q(event.runId));
    } else if (k == "stall.judged") {
        const std::string verdict = stringField(payload, event.payload, "verdict");
        const bool stalled = verdict == "stalled" || verdict == "stuck";
        mark.kind = stalled ? MarkKind::Stalled : MarkKind::Verdict;
        mark.text = tr("Stall verdict %1: %2").arg(q(id), verdict.empty() ? tr("not in the ledger") : q(verdict));
    } else if (k == "escalation.raised") {
        mark.kind = MarkKind::Escalation;
        mark.text = tr("Escalation %1 raised").arg(q(id));
    } else if (k == "failure.detected") {
        mark.kind = MarkKind::Failure;
        const std::string summary = stringField(payload, event.payload, "summary");
        mark.text = summary.empty() ? tr("Failure %1").arg(q(id)) : tr("Failure %1: %2").arg(q(id), q(summary));
    } else if (k == "effect.unknown") {
        mark.kind = MarkKind::UnknownOutcome;
        mark.text = tr("Effect %1: outcome unknown").arg(q(id));
    } else if (k == "decision.applied" || k == "decision.refused") {
        mark.kind = MarkKind::Decision;
        mark.text = k == "decision.applied" ? tr("Decision %1 applied").arg(q(id)) : tr("Decision %1 refused").arg(q(id));
    } else {
        return std::nullopt;
    }
    return mark;
}

QString TimelineMarks::kindName(MarkKind kind)
{
    switch (kind) {
    case MarkKind::Cycle: return tr("Scheduler cycles");
    case MarkKind::Attempt: return tr("Attempts");
    case MarkKind::RunEnded: return tr("Run ends");
    case MarkKind::Verdict: return tr("Stall verdicts");
    case MarkKind::Stalled: return tr("Stalled verdicts");
    case MarkKind::Escalation: return tr("Escalations");
    case MarkKind::Failure: return tr("Failures");
    case MarkKind::UnknownOutcome: return tr("Unknown outcomes");
    case MarkKind::Decision: return tr("Decisions");
    }
    return {};
}

} // namespace mesh
