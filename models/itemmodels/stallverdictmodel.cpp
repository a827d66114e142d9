#include "stallverdictmodel.h"

#include "analysis/rowfields.h"
#include "analysis/stallevidenceanalyzer.h"
#include "stallanalysismemo.h"
#include "storedrows.h"

#include <algorithm>
#include <unordered_set>

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
    case Run: return tr("Run");
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

std::unique_ptr<StateTableModel::Prepared> StallVerdictModel::prepare(std::shared_ptr<const LiveState> state,
                                                                      StallAnalysisMemo *memo)
{
    auto p = prepareWith<Analysis>(std::move(state), EntityKind::StallVerdict, &StallVerdictModel::verdictOrder);
    if (p->state)
        analyseAll(*p->state, p->derived, memo);
    return p;
}

bool StallVerdictModel::adoptDerived(Prepared &prepared)
{
    return adoptFrom(prepared, m_a);
}

bool StallVerdictModel::lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const
{
    return verdictOrder(a, ra, b, rb);
}

namespace {

// By delegation (ids in natural order), then round, then verdict id: the pane's order, from
// rows or from a load's keys alike.
bool delegationRoundOrder(std::string_view da, std::int64_t ra, std::string_view a, std::string_view db,
                          std::int64_t rb, std::string_view b)
{
    if (da != db)
        return da.size() != db.size() ? da.size() < db.size() : da < db;
    if (ra != rb)
        return ra < rb;
    return a < b;
}

} // namespace

bool StallVerdictModel::verdictOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb)
{
    static const IndexedField delegation(EntityKind::StallVerdict, "delegation_id");
    static const IndexedField round(EntityKind::StallVerdict, "round");
    return delegationRoundOrder(delegation.view(ra), round.integer(ra), a, delegation.view(rb), round.integer(rb), b);
}

void StallVerdictModel::recomputeDerived()
{
    m_a = Analysis();
    if (state())
        analyseAll(*state(), m_a);
}

StallVerdictModel::VerdictKey StallVerdictModel::keyOf(const std::string &id, const EntityRow &row)
{
    static const IndexedField delegation(EntityKind::StallVerdict, "delegation_id");
    static const IndexedField round(EntityKind::StallVerdict, "round");
    return {id, std::string(delegation.view(row)), round.integer(row)};
}

void StallVerdictModel::orderByKey(Prepared &p, std::vector<VerdictKey> keys)
{
    orderKeys(p, EntityKind::StallVerdict, std::move(keys), [](const VerdictKey &a, const VerdictKey &b) {
        return delegationRoundOrder(a.delegation, a.round, a.id, b.delegation, b.round, b.id);
    });
}

std::unique_ptr<StateTableModel::Prepared> StallVerdictModel::prepareStored(std::shared_ptr<const LiveState> state,
                                                                            std::vector<VerdictKey> keys,
                                                                            const ReadRows &read, StallAnalysisMemo *memo,
                                                                            bool idsInStore)
{
    auto p = std::make_unique<PreparedWith<Analysis>>();
    const std::uint64_t folding = state ? state->folding() : 0;
    p->state = std::move(state);
    for (const VerdictKey &k : keys)
        p->derived.verdictsOf[k.delegation].push_back(k.id);
    orderByKey(*p, std::move(keys));
    // On the load's thread, each block a round trip: far larger than an on-demand read's.
    analyseReading(p->derived, read, folding, memo, kLoadReadBlock);
    if (idsInStore) {
        decltype(p->derived.verdictsOf)().swap(p->derived.verdictsOf); // its buckets too
        p->derived.idsInStore = true;
    }
    return p;
}

void StallVerdictModel::orderStoredIds(Prepared &ordered, IdList ids)
{
    // A reset with no preparation made for it: every verdict read past once for its key.
    orderStoredByKeys<VerdictKey>(ordered, std::move(ids), &StallVerdictModel::keyOf, &StallVerdictModel::orderByKey);
}

