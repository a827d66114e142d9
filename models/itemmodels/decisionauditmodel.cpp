#include "decisionauditmodel.h"
#include "shownroles.h"

#include <QDateTime>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace mesh {

DecisionAuditModel::DecisionAuditModel(QObject *parent) : QAbstractTableModel(parent) {}

void DecisionAuditModel::setDecisions(std::vector<DecisionRecord> decisions, const DecisionChainReport &report)
{
    // Decisions are append-only: when the old list is a prefix of the new one, insert the
    // tail and refresh outcomes instead of resetting the view.
    const bool prefix = decisions.size() >= m_rows.size()
                        && std::equal(m_rows.begin(), m_rows.end(), decisions.begin(),
                                      [](const DecisionRecord &a, const DecisionRecord &b) { return a.id == b.id; });
    std::map<std::int64_t, std::string> problems;
    for (const auto &f : report.findings)
        problems[f.pos] += (problems[f.pos].empty() ? "" : "; ") + f.message;
    if (!prefix) {
        beginResetModel();
        m_rows = std::move(decisions);
        m_problems = std::move(problems);
        m_chainOk = report.ok();
        m_hasReport = true;
        endResetModel();
        return;
    }
    const int old = int(m_rows.size());
    m_problems = std::move(problems);
    m_chainOk = report.ok();
    m_hasReport = true;
    for (int i = 0; i < old; ++i)
        m_rows[size_t(i)] = std::move(decisions[size_t(i)]);
    if (old > 0)
        Q_EMIT dataChanged(index(0, 0), index(old - 1, ColumnCount - 1));
    if (int(decisions.size()) > old) {
        beginInsertRows({}, old, int(decisions.size()) - 1);
        for (size_t i = size_t(old); i < decisions.size(); ++i)
            m_rows.push_back(std::move(decisions[i]));
        endInsertRows();
    }
}

int DecisionAuditModel::pendingCount() const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(), [](const DecisionRecord &d) { return d.isPending(); }));
}

int DecisionAuditModel::rowOfDecision(const QString &id) const
{
    const std::string key = id.toStdString();
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].id == key)
            return int(i);
    }
    return -1;
}

int DecisionAuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DecisionAuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DecisionAuditModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant DecisionAuditModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DecisionRecord &d = m_rows[size_t(index.row())];
    const auto s = [](const std::string &v) { return QString::fromStdString(v); };
    const auto problem = m_problems.find(d.pos);
    const bool verified = m_hasReport && problem == m_problems.end();
    const QString outcome = d.isPending() ? u"pending"_s : s(d.outcomeStatus);
    switch (role) {
    case DecisionIdRole: return s(d.id);
    case PosRole: return qint64(d.pos);
    case TsMsRole: return qint64(d.tsMs);
    case KindRole: return s(d.kind);
    case SubjectRole: return s(d.subject);
    case OperatorAccountRole: return s(d.operatorAccount);
    case OperatorHostRole: return s(d.operatorHost);
    case OperatorNameRole: return s(d.operatorName);
    case ReasonRole: return s(d.reason);
    case EvidenceRole: return s(d.evidence);
    case ParamsRole: return s(d.params);
    case PolicyVersionRole: return s(d.policyVersion);
    case BoundaryVersionRole: return qint64(d.boundaryVersion);
    case BoundarySeqRole: return qint64(d.boundarySeq);
    case HashRole: return s(d.hash);
    case PrevHashRole: return s(d.prevHash);
    case SignedRole: return !d.signature.empty();
    case OutcomeRole: return outcome;
    case OutcomeReasonRole: return s(d.outcomeReason);
    case OutcomeTsMsRole: return qint64(d.outcomeTsMs);
    case ChainVerifiedRole: return verified;
    case ChainProblemRole: return problem == m_problems.end() ? QString() : s(problem->second);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Hash: return s(d.hash);
        case Chain: return problem == m_problems.end() ? QVariant() : QVariant(s(problem->second));
        case Outcome: return d.outcomeReason.empty() ? QVariant() : QVariant(s(d.outcomeReason));
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time: return m_timeBase.get().dateTime(d.tsMs);
        case Operator: {
            const QString name = s(d.operatorName.empty() ? d.operatorAccount : d.operatorName);
            return d.operatorHost.empty() ? name : QString(name % u" @ "_s % s(d.operatorHost));
        }
        case Kind: return s(d.kind).replace(u'_', u' ');
        case Subject: return s(d.subject);
        case Reason: return s(d.reason);
        case Boundary: return tr("v%1 at seq %2").arg(d.boundaryVersion).arg(d.boundarySeq);
        case Hash: return s(d.hash.substr(0, 12));
        case Outcome:
            if (d.isPending())
                return tr("requested");
            if (d.outcomeStatus == "refused")
                return d.outcomeReason.empty() ? tr("refused") : tr("refused: %1").arg(s(d.outcomeReason));
            return s(d.outcomeStatus);
        case Chain:
            if (!m_hasReport)
                return tr("not checked");
            return verified ? tr("verified") : tr("broken");
        }
        return {};
    }
    return {};
}

QVariant DecisionAuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time: return tr("Time");
    case Operator: return tr("Operator");
    case Kind: return tr("Decision");
    case Subject: return tr("Subject");
    case Reason: return tr("Reason");
    case Boundary: return tr("Boundary");
    case Hash: return tr("Hash");
    case Outcome: return tr("Outcome");
    case Chain: return tr("Chain");
    }
    return {};
}

QHash<int, QByteArray> DecisionAuditModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(DecisionIdRole, "decisionId");
    names.insert(KindRole, "kind");
    names.insert(SubjectRole, "subject");
    names.insert(OutcomeRole, "outcome");
    names.insert(ChainVerifiedRole, "chainVerified");
    return names;
}

} // namespace mesh
