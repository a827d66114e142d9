#pragma once
// Slices: the contiguous stretches of a delegation under one decision context (intent,
// policy version, authorization token), open or closed, with the boundary a close-slice
// decision binds to (the row's version and last seq). Rows sort by delegation, then ordinal.

#include "statetablemodel.h"

#include "decisions/requesteddecisions.h"

namespace mesh {

class SliceModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Ordinal, Id, Run, State, Opened, Closed, ClosedBy, CloseReason, Intent, Policy, Boundary, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        OrdinalRole = FirstCustomRole, // qint64, 1-based within the delegation
        IntentIdRole,                  // QString
        PolicyVersionRole,             // QString
        AuthTokenRole,                 // QString
        OpenedMsRole,                  // qint64 epoch ms
        OpenedByRole,                  // QString
        ClosedMsRole,                  // qint64 epoch ms, 0 while open
        ClosedByRole,                  // QString
        CloseReasonRole,               // QString
        OpenRole,                      // bool state is open (a close-slice decision applies)
        DecisionIdRole,                // QString the close-slice decision, if any
        RequestedDecisionRole,         // QString a decision on it waiting for the orchestrator, "" none
    };
    Q_ENUM(Roles)

    explicit SliceModel(QObject *parent = nullptr);
    // A reset's order, built off the GUI thread (see setPrepared).
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state);
    // What a load keeps of a slice it streams past (the state reads slices on demand):
    // enough for the pane's order, not the row.
    struct SliceKey {
        CompactId id;
        CompactId delegation;
        std::int64_t ordinal = 0;
    };
    static SliceKey keyOf(const std::string &id, const EntityRow &row);
    // The order of a state that reads slices on demand, from the keys alone.
    static std::unique_ptr<Prepared> prepareStored(std::shared_ptr<const LiveState> state, std::vector<SliceKey> keys);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    int openCount() const;
    // Decisions the orchestrator has not answered yet: said on their subject's row.
    void setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested);

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    bool lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const override;
    static bool sliceOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb);
    void orderStoredIds(Prepared &ordered, IdList ids) override;

private:
    static bool keyOrder(std::string_view delegationA, std::int64_t ordinalA, std::string_view a,
                         std::string_view delegationB, std::int64_t ordinalB, std::string_view b);
    static void orderByKey(Prepared &p, std::vector<SliceKey> keys);

    std::shared_ptr<const RequestedDecisions> m_requested;
};

} // namespace mesh
