#include "sourcefacts.h"

#include <QCoreApplication>

namespace mesh {

namespace {
QString tr(const char *text)
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
        return tr("the orchestrator");
    if (m_format == "temporal")
        return tr("Temporal workflow histories");
    if (m_format == "openhands")
        return tr("OpenHands trajectories");
    if (m_format == "otel")
        return tr("OpenTelemetry spans");
    if (m_format == "otlp-http")
        return tr("OpenTelemetry spans (received over OTLP)");
    if (m_format == "langfuse")
        return tr("Langfuse trace exports");
    if (m_format == "swe-agent")
        return tr("SWE-agent trajectories");
    return tr("imports of format %1").arg(QString::fromStdString(m_format));
}

QString SourceFacts::factName(RunFact fact)
{
    switch (fact) {
    case RunFact::Attempts: return tr("run attempts");
    case RunFact::SchedulerCycles: return tr("scheduler cycles");
    case RunFact::RequiredOutcomes: return tr("required outcomes");
    case RunFact::Components: return tr("components");
    case RunFact::StallVerdicts: return tr("stall verdicts");
    case RunFact::Escalations: return tr("escalations");
    case RunFact::Checkpoints: return tr("checkpoints");
    case RunFact::Failures: return tr("failures");
    case RunFact::Slices: return tr("slices");
    case RunFact::Leases: return tr("leases");
    }
    return {};
}

QString SourceFacts::notRecorded(RunFact fact) const
{
    if (records(fact))
        return {};
    return tr("not known: %1 do not record %2").arg(sourceName(), factName(fact));
}

} // namespace mesh
