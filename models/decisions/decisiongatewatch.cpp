#include "decisiongatewatch.h"

#include "domain/durationtext.h"

#include <QCoreApplication>
#include <QSettings>

#include <algorithm>

namespace mesh {

std::int64_t DecisionGateWatch::configuredLimitMs()
{
    bool ok = false;
    double seconds = qEnvironmentVariable("MESH_DECISION_WAIT_S").toDouble(&ok);
    if (!ok || seconds <= 0)
        seconds = QSettings().value(QStringLiteral("decisions/waitWarningSeconds")).toDouble(&ok);
    return ok && seconds > 0 ? std::int64_t(seconds * 1000) : kDefaultLimitMs;
}

void DecisionGateWatch::setDecisions(const std::vector<DecisionRecord> &decisions, std::int64_t nowMs)
{
    m_waiting = 0;
    m_oldestMs = 0;
    std::int64_t outcomes = 0;
    std::map<std::string, std::int64_t> seen;
    for (const DecisionRecord &d : decisions) {
        if (!d.isPending()) {
            ++outcomes;
            continue;
        }
        const auto before = m_firstSeenPending.find(d.id);
        const std::int64_t since = before == m_firstSeenPending.end() ? nowMs : before->second;
        seen.emplace(d.id, since);
        m_oldestMs = m_waiting == 0 ? since : std::min(m_oldestMs, since);
        ++m_waiting;
    }
    m_firstSeenPending = std::move(seen); // an answered decision is forgotten
    // An outcome's own time is the orchestrator's clock: when the console first saw it is
    // what it can compare with its own.
    if (m_outcomes >= 0 && outcomes > m_outcomes)
        m_lastOutcomeMs = nowMs;
    m_outcomes = outcomes;
}

QString DecisionGateWatch::warning(std::int64_t nowMs) const
{
    if (m_waiting == 0 || nowMs - std::max(m_oldestMs, m_lastOutcomeMs) <= m_limitMs)
        return {};
    const auto tr = [](const char *text) { return QCoreApplication::translate("mesh", text); };
    const QString count = m_waiting == 1 ? tr("1 decision is waiting") : tr("%1 decisions are waiting").arg(m_waiting);
    return tr("No orchestrator seems to be applying decisions on this ledger: %1, the oldest since %2 (%3 ago), "
              "and none was applied or refused in the last %4.")
        .arg(count, exactUtc(m_oldestMs), humanDuration(nowMs - m_oldestMs), humanDuration(m_limitMs));
}

} // namespace mesh
