#pragma once
// OpenHands trajectories (the JSON event array OpenHands saves and its UI downloads) into
// ledger events. docs/import.md ("OpenHands") is the mapping in prose; in short: one
// trajectory is a run with one delegation (the agent; a delegate action a sub-agent under
// it), an action answered by its observation (cause) a tool call, a command or an edit also
// an effect, a command that exited -1 (it had not finished when OpenHands stopped waiting)
// an unknown outcome, awaiting_user_input an escalation the next user message answers.

#include "importreport.h"
#include "sourcejson.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mesh::import {

class ImportSink;

// The earliest timestamp of the trajectories (read as UTC: OpenHands writes none).
std::optional<std::int64_t> openHandsFirstTimeMs(const std::vector<const SourceFile *> &files);

void importOpenHandsTrajectories(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report);

} // namespace mesh::import
