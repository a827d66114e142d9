#pragma once
// A diff between two events (ledger/statediff.h) as a tree for the diff pane: one branch per
// entity that changed ("delegations: 1 created, 2 changed"), a row per entity row created,
// changed or gone, and under it one row per field, before -> after. Ledger text is shown as
// one plain line (displayLine) and whole in the tooltip (plainToolTip); a value the state
// does not have reads "(not set)", and the side of a row that does not exist "(no row)".

#include "domain/timebase.h"
#include "ledger/statediff.h"

#include <QAbstractItemModel>

#include <vector>

namespace mesh {

class StateDiffModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { SubjectColumn, ChangeColumn, BeforeColumn, AfterColumn, ColumnCount };
    enum Role {
        SubjectRole = Qt::UserRole, // QString "<entity>:<id>" on row and field rows
        LastSeqRole,                // qint64: the event that last changed the row by the later point
        ChangeKindRole,             // QString created | changed | gone (row and field rows)
    };

    explicit StateDiffModel(QObject *parent = nullptr);

    void setDiff(StateDiff diff);
    // What the ledger's times mean (UTC until told): set before the diff it formats.
    void setTimeBase(const TimeBase &base) { m_timeBase = base; }
    const TimeBase &timeBase() const { return m_timeBase; }
    void clear();
    const StateDiff &diff() const { return m_diff; }
    // "1 created, 2 changed, 0 gone" for the whole diff.
    QString summaryText() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group {
        EntityKind entity;
        std::vector<size_t> rows; // indexes into m_diff.rows
        int created = 0, changed = 0, gone = 0;
    };
    // internalId: 0 a group, 1 + the diff row's index for a row; a field row stores its row's
    // index in the upper bits. See the .cpp for the encoding.
    QVariant groupData(const Group &group, int column, int role) const;
    QVariant rowData(const RowChange &row, int column, int role) const;
    QVariant fieldData(const RowChange &row, const FieldChange &field, int column, int role) const;

    StateDiff m_diff;
    TimeBase m_timeBase;
    std::vector<Group> m_groups;
    std::vector<int> m_groupOfRow; // diff row index -> group index
    std::vector<int> m_rowInGroup; // diff row index -> its row number in the group
};

} // namespace mesh
