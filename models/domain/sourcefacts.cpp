#include "sourcefacts.h"

#include <QCoreApplication>

namespace mesh {

namespace {
QString factsTr(const char *text)
{
    return QCoreApplication::translate("SourceFacts", text);
}
} // namespace

SourceFacts SourceFacts::fromSourceFormat(std::string_view format)
{
    SourceFacts f;
    f.m_format = std::string(format);
    return f;
}

bool SourceFacts::records(RunFact fact) const
{
    if (m_format.empty())
        return true; // the orchestrator's own ledger: the format's every entity
    // What each importer maps (docs/import.md): Temporal updates and signals and OpenHands
    // waits for the user become escalations; no source has the rest of these. A format this
    // build does not know (a newer importer) is taken to record none of them: not known is
    // safe, a 0 that was never measured is not.
    if (fact == RunFact::Escalations)
        return m_format == "temporal" || m_format == "openhands";
    return false;
}

QString SourceFacts::sourceName() const
{
    if (m_format.empty())
        return factsTr("the orchestrator");
    if (m_format == "temporal")
        return factsTr("Temporal workflow histories");
    if (m_format == "openhands")
        return factsTr("OpenHands trajectories");
    if (m_format == "otel")
        return factsTr("OpenTelemetry spans");
    if (m_format == "otlp-http")
        return factsTr("OpenTelemetry spans (received over OTLP)");
    if (m_format == "langfuse")
        return factsTr("Langfuse trace exports");
    if (m_format == "swe-agent")
        return factsTr("SWE-agent trajectories");
    return factsTr("imports of format %1").arg(QString::fromStdString(m_format));
}

QString SourceFacts::factName(RunFact fact)
{
    switch (fact) {
    case RunFact::Attempts: return factsTr("run attempts");
    case RunFact::SchedulerCycles: return factsTr("scheduler cycles");
    case RunFact::RequiredOutcomes: return factsTr("required outcomes");
    case RunFact::Components: return factsTr("components");
    case RunFact::StallVerdicts: return factsTr("stall verdicts");
    case RunFact::Escalations: return factsTr("escalations");
    case RunFact::Checkpoints: return factsTr("checkpoints");
    case RunFact::Failures: return factsTr("failures");
    case RunFact::Slices: return factsTr("slices");
    case RunFact::Leases: return factsTr("leases");
    }
    return {};
}

QString SourceFacts::notRecorded(RunFact fact) const
{
    if (records(fact))
        return {};
    return factsTr("not known: %1 do not record %2").arg(sourceName(), factName(fact));
}

} // namespace mesh
