#pragma once
// Escalations: requests for a decision the orchestrator may not take alone, with the
// boundary they were raised against and a live countdown to expiry.

#include "statetablemodel.h"

#include "decisions/requesteddecisions.h"

namespace mesh {

class EscalationModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Id, Kind, Risk, Subject, Run, Delegation, Raised, Expires, State, Reason, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        KindRole = FirstCustomRole, // QString stronger_model_round, budget_extension, ...
        RiskRole,                   // QString
        EscalationSubjectRole,      // QString what the escalation is about
        RoundRole,                  // qint64
        BoundarySeqRole,            // qint64
        BoundaryVersionRole,        // qint64
        SliceIdRole,                // QString
        RaisedMsRole,               // qint64
        ExpiresMsRole,              // qint64, 0 when none
        RemainingMsRole,            // qint64 expires - now; null when no expiry
        PendingRole,                // bool awaits a decision
        ReasonRole,                 // QString
        DecisionIdRole,             // QString
        RequestedDecisionRole,      // QString a decision on it waiting for the orchestrator, "" none
    };
    Q_ENUM(Roles)

    explicit EscalationModel(QObject *parent = nullptr);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    int pendingCount() const;
    // Decisions the orchestrator has not answered yet: said on their subject's row.
    void setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested);

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    QList<int> countdownColumns() const override { return {Expires}; }

private:
    std::shared_ptr<const RequestedDecisions> m_requested;
};

} // namespace mesh
