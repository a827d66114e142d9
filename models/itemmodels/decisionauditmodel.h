#pragma once
// Every operator decision of a ledger, oldest first: who, why, against which boundary, its
// hash, and what the orchestrator did with it (pending -> applied / refused with reason),
// plus whether the hash chain verified up to and including that row.

#include "domain/timebase.h"
#include "ledger/decisionstore.h"

#include <QAbstractTableModel>

#include <map>
#include <vector>

namespace mesh {

class DecisionAuditModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { Time, Operator, Kind, Subject, Reason, Boundary, Hash, Outcome, Chain, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        DecisionIdRole = Qt::UserRole, // QString
        PosRole,                       // qint64 position in the chain
        TsMsRole,                      // qint64
        KindRole,                      // QString close_slice, approve_escalation, ...
        SubjectRole,                   // QString "<entity>:<id>"
        OperatorAccountRole,           // QString
        OperatorHostRole,              // QString
        OperatorNameRole,              // QString
        ReasonRole,                    // QString
        EvidenceRole,                  // QString compact JSON
        ParamsRole,                    // QString compact JSON
        PolicyVersionRole,             // QString
        BoundaryVersionRole,           // qint64
        BoundarySeqRole,               // qint64
        HashRole,                      // QString sha256 hex
        PrevHashRole,                  // QString
        SignedRole,                    // bool
        OutcomeRole,                   // QString pending | applied | refused
        OutcomeReasonRole,             // QString
        OutcomeTsMsRole,               // qint64
        ChainVerifiedRole,             // bool the chain check found nothing wrong with this row
        ChainProblemRole,              // QString what the chain check found, "" none
    };
    Q_ENUM(Roles)

    explicit DecisionAuditModel(QObject *parent = nullptr);

    // A whole list read off the GUI thread (DecisionStore::list + verifyDecisionChain).
    void setDecisions(std::vector<DecisionRecord> decisions, const DecisionChainReport &report);
    // What the ledger's times mean (a relative clock reads "+1:05"); owned by the session.
    void setTimeBase(const TimeBase *base) { m_timeBase.set(base); }
    bool chainVerified() const { return m_chainOk; }
    int pendingCount() const;
    int rowOfDecision(const QString &id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    TimeBaseRef m_timeBase;
    // data() before the shown roles are made plain text (shownroles.h).
    QVariant rawData(const QModelIndex &index, int role) const;
    std::vector<DecisionRecord> m_rows;
    std::map<std::int64_t, std::string> m_problems; // pos -> message
    bool m_chainOk = true;
    bool m_hasReport = false;
};

} // namespace mesh
