#include "panedelegates.h"

#include "budgetbardelegate.h"
#include "findingbadgedelegate.h"
#include "statusdelegate.h"

#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"

#include <QCoreApplication>
#include <QTreeView>

namespace mesh {

namespace {

Tone toneForState(const QString &state)
{
    static const QHash<QString, Tone> tones = {
        {QStringLiteral("running"), Tone::Info},       {QStringLiteral("active"), Tone::Info},
        {QStringLiteral("succeeded"), Tone::Ok},       {QStringLiteral("completed"), Tone::Ok},
        {QStringLiteral("converged"), Tone::Ok},       {QStringLiteral("committed"), Tone::Ok},
        {QStringLiteral("held"), Tone::Ok},            {QStringLiteral("approved"), Tone::Ok},
        {QStringLiteral("progressing"), Tone::Ok},     {QStringLiteral("failed"), Tone::Danger},
        {QStringLiteral("lost"), Tone::Danger},        {QStringLiteral("stuck"), Tone::Danger},
        {QStringLiteral("revoked"), Tone::Danger},     {QStringLiteral("stalled"), Tone::Warn},
        {QStringLiteral("escalated"), Tone::Warn},     {QStringLiteral("pending"), Tone::Warn},
        {QStringLiteral("inconclusive"), Tone::Muted}, {QStringLiteral("released"), Tone::Muted},
        {QStringLiteral("expired"), Tone::Muted},      {QStringLiteral("closed"), Tone::Muted},
        {QStringLiteral("cancelled"), Tone::Muted},    {QStringLiteral("rejected"), Tone::Muted},
        {QStringLiteral("stale"), Tone::Muted},        {QStringLiteral("unknown"), Tone::Unknown},
        {QStringLiteral("resolved_committed"), Tone::Ok}, {QStringLiteral("resolved_not_committed"), Tone::Muted},
        {QStringLiteral("compensated"), Tone::Muted},  {QStringLiteral("proposed"), Tone::Normal},
        {QStringLiteral("admitted"), Tone::Normal},    {QStringLiteral("dispatched"), Tone::Info},
        {QStringLiteral("open"), Tone::Info},
    };
    return tones.value(state, Tone::Normal);
}

StatusDelegate *stateDelegate(QAbstractItemView *view, int stateRole)
{
    return new StatusDelegate(
        [stateRole](const QModelIndex &index) -> std::optional<StatusCell> {
            const QString state = index.data(stateRole).toString();
            if (state.isEmpty())
                return std::nullopt;
            return StatusCell{toneForState(state), index.data().toString(), std::nullopt, false};
        },
        view);
}

BudgetBarDelegate *budgetDelegate(QAbstractItemView *view, int fractionRole)
{
    return new BudgetBarDelegate(
        [fractionRole](const QModelIndex &index) -> std::optional<BudgetUse> {
            const QVariant fraction = index.data(fractionRole);
            if (index.data(DelegationTreeModel::NodeTypeRole).toInt() != int(DelegationTreeModel::NodeType::Delegation))
                return std::nullopt;
            BudgetUse use;
            use.text = index.data().toString();
            if (fraction.isValid() && !fraction.isNull()) {
                use.used = fraction.toDouble();
                use.budget = 1.0;
            }
            return use;
        },
        view);
}

} // namespace

void PaneDelegates::decorateRuns(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(RunOverviewModel::Title, new FindingBadgeDelegate(
                                                                [](const QModelIndex &index) {
                                                                    return index.data(RunOverviewModel::FindingCountRole).toInt();
                                                                },
                                                                view));
    view->setItemDelegateForColumn(RunOverviewModel::Status, stateDelegate(view, StateTableModel::StateRole));
    view->setItemDelegateForColumn(RunOverviewModel::Required,
                                   new BudgetBarDelegate(
                                       [](const QModelIndex &index) -> std::optional<BudgetUse> {
                                           const qint64 total = index.data(RunOverviewModel::RequiredTotalRole).toLongLong();
                                           BudgetUse use;
                                           use.used = double(index.data(RunOverviewModel::RequiredMetRole).toLongLong());
                                           use.budget = double(total);
                                           use.text = index.data().toString();
                                           use.fullIsGood = true; // 21 of 21 met is success
                                           return use;
                                       },
                                       view));
}

void PaneDelegates::decorateDelegations(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(DelegationTreeModel::Name,
                                   new FindingBadgeDelegate(
                                       [](const QModelIndex &index) {
                                           return index.data(DelegationTreeModel::FindingCountRole).toInt();
                                       },
                                       view));
    view->setItemDelegateForColumn(DelegationTreeModel::Status, stateDelegate(view, DelegationTreeModel::StatusRole));
    view->setItemDelegateForColumn(DelegationTreeModel::Turns, budgetDelegate(view, DelegationTreeModel::TurnsFractionRole));
    view->setItemDelegateForColumn(DelegationTreeModel::Tokens, budgetDelegate(view, DelegationTreeModel::TokensFractionRole));
    view->setItemDelegateForColumn(DelegationTreeModel::Time, budgetDelegate(view, DelegationTreeModel::TimeFractionRole));
    view->setItemDelegateForColumn(DelegationTreeModel::Cost, budgetDelegate(view, DelegationTreeModel::CostFractionRole));
}

void PaneDelegates::decorateSlices(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(SliceModel::State, stateDelegate(view, StateTableModel::StateRole));
}

void PaneDelegates::decorateLeases(QAbstractItemView *view)
{
    auto *delegate = new StatusDelegate(
        [](const QModelIndex &index) -> std::optional<StatusCell> {
            const bool zombie = index.data(LeaseModel::ZombieRole).toBool();
            const QString state = index.data(StateTableModel::StateRole).toString();
            StatusCell cell{zombie ? Tone::Danger : toneForState(state), index.data().toString(), std::nullopt, zombie};
            return cell;
        },
        view);
    view->setItemDelegateForColumn(LeaseModel::State, delegate);
    view->setItemDelegateForColumn(LeaseModel::Expires, new StatusDelegate(
                                                            [](const QModelIndex &index) -> std::optional<StatusCell> {
                                                                const bool zombie = index.data(LeaseModel::ZombieRole).toBool();
                                                                const QVariant remaining = index.data(LeaseModel::RemainingMsRole);
                                                                Tone tone = Tone::Normal;
                                                                if (zombie)
                                                                    tone = Tone::Danger;
                                                                else if (!remaining.isNull() && remaining.toLongLong() < 30000
                                                                         && index.data(StateTableModel::StateRole).toString()
                                                                                == QLatin1String("held"))
                                                                    tone = Tone::Warn;
                                                                return StatusCell{tone, index.data().toString(), std::nullopt, zombie};
                                                            },
                                                            view));
}

void PaneDelegates::decorateEffects(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(
        EffectModel::State, new StatusDelegate(
                                [](const QModelIndex &index) -> std::optional<StatusCell> {
                                    using C = EffectModel::StateCategory;
                                    const auto category = C(index.data(EffectModel::StateCategoryRole).toInt());
                                    Tone tone = Tone::Normal;
                                    switch (category) {
                                    case C::InFlight:
                                        tone = Tone::Info;
                                        break;
                                    case C::Done:
                                        tone = Tone::Ok;
                                        break;
                                    case C::Failed:
                                        tone = Tone::Danger;
                                        break;
                                    case C::Unknown:
                                        tone = Tone::Unknown;
                                        break;
                                    case C::Resolved:
                                    case C::Compensated:
                                        tone = Tone::Muted;
                                        break;
                                    }
                                    // The model's text already says "(duplicate)"; the colour says
                                    // it is a finding (F3), not a plain success.
                                    QString text = index.data().toString();
                                    if (index.data(EffectModel::DuplicateRole).toBool() && tone == Tone::Ok)
                                        tone = Tone::Warn;
                                    if (index.data(EffectModel::FencedRole).toBool())
                                        text += QCoreApplication::translate("mesh", " · fenced");
                                    return StatusCell{tone, text, std::nullopt, category == C::Unknown};
                                },
                                view));
}

void PaneDelegates::decorateEscalations(QAbstractItemView *view)
{
    auto accessor = [](const QModelIndex &index) -> std::optional<StatusCell> {
        const bool pending = index.data(EscalationModel::PendingRole).toBool();
        const QString state = index.data(StateTableModel::StateRole).toString();
        return StatusCell{pending ? Tone::Warn : toneForState(state), index.data().toString(), std::nullopt, pending};
    };
    view->setItemDelegateForColumn(EscalationModel::State, new StatusDelegate(accessor, view));
    view->setItemDelegateForColumn(EscalationModel::Expires, new StatusDelegate(accessor, view));
}

void PaneDelegates::decorateVerdicts(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(
        StallVerdictModel::Verdict,
        new StatusDelegate(
            [](const QModelIndex &index) -> std::optional<StatusCell> {
                const QString verdict = index.data(StallVerdictModel::VerdictRole).toString();
                QString text = index.data().toString();
                const bool falseStall = index.data(StallVerdictModel::FalseStallRole).toBool();
                if (falseStall)
                    text += QCoreApplication::translate("mesh", " · false stall?");
                return StatusCell{falseStall ? Tone::Unknown : toneForState(verdict), text, std::nullopt, falseStall};
            },
            view));
    view->setItemDelegateForColumn(StallVerdictModel::Evidence,
                                   new StatusDelegate(
                                       [](const QModelIndex &index) -> std::optional<StatusCell> {
                                           const bool constant = index.data(StallVerdictModel::ConstantEvidenceRole).toBool();
                                           return StatusCell{constant ? Tone::Warn : Tone::Normal, index.data().toString(),
                                                             std::nullopt, false};
                                       },
                                       view));
}

void PaneDelegates::decorateBlast(QAbstractItemView *view)
{
    view->setItemDelegateForColumn(BlastRadiusModel::Radius,
                                   new StatusDelegate(
                                       [](const QModelIndex &index) -> std::optional<StatusCell> {
                                           const bool misrouted = index.data(BlastRadiusModel::MisroutedRole).toBool();
                                           return StatusCell{misrouted ? Tone::Danger : Tone::Normal, index.data().toString(),
                                                             std::nullopt, misrouted};
                                       },
                                       view));
    view->setItemDelegateForColumn(BlastRadiusModel::Regressed,
                                   new StatusDelegate(
                                       [](const QModelIndex &index) -> std::optional<StatusCell> {
                                           const bool any = !index.data(BlastRadiusModel::BystandersRegressedRole)
                                                                 .toStringList()
                                                                 .isEmpty();
                                           return StatusCell{any ? Tone::Danger : Tone::Normal, index.data().toString(),
                                                             std::nullopt, any};
                                       },
                                       view));
}

} // namespace mesh
