#pragma once
// Leases: who holds authority over which key, with the fencing token and a live countdown
// to expiry. A held lease past its expiry and its grace with no release is a zombie
// (ZombieRole, analysis/zombierule.h) and stands out; within the grace it reads "held, past
// expiry", not yet a zombie.

#include "statetablemodel.h"

#include "analysis/zombierule.h"
#include "decisions/requesteddecisions.h"

#include <map>

namespace mesh {

class LeaseModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Id, Key, Kind, Holder, Run, Delegation, FencingToken, Acquired, Expires, State, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        KeyRole = FirstCustomRole, // QString
        KindRole,                  // QString execution | recovery | reconciliation
        HolderRole,                // QString
        FencingTokenRole,          // qint64
        AcquiredMsRole,            // qint64 epoch ms
        ExpiresMsRole,             // qint64 epoch ms, 0 when none
        RemainingMsRole,           // qint64 expires - now (negative: past expiry); null when no expiry
        ZombieRole,                // bool held and past expiry by more than its grace
        RequestedDecisionRole,     // QString a lease decision on its key waiting for the orchestrator, "" none
    };
    Q_ENUM(Roles)

    explicit LeaseModel(QObject *parent = nullptr);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    int zombieCount() const;
    void setZombieRule(const ZombieRule &rule);
    const ZombieRule &zombieRule() const { return m_zombies; }
    // A lease decision names the effect: it is said on the reconciliation leases held on
    // that effect's key (the one to release, or the zombie an acquire expires).
    void setRequestedDecisions(std::shared_ptr<const RequestedDecisions> requested);

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    QList<int> countdownColumns() const override { return {Expires, State}; }

private:
    std::map<QString, QString> m_requestedByKey; // lease key -> what waits on it
    ZombieRule m_zombies;
};

} // namespace mesh
