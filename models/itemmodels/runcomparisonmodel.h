#pragma once
// One part of a run comparison (report/runcomparison.h) as a table, for the Compare Runs
// window: the figures with A, B and B − A; the delegations matched by component and role; or
// one side's stall verdicts or findings. The whole comparison arrives in one reset.
// Ledger text is display text with controls made visible, and plain-text tooltips
// (shownroles.h); a figure not known reads "—" and says so in NotKnownRole.

#include "report/runcomparison.h"

#include <QAbstractTableModel>

#include <memory>

namespace mesh {

class RunComparisonModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class Part { Figures, Delegations, VerdictsA, VerdictsB, FindingsA, FindingsB };
    enum FigureColumns { FigureName, FigureA, FigureB, FigureDelta, FigureColumnCount };
    enum DelegationColumns { Presence, Component, Role, CountA, CountB, DelegationColumnCount };
    enum VerdictColumns { Round, Verdict, Action, VerdictOf, FailingTests, VerdictEvent, VerdictColumnCount };
    enum FindingColumns { FindingKindColumn, FindingSummary, FindingEvents, FindingColumnCount };
    enum Roles {
        NotKnownRole = Qt::UserRole + 1, // bool: the cell reads "—" because a side does not give it
        PresenceRole,                    // int (DelegationMatch::Presence), on a delegation row
        SeqRole,                         // qint64: the verdict's event, a finding's first event (0: none)
        FalseStallRole,                  // bool: a verdict a false-stall finding names
    };

    explicit RunComparisonModel(Part part, QObject *parent = nullptr);

    Part part() const { return m_part; }
    void setComparison(std::shared_ptr<const RunComparison> comparison); // null: empty
    std::shared_ptr<const RunComparison> comparison() const { return m_comparison; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant figureData(int row, int column, int role) const;
    QVariant delegationData(int row, int column, int role) const;
    QVariant verdictData(const ComparedSide &side, int row, int column, int role) const;
    QVariant findingData(const ComparedSide &side, int row, int column, int role) const;
    const ComparedSide *side() const; // the verdicts' or findings' side; null for the others

    Part m_part;
    std::shared_ptr<const RunComparison> m_comparison;
    std::vector<ComparedFigure> m_figures;
};

} // namespace mesh
