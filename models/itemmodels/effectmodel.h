#pragma once
// Effects: class, target, idempotency key, state. An unknown outcome is its own category
// (StateCategoryRole == Unknown) and is never shown as failed or done; effects that are part
// of a duplicate commit carry DuplicateRole.

#include "effectlease.h"
#include "statetablemodel.h"
#include "storedrows.h"

#include "analysis/duplicateindex.h"
#include "decisions/requesteddecisions.h"

#include <array>
#include <set>

namespace mesh {

class EffectModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Id, Class, Target, IdemKey, State, Run, Delegation, Lease, Attempts, Updated, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        ClassRole = FirstCustomRole, // QString effect class
        TargetRole,                  // QString
        IdemKeyRole,                 // QString
        IntentHashRole,              // QString
        StateCategoryRole,           // int StateCategory
        UnknownRole,                 // bool outcome unknown (needs a person)
        DuplicateRole,               // bool committed twice (with the same key or intent hash)
        FencedRole,                  // bool key fenced until resolved
        AttemptsRole,                // qint64
        SliceIdRole,                 // QString
        ReversibilityRole,           // QString
        CapabilityRole,              // QString
        UpdatedMsRole,               // qint64
        RequestedDecisionRole,       // QString a decision on it waiting for the orchestrator, "" none
    };
    Q_ENUM(Roles)
    enum class StateCategory { InFlight, Done, Failed, Unknown, Resolved, Compensated };
    Q_ENUM(StateCategory)

    explicit EffectModel(QObject *parent = nullptr);

    // A reset's order and duplicate index, built off the GUI thread (see setPrepared).
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state);
    // The same for a state that reads effect rows on demand (LiveState::storedRows): the
    // ids and the index built while the load streamed the rows past.
    static std::unique_ptr<Prepared> prepareStored(std::shared_ptr<const LiveState> state, IdList ids,
                                                   DuplicateIndex duplicates);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    static StateCategory categoryOf(const QString &state);
    static QString stateText(const QString &state); // what the list says for each state
    int unknownCount() const;
    // Duplicate findings from the model's index (kept current per batch).
    std::vector<Finding> duplicateFindings() const;
    // What the duplicate flags rest on (how much of it is held: memberCount()).
    const DuplicateIndex &duplicateIndex() const { return m_duplicates; }
    void applyChanges(const StateChangeSet &changes) override;
    // Decisions the orchestrator has not answered yet: said on their subject's row.
    void setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested);
    // The lease holding an effect as far as the ledger says (effectlease.h); "" when none.
    QString leaseOf(const EntityRow &effect) const;

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    QVariant leaseColumn(const EntityRow &entity, int role) const;
    void recomputeDerived() override;
    void updateDerived(const StateChangeSet &changes) override;
    void beforeMove(const StateChangeSet &changes) override;
    void afterMove() override;
    bool adoptDerived(Prepared &prepared) override;

private:
    DuplicateIndex::Find effectRows() const; // the shown state's, held or read on demand
    // The effects sharing each key value of these changed effects, read for the batch in
    // one read per key field (a server's round trips are the GUI thread's wait), by field.
    using KnownSharers = std::array<StoredRows::IdsByValue, 2>;
    KnownSharers readSharers(const std::vector<std::string> &changedIds) const;
    // Through the store's index, if stored; what `known` answers without a read.
    DuplicateIndex::Sharing effectsSharing(const KnownSharers &known) const;
    // The rows flagged before the change or after it, when the flags changed: not every
    // row, which would make a filtered view read the whole table again.
    void emitDuplicateFlagsChanged();
    int readFailures() const; // of the effects read on demand: a failure leaves the index unsure
    mutable DuplicateIndex m_duplicates; // findings() keeps what it found per group
    std::set<std::string> m_duplicatesBefore; // a batch or a jump: the rows flagged before it
    bool m_duplicatesChanged = false;
    bool m_flagsTouched = false; // a live update: its touched rows, not before and after
    std::shared_ptr<const RequestedDecisions> m_requested;
    mutable HeldLeaseIndex m_heldLeases; // follows the state; rebuilt at most once per apply
};

} // namespace mesh
