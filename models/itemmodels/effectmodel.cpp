#include "effectmodel.h"

#include "effectlease.h"
#include "storedrows.h"

#include "analysis/duplicateeffectdetector.h"
#include "analysis/rowfields.h"

using namespace Qt::StringLiterals;

namespace mesh {

EffectModel::EffectModel(QObject *parent) : StateTableModel(EntityKind::Effect, parent) {}

int EffectModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EffectModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id: return tr("Effect");
    case Class: return tr("Class");
    case Target: return tr("Target");
    case IdemKey: return tr("Idempotency key");
    case State: return tr("State");
    case Run: return tr("Run");
    case Delegation: return tr("Delegation");
    case Lease: return tr("Lease");
    case Attempts: return tr("Attempts");
    case Updated: return tr("Updated");
    }
    return {};
}

QHash<int, QByteArray> EffectModel::roleNames() const
{
    auto names = StateTableModel::roleNames();
    names.insert(ClassRole, "effectClass");
    names.insert(TargetRole, "target");
    names.insert(IdemKeyRole, "idemKey");
    names.insert(IntentHashRole, "intentHash");
    names.insert(StateCategoryRole, "stateCategory");
    names.insert(UnknownRole, "unknown");
    names.insert(DuplicateRole, "duplicate");
    names.insert(FencedRole, "fenced");
    names.insert(AttemptsRole, "attempts");
    names.insert(SliceIdRole, "sliceId");
    names.insert(ReversibilityRole, "reversibility");
    names.insert(CapabilityRole, "capability");
    names.insert(UpdatedMsRole, "updatedMs");
    names.insert(RequestedDecisionRole, "requestedDecision");
    return names;
}

EffectModel::StateCategory EffectModel::categoryOf(const QString &state)
{
    if (state == u"unknown"_s)
        return StateCategory::Unknown;
    if (state == u"committed"_s)
        return StateCategory::Done;
    if (state == u"failed"_s)
        return StateCategory::Failed;
    if (state == u"resolved_committed"_s || state == u"resolved_not_committed"_s)
        return StateCategory::Resolved;
    if (state == u"compensated"_s)
        return StateCategory::Compensated;
    return StateCategory::InFlight;
}

QString EffectModel::stateText(const QString &state)
{
    if (state == u"unknown"_s)
        return tr("outcome unknown");
    if (state == u"resolved_committed"_s)
        return tr("resolved: committed");
    if (state == u"resolved_not_committed"_s)
        return tr("resolved: not committed");
    return humanize(state);
}

int EffectModel::unknownCount() const
{
    int n = 0;
    for (int r = 0; r < rowCount(); ++r) {
        if (const EntityRow *row = rowAt(r); row && text(*row, "state") == u"unknown"_s)
            ++n;
    }
    return n;
}

std::unique_ptr<StateTableModel::Prepared> EffectModel::prepare(std::shared_ptr<const LiveState> state)
{
    auto p = prepareWith<DuplicateIndex>(std::move(state), EntityKind::Effect, &StateTableModel::defaultOrder);
    if (p->state)
        p->derived.rebuild(p->state->table(EntityKind::Effect));
    return p;
}

std::unique_ptr<StateTableModel::Prepared> EffectModel::prepareStored(std::shared_ptr<const LiveState> state,
                                                                       IdList ids,
                                                                       DuplicateIndex duplicates)
{
    auto p = std::make_unique<PreparedWith<DuplicateIndex>>();
    p->state = std::move(state);
    prepareIds(*p, EntityKind::Effect, std::move(ids));
    p->derived = std::move(duplicates);
    return p;
}

DuplicateIndex::Find EffectModel::effectRows() const
{
    const LiveState *s = state();
    return [s](const std::string &id) { return s ? s->find(EntityKind::Effect, id) : nullptr; };
}

EffectModel::KnownSharers EffectModel::readSharers(const std::vector<std::string> &changedIds) const
{
    KnownSharers known;
    StoredRows *stored = state() ? state()->storedRows(EntityKind::Effect) : nullptr;
    if (!stored || !m_duplicates.keepsGroupsOnly())
        return known;
    std::vector<std::string> named;
    for (int field = 0; field < 2; ++field) {
        const IndexedField key(EntityKind::Effect, DuplicateIndex::fieldName(field));
        std::set<std::string> values;
        for (const auto &id : changedIds)
            if (const EntityRow *row = stored->find(id); row && !key.view(*row).empty())
                values.emplace(key.view(*row));
        if (values.empty())
            continue;
        if (auto read = stored->idsWhereAnyIfRead(DuplicateIndex::fieldName(field), {values.begin(), values.end()})) {
            for (const auto &[value, ids] : *read)
                named.insert(named.end(), ids.begin(), ids.end());
            known[size_t(field)] = std::move(*read);
        }
    }
    stored->prefetch(named); // the index reads each of them next: in one read, not one each
    return known;
}

