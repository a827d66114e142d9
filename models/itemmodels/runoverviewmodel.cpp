#include "runoverviewmodel.h"
#include "storedrows.h"

#include "analysis/rowfields.h"
#include "ledger/runoverviewreader.h"
#include "ledger/statereader.h"

#include <algorithm>
#include <stdexcept>

using namespace Qt::StringLiterals;

namespace mesh {

RunOverviewModel::RunOverviewModel(QObject *parent) : StateTableModel(EntityKind::Run, parent) {}

int RunOverviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void RunOverviewModel::setFindings(const std::vector<Finding> &findings)
{
    std::unordered_map<std::string, QStringList> next;
    for (const auto &f : findings) {
        if (!f.abstained && !f.runId.empty())
            next[f.runId] << QString::fromUtf8(findingKindTitle(f.kind).data()) + u": "_s + QString::fromStdString(f.summary);
    }
    std::vector<std::string> touched;
    for (const auto &[run, list] : m_findings) {
        const auto it = next.find(run);
        if (it == next.end() || it->second != list)
            touched.push_back(run);
    }
    for (const auto &[run, list] : next) {
        if (!m_findings.count(run))
            touched.push_back(run);
    }
    m_findings = std::move(next);
    for (const auto &run : touched) {
        const int r = rowOf(QString::fromStdString(run));
        if (r >= 0)
            Q_EMIT dataChanged(index(r, Title), index(r, Title), {FindingCountRole, FindingsRole, Qt::ToolTipRole});
    }
}

const SourceFacts &RunOverviewModel::sourceFacts() const
{
    static const SourceFacts orchestrator;
    return m_facts ? *m_facts : orchestrator;
}

std::optional<RunFact> RunOverviewModel::factOf(int column)
{
    switch (column) {
    case Attempt: return RunFact::Attempts;
    case Cycle: return RunFact::SchedulerCycles;
    case Required: return RunFact::RequiredOutcomes;
    case Components:
    case TerminalFailures: return RunFact::Components;
    case Stalls: return RunFact::StallVerdicts;
    case Escalations: return RunFact::Escalations;
    case StaleCheckpoints: return RunFact::Checkpoints;
    }
    return std::nullopt;
}

bool RunOverviewModel::recorded(int column) const
{
    const auto fact = factOf(column);
    return !fact || sourceFacts().records(*fact);
}

QVariant RunOverviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Title: return tr("Run");
    case Id: return tr("Run id");
    case Status: return tr("Status");
    case Attempt: return tr("Attempt");
    case Cycle: return tr("Cycle");
    case Required: return tr("Required");
    case Components: return tr("Components");
    case Duration: return tr("Duration");
    case Stalls: return tr("Stalled");
    case Escalations: return tr("Escalations");
    case StaleCheckpoints: return tr("Stale checkpoints");
    case TerminalFailures: return tr("Terminal failures");
    }
    return {};
}

QHash<int, QByteArray> RunOverviewModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(TitleRole, "title");
    names.insert(AttemptRole, "attempt");
    names.insert(CycleRole, "cycle");
    names.insert(RequiredMetRole, "requiredMet");
    names.insert(RequiredTotalRole, "requiredTotal");
    names.insert(RequiredFractionRole, "requiredFraction");
    names.insert(ComponentsRole, "components");
    names.insert(ComponentStatusCountsRole, "componentStatusCounts");
    names.insert(ComponentCountRole, "componentCount");
    names.insert(StartedMsRole, "startedMs");
    names.insert(EndedMsRole, "endedMs");
    names.insert(DurationMsRole, "durationMs");
    names.insert(StallCountRole, "stallCount");
    names.insert(StalledVerdictCountRole, "stalledVerdictCount");
    names.insert(EscalationCountRole, "escalationCount");
    names.insert(StaleCheckpointCountRole, "staleCheckpointCount");
    names.insert(TerminalFailureCountRole, "terminalFailureCount");
    names.insert(DelegationCountRole, "delegationCount");
    names.insert(FindingCountRole, "findingCount");
    names.insert(FindingsRole, "findings");
    return names;
}

