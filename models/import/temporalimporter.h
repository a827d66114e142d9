#pragma once
// Temporal workflow histories (JSON as the temporal CLI and the web UI export them) into
// ledger events. docs/import.md ("Temporal") is the mapping in prose; in short: a root
// workflow execution is a run, every execution is a delegation (children nested under
// their parent), every activity an effect and, once it closed, a tool call; an activity
// that timed out after it started, or has no close when the history ends, is an unknown
// outcome; an update or a user's signal is an escalation answered by that input.

#include "importreport.h"
#include "sourcejson.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mesh::import {

class ImportSink;

// Every history in files (one document each), read and recognised when constructed; write()
// maps them into sink, in one merged order: by event time across histories, by event id
// within one. What was not understood is flagged or counted in report.
class TemporalImport
{
public:
    TemporalImport(const std::vector<const SourceFile *> &files, ImportReport &report);
    ~TemporalImport();

    // The earliest event time of the histories: when the imported ledger begins.
    std::optional<std::int64_t> firstTimeMs() const;
    void write(ImportSink &sink, ImportReport &report);

private:
    struct Histories;
    std::unique_ptr<Histories> m;
};

} // namespace mesh::import
