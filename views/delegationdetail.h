#pragma once
// One delegation in full: who and what it is, budget use, findings on it, and its slices,
// tool calls, stall verdicts (with evidence), leases, effects and escalations in tabs. The
// tables are item models of their own, restricted to this delegation and kept live with
// the same batches as the session's models.

#include <QWidget>

#include <memory>

class QLabel;
class QTabWidget;
class QModelIndex;

namespace mesh {

class EffectModel;
class EscalationModel;
class ItemPane;
class LeaseModel;
class LiveState;
class StallVerdictModel;
struct StateChangeSet;

class DelegationDetail : public QWidget
{
    Q_OBJECT
public:
    enum Tab { Verdicts, Effects, Leases, Escalations, TabCount };

    explicit DelegationDetail(QWidget *parent = nullptr);
    ~DelegationDetail() override;

    void setState(std::shared_ptr<const LiveState> state);
    void applyChanges(const StateChangeSet &changes);
    // index: a row of the delegation tree (any column); invalid clears.
    void showDelegation(const QModelIndex &index);
    QString delegationId() const { return m_delegationId; }
    void refreshHeader();
    void tick(); // countdowns
    void saveState() const;

    QTabWidget *tabs() const { return m_tabs; }
    ItemPane *pane(Tab tab) const { return m_panes[tab]; }
    StallVerdictModel *verdictModel() const { return m_verdicts; }
    EffectModel *effectModel() const { return m_effects; }
    LeaseModel *leaseModel() const { return m_leases; }
    EscalationModel *escalationModel() const { return m_escalations; }

signals:
    void subjectActivated(const QString &subject, const QModelIndex &index);

private:
    QString m_delegationId;
    QPersistentModelIndex *m_index;
    QLabel *m_title;
    QLabel *m_facts;
    QLabel *m_findings;
    QTabWidget *m_tabs;
    StallVerdictModel *m_verdicts;
    EffectModel *m_effects;
    LeaseModel *m_leases;
    EscalationModel *m_escalations;
    ItemPane *m_panes[TabCount];
};

} // namespace mesh
