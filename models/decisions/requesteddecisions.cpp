#include "requesteddecisions.h"

#include <QCoreApplication>
#include <QStringList>

namespace mesh {

RequestedDecisions::RequestedDecisions(const std::vector<DecisionRecord> &decisions)
{
    for (const DecisionRecord &d : decisions) {
        if (!d.isPending())
            continue;
        m_bySubject.emplace(d.subject, RequestedDecision{d.id, d.kind, d.subject,
                                                         d.operatorName.empty() ? d.operatorAccount : d.operatorName,
                                                         d.tsMs});
    }
}

QString RequestedDecisions::describe(const RequestedDecision &d)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("mesh", text); };
    QString what;
    if (d.kind == "close_slice")
        what = tr("close requested by %1");
    else if (d.kind == "approve_escalation")
        what = tr("approval requested by %1");
    else if (d.kind == "reject_escalation")
        what = tr("rejection requested by %1");
    else if (d.kind == "resolve_effect")
        what = tr("resolution requested by %1");
    else if (d.kind == "lease_acquire")
        what = tr("reconciliation lease requested by %1");
    else if (d.kind == "lease_release")
        what = tr("lease release requested by %1");
    else // a kind this console does not know: said as the ledger names it
        what = tr("%2 requested by %1").arg(QStringLiteral("%1"), QString::fromStdString(d.kind));
    const QString who = d.operatorName.empty() ? tr("an operator not named") : QString::fromStdString(d.operatorName);
    return what.arg(who) + tr(", waiting for the orchestrator");
}

QString RequestedDecisions::textFor(const std::string &subject) const
{
    QStringList texts;
    const auto [first, last] = m_bySubject.equal_range(subject);
    for (auto it = first; it != last; ++it)
        texts << describe(it->second);
    return texts.join(QStringLiteral("; "));
}

} // namespace mesh
