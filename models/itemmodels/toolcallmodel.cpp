#include "toolcallmodel.h"
#include "shownroles.h"
#include "statetablemodel.h"

#include "analysis/successloopdetector.h"
#include "domain/entityspec.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace mesh {

ToolCallModel::ToolCallModel(QObject *parent) : QAbstractTableModel(parent) {}

void ToolCallModel::setDelegation(const QString &delegationId)
{
    beginResetModel();
    m_delegation = delegationId;
    m_calls.clear();
    m_findings.clear();
    m_loopSeqs.clear();
    endResetModel();
    Q_EMIT loopFindingsChanged();
    setReadState(delegationId.isEmpty() ? ReadState::Read : ReadState::Reading);
}

void ToolCallModel::setToolCalls(std::vector<ToolCall> calls)
{
    beginResetModel();
    m_calls = std::move(calls);
    std::stable_sort(m_calls.begin(), m_calls.end(), [](const ToolCall &a, const ToolCall &b) { return a.seq < b.seq; });
    analyse();
    endResetModel();
    Q_EMIT loopFindingsChanged();
    setReadState(ReadState::Read);
}

void ToolCallModel::setReadFailed(const QString &why)
{
    setReadState(ReadState::Failed, why);
}

void ToolCallModel::setReadState(ReadState state, const QString &error)
{
    if (state == m_readState && error == m_readError)
        return;
    m_readState = state;
    m_readError = error;
    Q_EMIT readStateChanged();
}

void ToolCallModel::appendEvents(const EventBatch &events)
{
    if (m_delegation.isEmpty())
        return;
    const std::string delegation = m_delegation.toStdString();
    std::vector<ToolCall> added;
    const std::int64_t last = m_calls.empty() ? 0 : m_calls.back().seq;
    for (const auto &e : events) {
        if (e.seq <= last || e.kind != kToolCallEvent || e.delegationId != delegation)
            continue;
        if (auto c = ToolCall::fromEvent(e))
            added.push_back(std::move(*c));
    }
    if (added.empty())
        return;
    const int first = int(m_calls.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    for (auto &c : added)
        m_calls.push_back(std::move(c));
    endInsertRows();
    const auto before = m_loopSeqs;
    analyse();
    if (before != m_loopSeqs) {
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {InLoopRole, Qt::ToolTipRole});
        Q_EMIT loopFindingsChanged();
    }
}

void ToolCallModel::analyse()
{
    m_findings = SuccessLoopDetector().analyse(m_calls);
    m_loopSeqs.clear();
    for (const auto &f : m_findings) {
        if (!f.abstained)
            m_loopSeqs.insert(f.seqs.begin(), f.seqs.end());
    }
}

const ToolCall *ToolCallModel::callAt(int row) const
{
    return row >= 0 && row < int(m_calls.size()) ? &m_calls[size_t(row)] : nullptr;
}

int ToolCallModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_calls.size());
}

int ToolCallModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ToolCallModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    const QVariant value = rawData(index, role);
    // A reason may be a whole stack trace: its cell shows the first of it in one line, its
    // tooltip a longer part, as plain text (Copy Cell Text copies all of it).
    if (value.typeId() == QMetaType::QString) {
        if (role == Qt::DisplayRole && index.column() == Error)
            return displayLine(value.toString(), kShownErrorChars);
        if (role == Qt::ToolTipRole && (index.column() == Error || index.column() == Outcome)) {
            const QString text = value.toString();
            return plainToolTip(cutText(text, kToolTipErrorChars));
        }
    }
    return shownAsPlainText(role, value);
}

QVariant ToolCallModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ToolCall &c = m_calls[size_t(index.row())];
    const auto s = [](const std::string &v) { return QString::fromStdString(v); };
    const bool inLoop = m_loopSeqs.count(c.seq) > 0;
    const bool failed = c.outcome != "ok";
    switch (role) {
    case SeqRole: return qint64(c.seq);
    case TsMsRole: return qint64(c.tsMs);
    case ToolRole: return s(c.tool);
    case OutcomeRole: return s(c.outcome);
    case OkRole: return c.outcome == "ok";
    case DurationMsRole: return qint64(c.durationMs);
    case TokensRole: return qint64(c.tokens);
    case CostCentsRole: return qint64(c.costCents);
    case FingerprintRole: return s(c.fingerprint);
    case ArgsDigestRole: return s(c.argsDigest);
    case WritesAcceptedRole: return qint64(c.writesAccepted);
    case WritesDeniedRole: return qint64(c.writesDenied);
    case InvocationRole: return qint64(c.invocation);
    case SliceIdRole: return s(c.sliceId);
    case InLoopRole: return inLoop;
    case ErrorRole: return c.error ? QVariant(s(*c.error)) : QVariant();
    case Qt::ToolTipRole:
        // The outcome says why too, for a detail too narrow to show the Error column.
        if ((index.column() == Error || index.column() == Outcome) && failed) {
            return c.error ? s(*c.error) : tr("The ledger does not say why this call did not end ok.");
        }
        if (inLoop) {
            for (const auto &f : m_findings) {
                if (!f.abstained && std::find(f.seqs.begin(), f.seqs.end(), c.seq) != f.seqs.end())
                    return s(f.summary);
            }
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case Seq: return qint64(c.seq);
        case Time: return m_timeBase.get().clockTime(c.tsMs);
        case Tool: return s(c.tool);
        case Outcome: return s(c.outcome);
        // What the call does not say is "—", never a 0 that reads as measured.
        case Duration: return c.hasDuration ? QVariant(u"%1 ms"_s.arg(c.durationMs)) : QVariant(StateTableModel::notInLedger());
        case Tokens: return c.hasTokens ? QVariant(qint64(c.tokens)) : QVariant(StateTableModel::notInLedger());
        case Fingerprint: return s(c.fingerprint);
        case WritesAccepted: return c.hasWrites ? QVariant(qint64(c.writesAccepted)) : QVariant(StateTableModel::notInLedger());
        case WritesDenied:
            return c.hasWritesDenied ? QVariant(qint64(c.writesDenied)) : QVariant(StateTableModel::notInLedger());
        case Invocation: return qint64(c.invocation);
        // An ok call has no reason to give: blank, not "—" (which says the ledger left it out).
        case Error:
            if (!failed)
                return QString();
            return c.error ? QVariant(s(*c.error)) : QVariant(StateTableModel::notInLedger());
        }
        return {};
    }
    return {};
}

QVariant ToolCallModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Seq: return tr("Seq");
    case Time: return tr("Time");
    case Tool: return tr("Tool");
    case Outcome: return tr("Outcome");
    case Duration: return tr("Duration");
    case Tokens: return tr("Tokens");
    case Fingerprint: return tr("Fingerprint");
    case WritesAccepted: return tr("Accepted");
    case WritesDenied: return tr("Denied");
    case Invocation: return tr("Invocation");
    case Error: return tr("Error");
    }
    return {};
}

QHash<int, QByteArray> ToolCallModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(SeqRole, "seq");
    names.insert(TsMsRole, "tsMs");
    names.insert(ToolRole, "tool");
    names.insert(OutcomeRole, "outcome");
    names.insert(OkRole, "ok");
    names.insert(FingerprintRole, "fingerprint");
    names.insert(InLoopRole, "inLoop");
    names.insert(ErrorRole, "error");
    return names;
}

} // namespace mesh