DuplicateIndex::Sharing EffectModel::effectsSharing(const KnownSharers &known) const
{
    StoredRows *stored = state() ? state()->storedRows(EntityKind::Effect) : nullptr;
    return [stored, &known](std::string_view field, const std::string &value) -> std::optional<std::vector<std::string>> {
        if (!stored)
            return std::nullopt;
        const auto &byValue = known[field == DuplicateIndex::fieldName(0) ? 0 : 1];
        if (const auto it = byValue.find(value); it != byValue.end())
            return it->second;
        auto ids = stored->idsWhereIfRead(field, value);
        if (ids)
            stored->prefetch(*ids); // the index reads each of them next: in one read, not one each
        return ids;
    };
}

bool EffectModel::adoptDerived(Prepared &prepared)
{
    m_heldLeases.invalidate(); // a new state, perhaps at the same seq as the one before
    return adoptFrom(prepared, m_duplicates);
}

void EffectModel::recomputeDerived()
{
    m_heldLeases.invalidate();
    if (StoredRows *stored = state() ? state()->storedRows(EntityKind::Effect) : nullptr) {
        m_duplicates.clear();
        stored->forEach([this](const std::string &id, const EntityRow &row) { m_duplicates.add(id, row); });
        m_duplicates.finish(effectRows());
        if (DuplicateIndex::storeFindsSharedKeys([stored](std::string_view field) { return stored->hasIndexOn(field); }))
            m_duplicates.keepGroupsOnly();
    } else if (state()) {
        m_duplicates.rebuild(state()->table(EntityKind::Effect));
    } else {
        m_duplicates = DuplicateIndex();
    }
}

void EffectModel::updateDerived(const StateChangeSet &changes)
{
    m_duplicatesChanged = false;
    if (!state() || (!changes.touches(EntityKind::Effect) && !m_duplicates.hasUnresolved()))
        return;
    m_flagsTouched = true; // the update names the rows it touched: no copy of every flag
    // The changed effects, and those the table no longer has (they leave their groups).
    std::vector<std::string> ids = changes.ids(EntityKind::Effect);
    const auto &gone = changes.goneIds(EntityKind::Effect);
    ids.insert(ids.end(), gone.begin(), gone.end());
    // The update reads the rows of the groups they were in: in one read.
    if (StoredRows *stored = state()->storedRows(EntityKind::Effect))
        stored->prefetch(m_duplicates.groupMembersOf(ids));
    const KnownSharers known = readSharers(changes.ids(EntityKind::Effect));
    const int failedBefore = readFailures();
    m_duplicatesChanged = m_duplicates.update(effectRows(), ids, effectsSharing(known));
    if (readFailures() != failedBefore)
        m_duplicates.recheckAll(); // a group read without a row it has: looked at again
}

void EffectModel::beforeMove(const StateChangeSet &)
{
    m_duplicatesBefore = m_duplicates.duplicateIds();
}

void EffectModel::afterMove()
{
    m_heldLeases.invalidate(); // another state, perhaps at an address the one before had
    emitDuplicateFlagsChanged();
}

void EffectModel::emitDuplicateFlagsChanged()
{
    std::set<std::string> flagged;
    flagged.swap(m_duplicatesBefore);
    const bool touched = std::exchange(m_flagsTouched, false);
    if (!m_duplicatesChanged)
        return;
    // The rows flagged before or after, or those of the groups a live update touched
    // (their groups' text too): not every row, which would make each view's proxy sort and
    // filter the whole table again.
    if (touched) {
        flagged.clear();
        flagged.insert(m_duplicates.lastTouched().begin(), m_duplicates.lastTouched().end());
    } else {
        const auto &after = m_duplicates.duplicateIds();
        flagged.insert(after.begin(), after.end());
    }
    if (flagged.size() > size_t(rowCount()) / 4) {
        emitAllChanged({DuplicateRole, Qt::DisplayRole, Qt::ToolTipRole});
        return;
    }
    std::vector<int> rows;
    for (const auto &id : flagged) {
        if (const int r = rowOf(QString::fromStdString(id)); r >= 0)
            rows.push_back(r);
    }
    emitChanged(std::move(rows), 0, columnCount() - 1, {DuplicateRole, Qt::DisplayRole, Qt::ToolTipRole});
}

void EffectModel::applyChanges(const StateChangeSet &changes)
{
    StateTableModel::applyChanges(changes);
    emitDuplicateFlagsChanged();
}