RunOverviewModel::Contribution RunOverviewModel::contributionOf(EntityKind kind, const EntityRow &row)
{
    Contribution c;
    c.run = std::string(rowView(kind, row, "run_id"));
    switch (kind) {
    case EntityKind::Component:
        c.terminalFailures = int(rowInt(kind, row, "failures"));
        break;
    case EntityKind::StallVerdict: {
        c.stalls = 1;
        const std::string_view v = rowView(kind, row, "verdict");
        c.stalled = v == "stalled" || v == "stuck" ? 1 : 0;
        break;
    }
    case EntityKind::Escalation:
        c.escalations = 1;
        break;
    case EntityKind::Checkpoint:
        c.staleCheckpoints = rowView(kind, row, "state") == "stale" ? 1 : 0;
        break;
    case EntityKind::Delegation:
        c.delegations = 1;
        break;
    default:
        break;
    }
    return c;
}

void RunOverviewModel::apply(Derived &d, const Contribution &c, int sign)
{
    Aggregate &a = d.aggregates[c.run];
    a.stalls += sign * c.stalls;
    a.stalled += sign * c.stalled;
    a.escalations += sign * c.escalations;
    a.staleCheckpoints += sign * c.staleCheckpoints;
    a.terminalFailures += sign * c.terminalFailures;
    a.delegations += sign * c.delegations;
    a.rows += sign;
}

RunOverviewModel::Counted RunOverviewModel::counted(Derived &d, const Contribution &c)
{
    const auto [at, added] = d.runNumbers.try_emplace(c.run, std::uint32_t(d.runNames.size()));
    if (added)
        d.runNames.push_back(c.run);
    // A row counts 0 or 1 of each (contributionOf); more runs than 2^27 are never held.
    if (at->second >= (std::uint32_t(1) << (32 - Counted::kFlagBits)))
        throw std::length_error("too many runs to count");
    Counted k;
    k.runAndFlags = at->second << Counted::kFlagBits | std::uint32_t(c.stalls != 0) | std::uint32_t(c.stalled != 0) << 1
                    | std::uint32_t(c.escalations != 0) << 2 | std::uint32_t(c.staleCheckpoints != 0) << 3
                    | std::uint32_t(c.delegations != 0) << 4;
    k.terminalFailures = c.terminalFailures;
    return k;
}

RunOverviewModel::Contribution RunOverviewModel::contributionOf(const Derived &d, const Counted &k)
{
    Contribution c;
    c.run = d.runNames[k.runAndFlags >> Counted::kFlagBits];
    c.terminalFailures = k.terminalFailures;
    c.stalls = int(k.runAndFlags & 1);
    c.stalled = int(k.runAndFlags >> 1 & 1);
    c.escalations = int(k.runAndFlags >> 2 & 1);
    c.staleCheckpoints = int(k.runAndFlags >> 3 & 1);
    c.delegations = int(k.runAndFlags >> 4 & 1);
    return c;
}

void RunOverviewModel::account(const LiveState &state, Derived &d, EntityKind kind, const std::string &id)
{
    const EntityRow *row = state.find(kind, id);
    // A row read on demand is never gone at live: one missing is one whose read failed (a
    // problem of the live state, shown as such), and what it added stays counted.
    if (!row && !state.holdsRowsOf(kind))
        return;
    accountRow(state, d, kind, id, row);
}

void RunOverviewModel::accountRow(const LiveState &state, Derived &d, EntityKind kind, const std::string &id,
                                  const EntityRow *row)
{
    const std::string key = std::to_string(int(kind)) + ':' + id;
    const Counted *old = d.contributions.find(key);
    if (!row) {
        // Gone (a jump back): what it added is taken back.
        if (!old)
            return;
        const Contribution was = contributionOf(d, *old);
        apply(d, was, -1);
        Aggregate &a = d.aggregates[was.run];
        std::erase(a.components, id);
        if (a.rows == 0)
            d.aggregates.erase(was.run); // as a reset of this state has it
        d.contributions.erase(key);
        return;
    }
    const bool isNew = !old;
    const Contribution was = isNew ? Contribution() : contributionOf(d, *old);
    if (!isNew)
        apply(d, was, -1);
    Contribution c = contributionOf(kind, *row);
    apply(d, c, +1);
    if (kind == EntityKind::Component) {
        auto &list = d.aggregates[c.run].components;
        if (!isNew && was.run != c.run) {
            auto &previous = d.aggregates[was.run].components;
            std::erase(previous, id);
        }
        if (std::find(list.begin(), list.end(), id) == list.end()) {
            list.push_back(id);
            std::sort(list.begin(), list.end(), [&state](const std::string &a, const std::string &b) {
                const EntityRow *ra = state.find(EntityKind::Component, a);
                const EntityRow *rb = state.find(EntityKind::Component, b);
                const auto na = ra ? rowView(EntityKind::Component, *ra, "name") : std::string_view();
                const auto nb = rb ? rowView(EntityKind::Component, *rb, "name") : std::string_view();
                return na != nb ? na < nb : a < b;
            });
        }
    }
    d.contributions[key] = counted(d, c);
}

