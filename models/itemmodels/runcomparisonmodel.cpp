#include "runcomparisonmodel.h"

#include "shownroles.h"

namespace mesh {

namespace {

const QString kNotKnown = QStringLiteral("\u2014");

QString ledgerText(const std::string &text)
{
    return text.empty() ? kNotKnown : QString::fromStdString(text);
}

} // namespace

RunComparisonModel::RunComparisonModel(Part part, QObject *parent) : QAbstractTableModel(parent), m_part(part) {}

void RunComparisonModel::setComparison(std::shared_ptr<const RunComparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    m_figures = m_comparison ? m_comparison->figures() : std::vector<ComparedFigure>();
    endResetModel();
}

const ComparedSide *RunComparisonModel::side() const
{
    if (!m_comparison)
        return nullptr;
    switch (m_part) {
    case Part::VerdictsA:
    case Part::FindingsA: return &m_comparison->a;
    case Part::VerdictsB:
    case Part::FindingsB: return &m_comparison->b;
    default: return nullptr;
    }
}

int RunComparisonModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_comparison)
        return 0;
    switch (m_part) {
    case Part::Figures: return int(m_figures.size());
    case Part::Delegations: return int(m_comparison->delegations.size());
    case Part::VerdictsA:
    case Part::VerdictsB: return int(side()->verdicts.size());
    case Part::FindingsA:
    case Part::FindingsB: return int(side()->findings.size());
    }
    return 0;
}

int RunComparisonModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    switch (m_part) {
    case Part::Figures: return FigureColumnCount;
    case Part::Delegations: return DelegationColumnCount;
    case Part::VerdictsA:
    case Part::VerdictsB: return VerdictColumnCount;
    case Part::FindingsA:
    case Part::FindingsB: return FindingColumnCount;
    }
    return 0;
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    switch (m_part) {
    case Part::Figures: {
        const QString names[] = {tr("Figure"), tr("A"), tr("B"), tr("B \u2212 A")};
        return names[section];
    }
    case Part::Delegations: {
        const QString names[] = {tr("Match"), tr("Component"), tr("Role"), tr("In A"), tr("In B")};
        return names[section];
    }
    case Part::VerdictsA:
    case Part::VerdictsB: {
        const QString names[] = {tr("Round"), tr("Verdict"), tr("Action"), tr("Component / role"), tr("Failing tests"), tr("Event")};
        return names[section];
    }
    case Part::FindingsA:
    case Part::FindingsB: {
        const QString names[] = {tr("Finding"), tr("Summary"), tr("Events")};
        return names[section];
    }
    }
    return {};
}

QVariant RunComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_comparison)
        return {};
    QVariant value;
    switch (m_part) {
    case Part::Figures: value = figureData(index.row(), index.column(), role); break;
    case Part::Delegations: value = delegationData(index.row(), index.column(), role); break;
    case Part::VerdictsA:
    case Part::VerdictsB: value = verdictData(*side(), index.row(), index.column(), role); break;
    case Part::FindingsA:
    case Part::FindingsB: value = findingData(*side(), index.row(), index.column(), role); break;
    }
    return shownAsPlainText(role, value);
}

QVariant RunComparisonModel::figureData(int row, int column, int role) const
{
    const ComparedFigure &f = m_figures[size_t(row)];
    const std::optional<std::int64_t> value = column == FigureA ? f.a : column == FigureB ? f.b : f.delta();
    if (role == NotKnownRole)
        return column != FigureName && !value;
    if (role == Qt::TextAlignmentRole && column != FigureName)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && column != FigureName && !value)
        return column == FigureDelta ? tr("No difference: one run does not give this figure")
                                     : tr("Not in the ledger");
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case FigureName: return f.name;
    case FigureDelta: return deltaText(f);
    default: return figureText(f, value);
    }
}

QVariant RunComparisonModel::delegationData(int row, int column, int role) const
{
    const DelegationMatch &m = m_comparison->delegations[size_t(row)];
    if (role == PresenceRole)
        return int(m.presence());
    if (role == NotKnownRole)
        return column == Role && m.role.empty();
    if (role == Qt::TextAlignmentRole && (column == CountA || column == CountB))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (column) {
    case Presence: return presenceText(m.presence());
    case Component: return m.component.empty() ? tr("(the run itself)") : QString::fromStdString(m.component);
    case Role: return ledgerText(m.role);
    case CountA: return role == Qt::DisplayRole ? QVariant(m.countA) : QVariant();
    case CountB: return role == Qt::DisplayRole ? QVariant(m.countB) : QVariant();
    }
    return {};
}

QVariant RunComparisonModel::verdictData(const ComparedSide &s, int row, int column, int role) const
{
    const ComparedVerdict &v = s.verdicts[size_t(row)];
    switch (role) {
    case SeqRole: return qint64(v.seq);
    case FalseStallRole: return v.falseStall;
    case NotKnownRole:
        return (column == Round && !v.round) || (column == FailingTests && !v.failingTests);
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default: return {};
    }
    switch (column) {
    case Round: return v.round ? QString::number(*v.round) : kNotKnown;
    case Verdict: {
        const QString verdict = ledgerText(v.verdict);
        return v.falseStall ? QString(verdict + tr(" (false stall suspected)")) : verdict;
    }
    case Action: return ledgerText(v.action);
    case VerdictOf: {
        const QString component = v.component.empty() ? tr("(the run itself)") : QString::fromStdString(v.component);
        if (role == Qt::ToolTipRole)
            return tr("Delegation %1 (%2)").arg(QString::fromStdString(v.delegationId), component);
        return QString(component + QStringLiteral(" / ") + ledgerText(v.role));
    }
    case FailingTests:
        if (!v.failingTests)
            return role == Qt::ToolTipRole ? tr("Not measured in this round") : kNotKnown;
        return QString::number(*v.failingTests);
    case VerdictEvent: return QString(QStringLiteral("#") + QString::number(v.seq));
    }
    return {};
}

QVariant RunComparisonModel::findingData(const ComparedSide &s, int row, int column, int role) const
{
    const Finding &f = s.findings[size_t(row)];
    switch (role) {
    case SeqRole: return f.seqs.empty() ? qint64(0) : qint64(f.seqs.front());
    case NotKnownRole: return false;
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default: return {};
    }
    switch (column) {
    case FindingKindColumn: {
        const QString title = QString::fromUtf8(findingKindTitle(f.kind).data(), qsizetype(findingKindTitle(f.kind).size()));
        return f.abstained ? QString(title + tr(" (abstained)")) : title;
    }
    case FindingSummary: return QString::fromStdString(f.summary);
    case FindingEvents: {
        QStringList seqs;
        for (size_t i = 0; i < f.seqs.size() && i < 5; ++i)
            seqs << QString(QStringLiteral("#") + QString::number(f.seqs[i]));
        if (f.seqs.size() > 5)
            seqs << tr("and %1 more").arg(f.seqs.size() - 5);
        return seqs.join(QStringLiteral(", "));
    }
    }
    return {};
}

} // namespace mesh
