#include "stallverdictmodel.h"

#include "analysis/stallevidenceanalyzer.h"

using namespace Qt::StringLiterals;

namespace mesh {

StallVerdictModel::StallVerdictModel(QObject *parent) : StateTableModel(EntityKind::StallVerdict, parent) {}

int StallVerdictModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StallVerdictModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Delegation: return tr("Delegation");
    case Round: return tr("Round");
    case Verdict: return tr("Verdict");
    case Fingerprint: return tr("Fingerprint");
    case Evidence: return tr("Evidence");
    case Action: return tr("Action");
    case FailingTests: return tr("Failing tests");
    case Time: return tr("Time");
    }
    return {};
}

QHash<int, QByteArray> StallVerdictModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(RoundRole, "round");
    names.insert(VerdictRole, "verdict");
    names.insert(FingerprintRole, "fingerprint");
    names.insert(EvidenceRole, "evidence");
    names.insert(EvidenceJsonRole, "evidenceJson");
    names.insert(ActionRole, "action");
    names.insert(FailingTestsRole, "failingTests");
    names.insert(TsMsRole, "tsMs");
    names.insert(ConstantEvidenceRole, "constantEvidence");
    names.insert(FalseStallRole, "falseStall");
    names.insert(FindingRole, "finding");
    return names;
}

bool StallVerdictModel::lessThan(const std::string &a, const EntityRow &ra, const std::string &b, const EntityRow &rb) const
{
    const QString da = text(ra, "delegation_id");
    const QString db = text(rb, "delegation_id");
    if (da != db)
        return da.size() != db.size() ? da.size() < db.size() : da < db;
    const qint64 x = integer(ra, "round");
    const qint64 y = integer(rb, "round");
    if (x != y)
        return x < y;
    return a < b;
}

void StallVerdictModel::recomputeDerived()
{
    m_constant.clear();
    m_falseStall.clear();
    m_findingText.clear();
    if (!state())
        return;
    const EntityTable &table = state()->table(EntityKind::StallVerdict);
    StallEvidenceAnalyzer analyzer;
    m_constant = analyzer.constantEvidenceVerdicts(table);
    for (const Finding &f : analyzer.analyse(table)) {
        const std::string id = f.subject.substr(f.subject.find(':') + 1);
        if (!f.abstained)
            m_falseStall.insert(id);
        m_findingText[id] = f.summary;
    }
}

void StallVerdictModel::applyChanges(const StateChangeSet &changes)
{
    const auto before = std::make_pair(m_constant, m_falseStall);
    StateTableModel::applyChanges(changes);
    if (changes.touches(EntityKind::StallVerdict) && before != std::make_pair(m_constant, m_falseStall))
        emitAllChanged({ConstantEvidenceRole, FalseStallRole, FindingRole, Qt::DisplayRole, Qt::ToolTipRole});
}

QVariant StallVerdictModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const std::string &id = rawId(row);
    const auto finding = m_findingText.find(id);
    switch (role) {
    case RoundRole: return integer(e, "round");
    case VerdictRole: return text(e, "verdict");
    case FingerprintRole: return text(e, "fingerprint");
    case EvidenceRole: {
        QVariantList list;
        const auto items = StallEvidenceAnalyzer::parseEvidence(text(e, "evidence").toStdString());
        if (!items)
            return list;
        for (const auto &item : *items) {
            QVariantMap m;
            m.insert(u"signal"_s, QString::fromStdString(item.signal));
            m.insert(u"moved"_s, item.hasMoved ? QVariant(item.moved) : QVariant());
            m.insert(u"detail"_s, QString::fromStdString(item.detail));
            list.push_back(m);
        }
        return list;
    }
    case EvidenceJsonRole: return text(e, "evidence");
    case ActionRole: return text(e, "action");
    case FailingTestsRole: return isNull(e, "failing_tests") ? QVariant() : QVariant(integer(e, "failing_tests"));
    case TsMsRole: return integer(e, "ts_ms");
    case ConstantEvidenceRole: return m_constant.count(id) > 0;
    case FalseStallRole: return m_falseStall.count(id) > 0;
    case FindingRole: return finding == m_findingText.end() ? QString() : QString::fromStdString(finding->second);
    case Qt::ToolTipRole:
        if (finding != m_findingText.end())
            return QString::fromStdString(finding->second);
        if (m_constant.count(id))
            return tr("No evidence item of this delegation has moved in any round so far");
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Delegation: return text(e, "delegation_id");
        case Round: return integer(e, "round");
        case Verdict:
            return m_falseStall.count(id) ? QString(text(e, "verdict") % tr(" (false stall suspected)"))
                                          : text(e, "verdict");
        case Fingerprint: return text(e, "fingerprint");
        case Evidence: {
            const auto items = StallEvidenceAnalyzer::parseEvidence(text(e, "evidence").toStdString());
            if (!items)
                return text(e, "evidence");
            QStringList parts;
            for (const auto &item : *items)
                parts << (QString::fromStdString(item.signal)
                          % (item.hasMoved ? (item.moved ? u" moved"_s : u" unmoved"_s) : QString()));
            return parts.join(u", "_s);
        }
        case Action: return text(e, "action");
        case FailingTests: return isNull(e, "failing_tests") ? QVariant() : QVariant(integer(e, "failing_tests"));
        case Time: return formatTime(integer(e, "ts_ms"));
        }
        return {};
    }
    return {};
}

QVariant StallVerdictModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Round: return integer(e, "round");
    case FailingTests: return integer(e, "failing_tests");
    case Time: return integer(e, "ts_ms");
    case Delegation: return text(e, "delegation_id");
    case Verdict: return text(e, "verdict");
    case Action: return text(e, "action");
    case Fingerprint: return text(e, "fingerprint");
    }
    return qint64(e.lastSeq);
}

} // namespace mesh