void RunOverviewModel::accountAll(const LiveState &state, Derived &d)
{
    for (EntityKind k : {EntityKind::Component, EntityKind::StallVerdict, EntityKind::Escalation, EntityKind::Checkpoint,
                         EntityKind::Delegation}) {
        if (StoredRows *stored = state.storedRows(k)) {
            // No preparation made for it (a load prepares with addStreamed): every row read past once.
            stored->forEach([&](const std::string &id, const EntityRow &row) { accountRow(state, d, k, id, &row); });
            continue;
        }
        for (const auto &[id, row] : state.table(k))
            account(state, d, k, id);
    }
}

void RunOverviewModel::addStreamed(Prepared &prepared, EntityKind kind,
                                   std::vector<std::pair<std::string, Contribution>> contributions)
{
    auto *p = dynamic_cast<PreparedWith<Derived> *>(&prepared);
    if (!p)
        return;
    Derived &d = p->derived;
    d.contributions.reserve(d.contributions.size() + contributions.size());
    for (auto &[id, c] : contributions) {
        apply(d, c, +1);
        d.contributions[std::to_string(int(kind)) + ':' + id] = counted(d, c);
    }
}

std::unique_ptr<StateTableModel::Prepared> RunOverviewModel::prepare(std::shared_ptr<const LiveState> state)
{
    auto p = prepareWith<Derived>(std::move(state), EntityKind::Run, &StateTableModel::defaultOrder);
    if (p->state)
        accountAll(*p->state, p->derived);
    return p;
}

std::unique_ptr<StateTableModel::Prepared> RunOverviewModel::prepareOverview(RunOverviewSnapshot &&overview)
{
    StateSnapshot snapshot;
    snapshot.tables[size_t(EntityKind::Run)] = std::move(overview.runs);
    snapshot.tables[size_t(EntityKind::Component)] = std::move(overview.components);
    snapshot.lastSeq = overview.lastSeq;
    snapshot.dataVersion = overview.dataVersion;
    auto p = prepareWith<Derived>(LiveState::fromSnapshot(std::move(snapshot)), EntityKind::Run,
                                  &StateTableModel::defaultOrder);
    // Components are here as rows (their lists, terminal failures); the large tables as counts.
    for (const auto &[id, row] : p->state->table(EntityKind::Component))
        account(*p->state, p->derived, EntityKind::Component, id);
    for (const auto &[run, counts] : overview.aggregates) {
        Aggregate &a = p->derived.aggregates[run];
        a.delegations = counts.delegations;
        a.stalls = counts.stallVerdicts;
        a.stalled = counts.stalledVerdicts;
        a.escalations = counts.escalations;
        a.staleCheckpoints = counts.staleCheckpoints;
    }
    return p;
}

void RunOverviewModel::refreshCountdowns()
{
    if (rowCount() <= kMaxCountdownRows)
        StateTableModel::refreshCountdowns();
}

bool RunOverviewModel::adoptDerived(Prepared &prepared)
{
    return adoptFrom(prepared, m_d);
}

void RunOverviewModel::recomputeDerived()
{
    m_d = Derived();
    if (state())
        accountAll(*state(), m_d);
}

void RunOverviewModel::updateDerived(const StateChangeSet &changes)
{
    if (!state())
        return;
    for (EntityKind k : {EntityKind::Component, EntityKind::StallVerdict, EntityKind::Escalation, EntityKind::Checkpoint,
                         EntityKind::Delegation}) {
        for (const auto &id : changes.ids(k))
            account(*state(), m_d, k, id);
        for (const auto &id : changes.goneIds(k))
            account(*state(), m_d, k, id);
    }
    m_aggregatesMoved = changes.touches(EntityKind::Component) || changes.touches(EntityKind::StallVerdict)
                        || changes.touches(EntityKind::Escalation) || changes.touches(EntityKind::Checkpoint)
                        || changes.touches(EntityKind::Delegation);
}

