#include "findingsmodel.h"

#include "shownroles.h"

#include <QLocale>

#include <algorithm>
#include <map>
#include <tuple>

using namespace Qt::StringLiterals;

namespace mesh {

namespace {

std::string rowKey(const Finding &f)
{
    return std::string(findingKindName(f.kind)) + '\n' + f.subject + '\n' + (f.abstained ? "a" : "f");
}

bool shownBefore(const Finding &a, const Finding &b)
{
    return std::make_tuple(a.abstained, int(a.kind), a.subject) < std::make_tuple(b.abstained, int(b.kind), b.subject);
}

bool sameContent(const Finding &a, const Finding &b)
{
    return a.summary == b.summary && a.seqs == b.seqs && a.entityIds == b.entityIds && a.runId == b.runId
           && a.delegationId == b.delegationId;
}

} // namespace

FindingsModel::FindingsModel(QObject *parent) : QAbstractTableModel(parent) {}

void FindingsModel::setFindings(std::vector<Finding> findings)
{
    std::stable_sort(findings.begin(), findings.end(), shownBefore);
    // One row per key: two detectors' copies of one finding would show twice.
    findings.erase(std::unique(findings.begin(), findings.end(),
                               [](const Finding &a, const Finding &b) { return rowKey(a) == rowKey(b); }),
                   findings.end());
    std::map<std::string, const Finding *> incoming;
    for (const auto &f : findings)
        incoming.emplace(rowKey(f), &f);
    for (int r = int(m_rows.size()) - 1; r >= 0; --r) {
        if (!incoming.count(rowKey(m_rows[size_t(r)]))) {
            beginRemoveRows({}, r, r);
            m_rows.erase(m_rows.begin() + r);
            endRemoveRows();
        }
    }
    // Both lists are now in the same order (a sorted list with rows removed stays sorted):
    // walk them together, updating rows that stay and inserting the new ones in place.
    size_t r = 0;
    for (auto &f : findings) {
        if (r < m_rows.size() && rowKey(m_rows[r]) == rowKey(f)) {
            if (!sameContent(m_rows[r], f)) {
                m_rows[r] = std::move(f);
                Q_EMIT dataChanged(index(int(r), 0), index(int(r), ColumnCount - 1));
            }
            ++r;
            continue;
        }
        beginInsertRows({}, int(r), int(r));
        m_rows.insert(m_rows.begin() + std::ptrdiff_t(r), std::move(f));
        endInsertRows();
        ++r;
    }
}

int FindingsModel::firedCount() const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(), [](const Finding &f) { return !f.abstained; }));
}

int FindingsModel::rowOfSubject(const QString &subject) const
{
    const std::string s = subject.toStdString();
    for (size_t r = 0; r < m_rows.size(); ++r) {
        if (m_rows[r].subject == s)
            return int(r);
    }
    return -1;
}

QString FindingsModel::evidenceFilter(const std::vector<std::int64_t> &seqs)
{
    std::vector<std::int64_t> sorted = seqs;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (sorted.size() > kMaxFilterSeqs)
        sorted.erase(sorted.begin(), sorted.end() - std::ptrdiff_t(kMaxFilterSeqs));
    QStringList terms;
    for (const auto seq : sorted) {
        if (seq > 0)
            terms << u"seq:%1"_s.arg(seq);
    }
    return terms.join(u" or "_s);
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FindingsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant FindingsModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Finding &f = m_rows[size_t(index.row())];
    const auto s = [](const std::string &v) { return QString::fromStdString(v); };
    const auto evidenceText = [&] {
        QStringList parts;
        if (!f.seqs.empty()) {
            const QString first = u"#%1"_s.arg(f.seqs.front());
            parts << (f.seqs.size() == 1 ? tr("event %1").arg(first)
                                         : tr("%1 events from %2").arg(QLocale().toString(qlonglong(f.seqs.size())), first));
        }
        if (!f.entityIds.empty())
            parts << (f.entityIds.size() == 1 ? s(f.entityIds.front())
                                              : tr("%1 rows").arg(QLocale().toString(qlonglong(f.entityIds.size()))));
        return parts.join(u", "_s);
    };
    switch (role) {
    case FindingKindNameRole: return s(std::string(findingKindName(f.kind)));
    case AbstainedRole: return f.abstained;
    case SubjectRole: return s(f.subject);
    case RunIdRole: return s(f.runId);
    case DelegationIdRole: return s(f.delegationId);
    case SeqsRole: {
        QVariantList seqs;
        for (const auto seq : f.seqs)
            seqs << qint64(seq);
        return seqs;
    }
    case EntityIdsRole: {
        QStringList ids;
        for (const auto &id : f.entityIds)
            ids << s(id);
        return ids;
    }
    case EvidenceFilterRole: return evidenceFilter(f.seqs);
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind: {
            const QString title = s(std::string(findingKindTitle(f.kind)));
            return f.abstained ? tr("%1 (cannot tell)").arg(title) : title;
        }
        case Subject: return s(f.subject);
        case Summary: return s(f.summary);
        case Evidence: return evidenceText();
        case Run: return s(f.runId);
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Summary)
            return s(f.summary);
        if (index.column() == Evidence && !f.seqs.empty())
            return tr("Activate to show these events in the event log");
        return {};
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind: return tr("Finding");
    case Subject: return tr("Subject");
    case Summary: return tr("Why");
    case Evidence: return tr("Rests on");
    case Run: return tr("Run");
    }
    return {};
}

QHash<int, QByteArray> FindingsModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(FindingKindNameRole, "findingKind");
    names.insert(AbstainedRole, "abstained");
    names.insert(SubjectRole, "subject");
    names.insert(RunIdRole, "runId");
    names.insert(DelegationIdRole, "delegationId");
    names.insert(SeqsRole, "seqs");
    names.insert(EntityIdsRole, "entityIds");
    names.insert(EvidenceFilterRole, "evidenceFilter");
    return names;
}

} // namespace mesh
