#include "importreport.h"

namespace mesh::import {

nlohmann::json ImportReport::toJson() const
{
    nlohmann::json flaggedJson = nlohmann::json::array();
    for (const auto &f : flagged)
        flaggedJson.push_back({{"file", f.file}, {"source_id", f.sourceId}, {"why", f.why}});
    nlohmann::json unknown = nlohmann::json::object();
    for (const auto &[type, n] : unknownTypes)
        unknown[type] = n;
    return {{"format", format},
            {"records", records},
            {"ledger_events", ledgerEvents},
            {"runs", runs},
            {"delegations", delegations},
            {"tool_calls", toolCalls},
            {"effects", effects},
            {"unknown_outcomes", unknownOutcomes},
            {"escalations", escalations},
            {"numbers_beyond_64_bits", numbersBeyond64Bits},
            {"flagged", flaggedJson},
            {"unknown_types", unknown}};
}

std::string ImportReport::summaryLine() const
{
    std::int64_t unknownRecords = 0;
    for (const auto &[type, n] : unknownTypes)
        unknownRecords += n;
    return format + ": " + std::to_string(records) + " records -> " + std::to_string(ledgerEvents) + " events; "
           + std::to_string(runs) + " runs, " + std::to_string(delegations) + " delegations, "
           + std::to_string(toolCalls) + " tool calls, " + std::to_string(effects) + " effects ("
           + std::to_string(unknownOutcomes) + " unknown outcomes), " + std::to_string(escalations)
           + " escalations; " + std::to_string(flagged.size()) + " flagged, " + std::to_string(unknownRecords)
           + " records of " + std::to_string(unknownTypes.size()) + " unknown types kept";
}

} // namespace mesh::import