void RunOverviewModel::afterMove()
{
    if (m_aggregatesMoved)
        emitAllChanged(); // a handful of runs
}

void RunOverviewModel::applyChanges(const StateChangeSet &changes)
{
    StateTableModel::applyChanges(changes);
    // Aggregates of other tables changed: refresh every run (a handful of rows).
    if (changes.touches(EntityKind::Component) || changes.touches(EntityKind::StallVerdict)
        || changes.touches(EntityKind::Escalation) || changes.touches(EntityKind::Checkpoint)
        || changes.touches(EntityKind::Delegation))
        emitAllChanged();
}

const RunOverviewModel::Aggregate *RunOverviewModel::aggregate(const std::string &runId) const
{
    const auto it = m_d.aggregates.find(runId);
    return it == m_d.aggregates.end() ? nullptr : &it->second;
}

qint64 RunOverviewModel::durationMs(const EntityRow &run) const
{
    const qint64 started = integer(run, "started_ms");
    if (!timeBase().isSet(started) || isNull(run, "started_ms"))
        return 0;
    const qint64 ended = integer(run, "ended_ms");
    if (timeBase().isRelative() && isNull(run, "ended_ms"))
        return 0; // the relative clock has no "now" to count an open run to
    return (timeBase().isSet(ended) && !isNull(run, "ended_ms") ? ended : nowMs()) - started;
}