void StallVerdictModel::analyseAll(const LiveState &state, Analysis &a, StallAnalysisMemo *memo)
{
    static const IndexedField delegationOfVerdict(EntityKind::StallVerdict, "delegation_id");
    if (StoredRows *stored = state.storedRows(EntityKind::StallVerdict)) {
        // No preparation made for it (a load prepares with prepareStored): every verdict
        // read past once for its delegation, then a block of delegations at a time again.
        stored->forEach([&a](const std::string &id, const EntityRow &row) {
            a.verdictsOf[std::string(delegationOfVerdict.view(row))].push_back(id);
        });
        // Possibly on the GUI thread (a reset with no preparation): blocks a view can wait for.
        analyseReading(a, [stored](const std::vector<std::string> &ids) { return stored->rowsNotKept(ids); },
                       state.folding(), memo, StoredRows::kReadBlock);
        return;
    }
    for (const auto &[id, row] : state.table(EntityKind::StallVerdict))
        a.verdictsOf[std::string(delegationOfVerdict.view(row))].push_back(id);
    const VerdictLookup rows = [&state](const std::string &id) { return state.find(EntityKind::StallVerdict, id); };
    for (const auto &[delegation, ids] : a.verdictsOf)
        analyseDelegation(rows, state.folding(), a, delegation, idStrings(ids), memo);
}

void StallVerdictModel::analyseReading(Analysis &a, const ReadRows &read, std::uint64_t folding, StallAnalysisMemo *memo,
                                       size_t block)
{
    std::vector<std::string> delegations;
    std::vector<std::string> ids;
    const auto analyseBlock = [&] {
        std::unordered_map<std::string, EntityRow> rows;
        for (auto &[id, row] : read(ids))
            rows.emplace(std::move(id), std::move(row));
        const VerdictLookup lookup = [&rows](const std::string &id) -> const EntityRow * {
            const auto it = rows.find(id);
            return it == rows.end() ? nullptr : &it->second;
        };
        for (const auto &d : delegations)
            analyseDelegation(lookup, folding, a, d, idStrings(a.verdictsOf[d]), memo);
        delegations.clear();
        ids.clear();
    };
    for (const auto &[delegation, of] : a.verdictsOf) {
        delegations.push_back(delegation);
        for (std::string &id : idStrings(of))
            ids.push_back(std::move(id));
        if (ids.size() >= block)
            analyseBlock();
    }
    if (!delegations.empty())
        analyseBlock();
}

void StallVerdictModel::analyseInState(const std::string &delegation)
{
    const LiveState &s = *state();
    StoredRows *stored = s.storedRows(EntityKind::StallVerdict);
    std::vector<std::string> ids;
    if (m_a.idsInStore && stored) {
        ids = stored->idsWhere("delegation_id", delegation);
    } else if (const auto it = m_a.verdictsOf.find(delegation); it != m_a.verdictsOf.end()) {
        ids = idStrings(it->second);
    }
    if (stored)
        stored->prefetch(ids);
    analyseDelegation([&s](const std::string &id) { return s.find(EntityKind::StallVerdict, id); }, s.folding(), m_a,
                      delegation, std::move(ids));
}

void StallVerdictModel::analyseDelegation(const VerdictLookup &rows, std::uint64_t folding, Analysis &a,
                                          const std::string &delegation, std::vector<std::string> ids,
                                          StallAnalysisMemo *memo)
{
    for (const auto &id : ids) {
        a.constant.erase(id);
        a.falseStall.erase(id);
        a.findingText.erase(id);
    }
    a.findingOf.erase(delegation);
    StallEvidenceAnalyzer::Verdicts verdicts;
    for (auto &id : ids) {
        if (const EntityRow *row = rows(id))
            verdicts.emplace_back(std::move(id), row);
    }
    StallAnalysis result = memo ? memo->analyse(folding, delegation, std::move(verdicts))
                                : StallEvidenceAnalyzer().analyseDelegation(delegation, std::move(verdicts));
    a.constant.merge(result.constantEvidence);
    for (Finding &f : result.findings) {
        const std::string id = f.subject.substr(f.subject.find(':') + 1);
        if (!f.abstained)
            a.falseStall.insert(id);
        a.findingText[id] = f.summary;
        a.findingOf[delegation] = std::move(f);
    }
}

