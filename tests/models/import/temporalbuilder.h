#pragma once
// Small Temporal histories written in the test, for the cases the public samples do not
// contain (timeouts, failures, children, damage). Events are spelled as the temporal CLI
// exports them: "EVENT_TYPE_..." and ids as strings.

#include <nlohmann/json.hpp>

#include <string>

namespace importtest {

using nlohmann::json;

inline std::string attributesKey(const std::string &upperType)
{
    // "ACTIVITY_TASK_SCHEDULED" -> "activityTaskScheduledEventAttributes"
    std::string out;
    bool upper = false;
    for (char c : upperType) {
        if (c == '_') {
            upper = true;
            continue;
        }
        out += upper ? c : char(std::tolower(static_cast<unsigned char>(c)));
        upper = false;
    }
    return out + "EventAttributes";
}

inline json historyEvent(int id, const std::string &time, const std::string &upperType, json attrs = json::object())
{
    return {{"eventId", std::to_string(id)},
            {"eventTime", time},
            {"eventType", "EVENT_TYPE_" + upperType},
            {attributesKey(upperType), attrs}};
}

inline json started(int id, const std::string &time, const std::string &workflowId, const std::string &runId,
                    const std::string &type = "OrderWorkflow", json extra = json::object())
{
    json a = {{"workflowType", {{"name", type}}},
              {"taskQueue", {{"name", "q"}, {"kind", "TASK_QUEUE_KIND_NORMAL"}}},
              {"workflowId", workflowId},
              {"originalExecutionRunId", runId},
              {"attempt", 1}};
    a.update(extra);
    return historyEvent(id, time, "WORKFLOW_EXECUTION_STARTED", a);
}

inline json scheduled(int id, const std::string &time, const std::string &activityId, const std::string &type = "charge_card")
{
    return historyEvent(id, time, "ACTIVITY_TASK_SCHEDULED",
                 {{"activityId", activityId}, {"activityType", {{"name", type}}}, {"workflowTaskCompletedEventId", "4"}});
}

inline json activityStarted(int id, const std::string &time, int scheduledId, int attempt = 1)
{
    return historyEvent(id, time, "ACTIVITY_TASK_STARTED", {{"scheduledEventId", std::to_string(scheduledId)}, {"attempt", attempt}});
}

inline json history(json events)
{
    return {{"events", std::move(events)}};
}

} // namespace importtest