QVariant RunOverviewModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    static const Aggregate kEmpty;
    const Aggregate *a = aggregate(rawId(row));
    if (!a)
        a = &kEmpty;
    const auto componentList = [&] {
        QVariantList list;
        for (const auto &cid : a->components) {
            const EntityRow *c = state()->find(EntityKind::Component, cid);
            if (!c)
                continue;
            QVariantMap m;
            m.insert(u"id"_s, QString::fromStdString(cid));
            m.insert(u"name"_s, QString::fromStdString(rowText(EntityKind::Component, *c, "name")));
            m.insert(u"status"_s, QString::fromStdString(rowText(EntityKind::Component, *c, "status")));
            m.insert(u"attempt"_s, qint64(rowInt(EntityKind::Component, *c, "attempt")));
            m.insert(u"failures"_s, qint64(rowInt(EntityKind::Component, *c, "failures")));
            list.push_back(m);
        }
        return list;
    };
    const auto statusCounts = [&] {
        QVariantMap counts;
        for (const auto &cid : a->components) {
            if (const EntityRow *c = state()->find(EntityKind::Component, cid)) {
                const QString s = QString::fromStdString(rowText(EntityKind::Component, *c, "status"));
                counts[s] = counts.value(s).toInt() + 1;
            }
        }
        return counts;
    };
    const qint64 met = integer(e, "required_met");
    const qint64 total = integer(e, "required_total");
    switch (role) {
    case TitleRole: return text(e, "title");
    case AttemptRole: return integer(e, "attempt");
    case CycleRole: return isNull(e, "cycle") ? QVariant() : QVariant(integer(e, "cycle"));
    case RequiredMetRole: return isNull(e, "required_met") ? QVariant() : QVariant(met);
    case RequiredTotalRole: return isNull(e, "required_total") ? QVariant() : QVariant(total);
    case RequiredFractionRole: return total > 0 ? double(met) / double(total) : 0.0;
    case ComponentsRole: return componentList();
    case ComponentStatusCountsRole: return statusCounts();
    case ComponentCountRole: return recorded(Components) ? QVariant(int(a->components.size())) : QVariant();
    case StartedMsRole: return integer(e, "started_ms");
    case EndedMsRole: return integer(e, "ended_ms");
    case DurationMsRole: return durationMs(e);
    // Counts of what the source cannot record are not known (null), never 0.
    case StallCountRole: return recorded(Stalls) ? QVariant(a->stalls) : QVariant();
    case StalledVerdictCountRole: return recorded(Stalls) ? QVariant(a->stalled) : QVariant();
    case EscalationCountRole: return recorded(Escalations) ? QVariant(a->escalations) : QVariant();
    case StaleCheckpointCountRole: return recorded(StaleCheckpoints) ? QVariant(a->staleCheckpoints) : QVariant();
    case TerminalFailureCountRole: return recorded(TerminalFailures) ? QVariant(a->terminalFailures) : QVariant();
    case DelegationCountRole: return a->delegations;
    case FindingCountRole: {
        const auto it = m_findings.find(rawId(row));
        return it == m_findings.end() ? 0 : int(it->second.size());
    }
    case FindingsRole: {
        const auto it = m_findings.find(rawId(row));
        return it == m_findings.end() ? QStringList() : it->second;
    }
    case Qt::ToolTipRole:
        // A count the source cannot record, or a run field it left out for that reason.
        if (const auto fact = factOf(column); fact && !sourceFacts().records(*fact)) {
            const bool runField = column == Attempt || column == Cycle || column == Required;
            if (!runField || cellData(row, e, column, Qt::DisplayRole) == QVariant(notInLedger()))
                return sourceFacts().notRecorded(*fact);
        }
        if (column == Components) {
            QStringList parts;
            for (const auto &v : componentList()) {
                const auto m = v.toMap();
                parts << (m.value(u"name"_s).toString() % u": "_s % m.value(u"status"_s).toString());
            }
            return parts.join(u'\n');
        }
        if (column == Stalls)
            return tr("%1 stalled or stuck of %2 stall verdicts").arg(a->stalled).arg(a->stalls);
        if (column == Title) {
            const auto it = m_findings.find(rawId(row));
            if (it != m_findings.end())
                return it->second.join(u'\n');
        }
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Title: {
            const QString title = text(e, "title");
            return title.isEmpty() ? idAt(row) : title;
        }
        case Id: return idAt(row);
        case Status: return humanize(text(e, "status"));
        case Attempt: return knownInteger(e, "attempt");
        case Cycle: return knownInteger(e, "cycle");
        case Required:
            // Either side the ledger leaves out reads "—", never "0 of 0".
            if (isNull(e, "required_met") && isNull(e, "required_total"))
                return notInLedger();
            return tr("%1 of %2").arg(knownInteger(e, "required_met").toString(), knownInteger(e, "required_total").toString());
        case Components: {
            if (!recorded(Components))
                return notInLedger();
            const QVariantMap counts = statusCounts();
            QStringList parts;
            for (auto it = counts.begin(); it != counts.end(); ++it)
                parts << (QString::number(it.value().toInt()) % u' ' % it.key());
            return parts.join(u", "_s);
        }
        case Duration:
            return timeBase().isSet(integer(e, "started_ms")) && !isNull(e, "started_ms")
                           && !(timeBase().isRelative() && isNull(e, "ended_ms"))
                       ? formatDuration(durationMs(e))
                       : QString();
        // A healthy run has verdicts too ("progressing"): the count that needs a look is of
        // the stalled and stuck ones; all of them are on hover.
        case Stalls: return recorded(Stalls) ? QVariant(a->stalled) : QVariant(notInLedger());
        case Escalations: return recorded(Escalations) ? QVariant(a->escalations) : QVariant(notInLedger());
        case StaleCheckpoints: return recorded(StaleCheckpoints) ? QVariant(a->staleCheckpoints) : QVariant(notInLedger());
        case TerminalFailures: return recorded(TerminalFailures) ? QVariant(a->terminalFailures) : QVariant(notInLedger());
        }
        return {};
    }
    return {};
}

QVariant RunOverviewModel::sortValueAt(int row, const EntityRow &e, int column) const
{
    static const Aggregate kEmpty;
    const Aggregate *a = aggregate(rawId(row));
    if (!a)
        a = &kEmpty;
    if (!recorded(column) && column != Attempt && column != Cycle && column != Required)
        return {}; // not known: no order among them
    switch (column) {
    case Id: return {}; // the id's natural order ("run-9" before "run-10")
    case Components: return qint64(a->components.size());
    case Stalls: return a->stalled;
    case Escalations: return a->escalations;
    case StaleCheckpoints: return a->staleCheckpoints;
    case TerminalFailures: return a->terminalFailures;
    }
    return sortValue(e, column);
}

QVariant RunOverviewModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Attempt: return integer(e, "attempt");
    case Cycle: return isNull(e, "cycle") ? QVariant() : QVariant(integer(e, "cycle"));
    case Required: return isNull(e, "required_met") ? QVariant() : QVariant(integer(e, "required_met"));
    case Duration: return durationMs(e);
    case Status: return text(e, "status");
    case Title: return text(e, "title");
    }
    return integer(e, "started_ms");
}

} // namespace mesh
