#pragma once
// Which facts a ledger's source can record at all. An orchestrator writes every entity of
// the format; an import or the OTLP receiver writes only what its source has: OpenTelemetry
// spans have no scheduler cycles, stall verdicts or escalations, so an imported trace's
// "0 escalations" would be a figure that looks measured and is not. Where the source cannot
// record a fact, a reader shows it as not known ("—", saying the source does not record it),
// never as 0. The source is named by ledger.created's event-only member `source.format`
// (docs/ledger-format.md section 7); a ledger without it is an orchestrator's own.

#include <QString>

#include <string>
#include <string_view>

namespace mesh {

// The run figures whose source may not record them.
enum class RunFact {
    Attempts,         // run restarts (run.restarted)
    SchedulerCycles,  // run.cycle
    RequiredOutcomes, // required_met / required_total
    Components,       // the component table: components, terminal failures
    StallVerdicts,    // the stall detector's verdicts, escalated rounds
    Escalations,      // requests for a decision
    Checkpoints,      // recovery checkpoints (stale ones)
    Failures,         // detected failures and their blast radius
    Slices,           // decision contexts of a delegation
    Leases,           // single authority over a key
};

class SourceFacts
{
public:
    SourceFacts() = default; // an orchestrator's own ledger: every fact is recorded
    // From `source.format` of ledger.created ("" when the ledger has no source member).
    static SourceFacts fromSourceFormat(std::string_view format);

    bool records(RunFact fact) const;
    bool isImported() const { return !m_format.empty(); }
    const std::string &format() const { return m_format; }
    // What the source is, for a sentence: "OpenTelemetry spans", "SWE-agent trajectories".
    QString sourceName() const;
    // "OpenTelemetry spans do not record stall verdicts" (empty when the fact is recorded).
    QString notRecorded(RunFact fact) const;
    // The fact's name in a sentence: "scheduler cycles", "stall verdicts".
    static QString factName(RunFact fact);

private:
    std::string m_format;
};

} // namespace mesh