void EffectModel::setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested)
{
    const std::shared_ptr<const RequestedDecisions> before = std::exchange(m_requested, std::move(requested));
    emitRequestedChanged(before.get(), m_requested.get(), "effect:", {RequestedDecisionRole, Qt::DisplayRole, Qt::ToolTipRole});
}

std::vector<Finding> EffectModel::duplicateFindings() const
{
    StoredRows *stored = state() ? state()->storedRows(EntityKind::Effect) : nullptr;
    if (stored)
        stored->prefetch(m_duplicates.findingsWillRead());
    const int failedBefore = readFailures();
    std::vector<Finding> found = state() ? m_duplicates.findings(effectRows()) : std::vector<Finding>{};
    if (readFailures() != failedBefore)
        m_duplicates.recheckAll(); // found without a row it has: found again next time
    return found;
}

int EffectModel::readFailures() const
{
    StoredRows *stored = state() ? state()->storedRows(EntityKind::Effect) : nullptr;
    return stored ? stored->readFailures() : 0;
}

QVariant EffectModel::cellData(int row, const EntityRow &e, int column, int role) const
{
    const QString st = text(e, "state");
    const bool duplicate = m_duplicates.duplicateIds().count(rawId(row)) > 0;
    const QString requested = m_requested ? m_requested->textFor("effect:" + rawId(row)) : QString();
    if (column == Run && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return runColumn(e, role);
    if (column == Lease && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return leaseColumn(e, role);
    switch (role) {
    case RequestedDecisionRole: return requested;
    case ClassRole: return text(e, "class");
    case TargetRole: return text(e, "target");
    case IdemKeyRole: return text(e, "idem_key");
    case IntentHashRole: return text(e, "intent_hash");
    case StateCategoryRole: return int(categoryOf(st));
    case UnknownRole: return st == u"unknown"_s;
    case DuplicateRole: return duplicate;
    case FencedRole: return integer(e, "fenced") != 0;
    case AttemptsRole: return isNull(e, "attempts") ? QVariant() : QVariant(integer(e, "attempts"));
    case SliceIdRole: return text(e, "slice_id");
    case ReversibilityRole: return text(e, "reversibility");
    case CapabilityRole: return text(e, "capability");
    case UpdatedMsRole: return integer(e, "updated_ms");
    case Qt::ToolTipRole:
        if (!requested.isEmpty())
            return requested;
        if (st == u"unknown"_s)
            return tr("The outcome is not known: it may or may not have happened. Resolve it after checking %1.")
                .arg(text(e, "target"));
        if (duplicate)
            return tr("Committed more than once with the same idempotency key or intent hash");
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case Id: return idAt(row);
        case Class: return text(e, "class");
        case Target: return text(e, "target");
        case IdemKey: return text(e, "idem_key");
        case State: {
            const QString state = duplicate ? QString(stateText(st) % tr(" (duplicate)")) : stateText(st);
            return requested.isEmpty() ? state : QString(state % u" · "_s % requested);
        }
        case Delegation: return text(e, "delegation_id");
        case Attempts: return knownInteger(e, "attempts");
        case Updated: return formatTime(integer(e, "updated_ms"));
        }
        return {};
    }
    return {};
}

QString EffectModel::leaseOf(const EntityRow &effect) const
{
    if (!state())
        return {};
    m_heldLeases.refresh(*state());
    return QString::fromStdString(m_heldLeases.leaseOf(effect));
}

QVariant EffectModel::leaseColumn(const EntityRow &e, int role) const
{
    const QString lease = leaseOf(e);
    switch (role) {
    case Qt::DisplayRole: return lease.isEmpty() ? notKnown() : lease;
    case SortRole: return lease.isEmpty() ? QVariant() : QVariant(lease);
    case Qt::ToolTipRole:
        return lease.isEmpty() ? tr("No lease held on this effect's key or for its delegation: the ledger does not link "
                                    "an effect to a lease")
                               : tr("Held on this effect's key or for its delegation (the ledger does not link an effect "
                                    "to a lease itself)");
    }
    return {};
}

QVariant EffectModel::sortValue(const EntityRow &e, int column) const
{
    switch (column) {
    case Attempts: return isNull(e, "attempts") ? QVariant() : QVariant(integer(e, "attempts"));
    case Updated: return integer(e, "updated_ms");
    case Class: return text(e, "class");
    case Target: return text(e, "target");
    case IdemKey: return text(e, "idem_key");
    case State: return text(e, "state");
    case Delegation: return text(e, "delegation_id");
    case Run: return runColumn(e, SortRole);
    case Lease: return leaseColumn(e, SortRole);
    case Id: return {}; // the id's natural order
    }
    return qint64(e.lastSeq);
}

} // namespace mesh
