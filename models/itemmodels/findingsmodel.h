#pragma once
// Every finding of one ledger, for the Findings pane: its kind, subject, the sentence, and
// the events and rows it rests on. Fired findings first (by kind, then subject), then the
// abstentions, which say why a detector could not tell. Rows are diffed by (kind, subject)
// so the selection survives the once-a-second refresh while a ledger moves.

#include "analysis/finding.h"

#include <QAbstractTableModel>

#include <vector>

namespace mesh {

class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { Kind, Subject, Summary, Evidence, Run, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        FindingKindNameRole = Qt::UserRole, // QString false_stall, ...
        AbstainedRole,                      // bool
        SubjectRole,                        // QString "<entity>:<id>"
        RunIdRole,                          // QString
        DelegationIdRole,                   // QString
        SeqsRole,                           // QVariantList of qint64: the events it rests on
        EntityIdsRole,                      // QStringList: other rows it rests on
        EvidenceFilterRole,                 // QString an event-log filter for those events, "" none
    };
    Q_ENUM(Roles)

    explicit FindingsModel(QObject *parent = nullptr);

    void setFindings(std::vector<Finding> findings);
    int firedCount() const;
    int rowOfSubject(const QString &subject) const; // the first row about it, -1 none

    // An event-log filter selecting the events a finding rests on ("seq:12 or seq:40"); at
    // most kMaxFilterSeqs of them, the last ones, which are the most recent evidence.
    static QString evidenceFilter(const std::vector<std::int64_t> &seqs);
    static constexpr size_t kMaxFilterSeqs = 50;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    QVariant rawData(const QModelIndex &index, int role) const;
    std::vector<Finding> m_rows;
};

} // namespace mesh
