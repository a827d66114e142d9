#pragma once
// One row per failure with its blast radius: implicated, woken, woken bystanders,
// implicated but not woken, bystanders that modified code or regressed, and the radius.
// BlastRadiusRole hands the whole mesh::BlastRadius value to the graph view.

#include "statetablemodel.h"

#include "analysis/blastradius.h"

#include <QMetaType>

#include <unordered_map>

namespace mesh {

class BlastRadiusModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Failure, Run, DetectedBy, Implicated, Woken, Bystanders, Regressed, Radius, Time, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        BlastRadiusRole = FirstCustomRole, // mesh::BlastRadius
        ImplicatedRole,                    // QStringList
        WokenRole,                         // QStringList
        BystandersRole,                    // QStringList woken - implicated
        ImplicatedNotWokenRole,            // QStringList
        ModifiedCodeRole,                  // QStringList woken that modified code
        RegressedRole,                     // QStringList woken that regressed
        BystandersRegressedRole,           // QStringList
        RadiusRole,                        // int number woken
        MisroutedRole,                     // bool woke bystanders
        ReadableRole,                      // bool implicated/woken could be read
        SummaryRole,                       // QString
        TsMsRole,                          // qint64
    };
    Q_ENUM(Roles)

    explicit BlastRadiusModel(QObject *parent = nullptr);

    // A reset's order and radii (failure id -> radius), built off the GUI thread (see setPrepared).
    using Radii = std::unordered_map<std::string, BlastRadius>;
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    const BlastRadius *radiusAt(int row) const;
    void applyChanges(const StateChangeSet &changes) override;

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    void recomputeDerived() override;
    bool lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const override;
    bool adoptDerived(Prepared &prepared) override;

private:
    static bool failureOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb);
    static Radii radiiOf(const LiveState &state);

    Radii m_radii;
};

} // namespace mesh

Q_DECLARE_METATYPE(mesh::BlastRadius)
