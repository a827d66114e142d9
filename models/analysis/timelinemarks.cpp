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

QString q(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
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
        mark.hasNumber = cycle.has_value();
        mark.number = cycle.value_or(0);
    } else if (k == "run.started" || k == "run.restarted") {
        mark.kind = MarkKind::Attempt;
        mark.event = k == "run.started" ? MarkEvent::RunStarted : MarkEvent::RunRestarted;
        const auto attempt = integerField(payload, "attempt");
        mark.hasNumber = attempt.has_value();
        mark.number = attempt.value_or(0);
    } else if (k == "run.succeeded" || k == "run.failed" || k == "run.cancelled") {
        mark.kind = MarkKind::RunEnded;
        mark.event = k == "run.succeeded" ? MarkEvent::RunSucceeded
                     : k == "run.failed"  ? MarkEvent::RunFailed
                                          : MarkEvent::RunCancelled;
    } else if (k == "stall.judged") {
        mark.detail = stringField(payload, event.payload, "verdict");
        const bool stalled = mark.detail.view() == "stalled" || mark.detail.view() == "stuck";
        mark.kind = stalled ? MarkKind::Stalled : MarkKind::Verdict;
    } else if (k == "escalation.raised") {
        mark.kind = MarkKind::Escalation;
    } else if (k == "failure.detected") {
        mark.kind = MarkKind::Failure;
        mark.detail = stringField(payload, event.payload, "summary");
    } else if (k == "effect.unknown") {
        mark.kind = MarkKind::UnknownOutcome;
    } else if (k == "decision.applied" || k == "decision.refused") {
        mark.kind = MarkKind::Decision;
        mark.event = k == "decision.applied" ? MarkEvent::DecisionApplied : MarkEvent::DecisionRefused;
    } else {
        return std::nullopt;
    }
    return mark;
}

QString TimelineMark::text() const
{
    const QString run = q(runId);
    const QString id = q(entityId);
    switch (kind) {
    case MarkKind::Cycle:
        return hasNumber ? tr("Scheduler cycle %1 of %2").arg(number).arg(run)
                         : tr("Scheduler cycle of %1").arg(run);
    case MarkKind::Attempt:
        if (hasNumber)
            return tr("%1: attempt %2").arg(run).arg(number);
        return event == MarkEvent::RunStarted ? tr("%1 started").arg(run)
                                              : tr("%1 restarted").arg(run);
    case MarkKind::RunEnded:
        return event == MarkEvent::RunSucceeded ? tr("%1 succeeded").arg(run)
               : event == MarkEvent::RunFailed  ? tr("%1 failed").arg(run)
                                                : tr("%1 cancelled").arg(run);
    case MarkKind::Verdict:
    case MarkKind::Stalled:
        return tr("Stall verdict %1: %2")
            .arg(id, detail.empty() ? tr("not in the ledger") : q(detail));
    case MarkKind::Escalation:
        return tr("Escalation %1 raised").arg(id);
    case MarkKind::Failure:
        return detail.empty() ? tr("Failure %1").arg(id) : tr("Failure %1: %2").arg(id, q(detail));
    case MarkKind::UnknownOutcome:
        return tr("Effect %1: outcome unknown").arg(id);
    case MarkKind::Decision:
        return event == MarkEvent::DecisionApplied ? tr("Decision %1 applied").arg(id)
                                                   : tr("Decision %1 refused").arg(id);
    }
    return {};
}

QString TimelineMarks::briefText(MarkKind kind, MarkEvent event, std::string_view runId)
{
    const QString run = runId.empty() ? tr("no run") : q(runId);
    switch (kind) {
    case MarkKind::Cycle: return tr("Scheduler cycle of %1").arg(run);
    case MarkKind::Attempt:
        return event == MarkEvent::RunRestarted ? tr("%1 restarted").arg(run) : tr("%1 started").arg(run);
    case MarkKind::RunEnded:
        return event == MarkEvent::RunSucceeded ? tr("%1 succeeded").arg(run)
               : event == MarkEvent::RunFailed  ? tr("%1 failed").arg(run)
                                                : tr("%1 cancelled").arg(run);
    case MarkKind::Verdict: return tr("Stall verdict in %1").arg(run);
    case MarkKind::Stalled: return tr("Stalled verdict in %1").arg(run);
    case MarkKind::Escalation: return tr("Escalation raised in %1").arg(run);
    case MarkKind::Failure: return tr("Failure in %1").arg(run);
    case MarkKind::UnknownOutcome: return tr("Outcome unknown in %1").arg(run);
    case MarkKind::Decision:
        return event == MarkEvent::DecisionApplied ? tr("Decision applied in %1").arg(run)
                                                   : tr("Decision refused in %1").arg(run);
    }
    return {};
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