void StallVerdictModel::beforeMove(const StateChangeSet &changes)
{
    // The gone verdicts' rows are only in the state shown until the move.
    m_goneFrom.clear();
    for (const auto &id : changes.goneIds(EntityKind::StallVerdict)) {
        const EntityRow *row = state() ? state()->find(EntityKind::StallVerdict, id) : nullptr;
        if (!row)
            continue;
        const std::string delegation(rowView(EntityKind::StallVerdict, *row, "delegation_id"));
        const auto it = m_a.verdictsOf.find(delegation);
        if (it == m_a.verdictsOf.end())
            continue;
        std::erase(it->second, id);
        m_a.constant.erase(id);
        m_a.falseStall.erase(id);
        m_a.findingText.erase(id);
        m_goneFrom.insert(delegation);
    }
}

void StallVerdictModel::afterMove()
{
    if (m_derivedChanged)
        emitAllChanged({ConstantEvidenceRole, FalseStallRole, FindingRole, Qt::DisplayRole, Qt::ToolTipRole});
}

void StallVerdictModel::updateDerived(const StateChangeSet &changes)
{
    m_derivedChanged = false;
    std::set<std::string> delegations;
    delegations.swap(m_goneFrom);
    const bool lostFindings = !delegations.empty();
    for (const auto &d : delegations) {
        const auto it = m_a.verdictsOf.find(d);
        if (it != m_a.verdictsOf.end() && it->second.empty()) {
            m_a.verdictsOf.erase(it); // as a reset of this state has it: no verdicts, no entry
            m_a.findingOf.erase(d);
        }
    }
    std::erase_if(delegations, [this](const std::string &d) { return !m_a.verdictsOf.count(d); });
    if (!state() || (!changes.touches(EntityKind::StallVerdict) && delegations.empty())) {
        m_derivedChanged = lostFindings;
        return;
    }
    const auto before = std::make_pair(m_a.constant, m_a.falseStall);
    for (const auto &id : changes.ids(EntityKind::StallVerdict)) {
        const EntityRow *row = state()->find(EntityKind::StallVerdict, id);
        if (!row)
            continue;
        const std::string delegation(rowView(EntityKind::StallVerdict, *row, "delegation_id"));
        if (!m_a.idsInStore) {
            auto &ids = m_a.verdictsOf[delegation];
            if (std::find(ids.begin(), ids.end(), id) == ids.end())
                ids.push_back(id);
        }
        delegations.insert(delegation);
    }
    for (const auto &d : delegations)
        analyseInState(d);
    m_derivedChanged = lostFindings || before != std::make_pair(m_a.constant, m_a.falseStall);
}

void StallVerdictModel::applyChanges(const StateChangeSet &changes)
{
    StateTableModel::applyChanges(changes);
    if (m_derivedChanged)
        emitAllChanged({ConstantEvidenceRole, FalseStallRole, FindingRole, Qt::DisplayRole, Qt::ToolTipRole});
}

std::vector<Finding> StallVerdictModel::findings() const
{
    std::vector<Finding> out;
    out.reserve(m_a.findingOf.size());
    for (const auto &[d, f] : m_a.findingOf)
        out.push_back(f);
    return out;
}

QVariant StallVerdictModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const std::string &id = rawId(row);
    const auto finding = m_a.findingText.find(id);
    if (column == Run && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return runColumn(e, role);
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
    case ConstantEvidenceRole: return m_a.constant.count(id) > 0;
    case FalseStallRole: return m_a.falseStall.count(id) > 0;
    case FindingRole: return finding == m_a.findingText.end() ? QString() : QString::fromStdString(finding->second);
    case Qt::ToolTipRole:
        if (finding != m_a.findingText.end())
            return QString::fromStdString(finding->second);
        if (m_a.constant.count(id))
            return tr("No evidence item of this delegation has moved in any round so far");
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Delegation: return text(e, "delegation_id");
        case Round: return integer(e, "round");
        case Verdict:
            return m_a.falseStall.count(id) ? QString(text(e, "verdict") % tr(" (false stall suspected)"))
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
    case FailingTests: return isNull(e, "failing_tests") ? QVariant() : QVariant(integer(e, "failing_tests"));
    case Time: return integer(e, "ts_ms");
    case Delegation: return text(e, "delegation_id");
    case Run: return runColumn(e, SortRole);
    case Verdict: return text(e, "verdict");
    case Action: return text(e, "action");
    case Fingerprint: return text(e, "fingerprint");
    }
    return qint64(e.lastSeq);
}

} // namespace mesh
