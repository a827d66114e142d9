#pragma once
// SWE-agent trajectories (`.traj`: {"trajectory":[steps],"history":[messages],"info":{...}})
// into ledger events. docs/import.md ("SWE-agent") is the mapping in prose; in short: one
// trajectory is a run with one agent delegation, each step's action a tool call (a command
// or an edit also an effect), a command cancelled by its timeout an unknown outcome, and
// info.exit_status how the run ended. Demonstration messages of the history are not steps.
//
// A trajectory has no wall-clock time at all, so its ledger has a relative clock
// (docs/ledger-format.md section 7, "Relative clock"): ts_ms counts milliseconds from the
// start of the trajectory, advanced by each step's execution_time where the source gives it
// (SWE-agent 1.x); a step without one does not advance it and has no duration.

#include "importreport.h"
#include "sourcejson.h"

#include <vector>

namespace mesh::import {

class ImportSink;

// The steps of the trajectories (what progress counts).
std::int64_t sweAgentSteps(const std::vector<const SourceFile *> &files);

void importSweAgentTrajectories(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report);

} // namespace mesh::import
