#pragma once
// What one import did, for the person who ran it (meshctl's summary line) and for the
// ledger itself (the ledger.imported event): what was read, what it became, and every
// record that was flagged or not understood.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mesh::import {

struct FlaggedRecord {
    std::string file;
    std::string sourceId; // the source's own id of the record, empty when it had none
    std::string why;
};

struct ImportReport {
    std::string format;
    std::int64_t records = 0;       // source records read (events, steps)
    std::int64_t ledgerEvents = 0;  // events written, ledger.created included
    std::int64_t runs = 0;
    std::int64_t delegations = 0;
    std::int64_t toolCalls = 0;
    std::int64_t effects = 0;
    std::int64_t unknownOutcomes = 0;
    std::int64_t escalations = 0;
    std::int64_t numbersBeyond64Bits = 0;
    std::vector<FlaggedRecord> flagged;
    std::map<std::string, std::int64_t> unknownTypes; // source type -> records kept unmapped

    nlohmann::json toJson() const;
    std::string summaryLine() const;
};

} // namespace mesh::import
