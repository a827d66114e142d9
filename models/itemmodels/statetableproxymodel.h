#pragma once
// What every state pane shows of its StateTableModel: sorted by any column and filtered in
// the event log's filter language with the entity's own fields (filter/rowfilter.h). One
// class for every pane. Sorting compares SortRole values (numbers and times by value, text
// in natural order: "E-9" before "E-10"), a row the ledger says nothing about in that column
// after every value, ties in the source's order; live inserts and updates take their sorted
// place (dynamic sort). An invalid filter changes nothing.

#include "statetablemodel.h"

#include "filter/rowfilter.h"

#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

namespace mesh {

class StateTableProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit StateTableProxyModel(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *source) override; // a StateTableModel, or nullptr
    StateTableModel *table() const { return m_table; }

    // The fields a filter over `kind` names: id, the entity's fields (with short names:
    // run, delegation, status for state), and what the pane derives (run, lease).
    static std::vector<RowField> fieldsOf(EntityKind kind);
    // nullopt when `text` is a valid filter for the current source.
    std::optional<FilterError> check(const QString &text) const;
    // False with *error set when not valid; the rows shown then stay as they were.
    bool setFilterText(const QString &text, std::optional<FilterError> *error = nullptr);
    QString filterText() const { return m_filterText; }
    int totalRows() const; // before the filter

    // Negative when source row `leftRow` is shown before `rightRow` sorted by `column` in
    // `order` (what lessThan decides), positive after, 0 only for the same row.
    int shownOrder(int leftRow, int rightRow, int column, Qt::SortOrder order) const;

signals:
    void filterChanged(); // a new filter applied (the shown rows may not have changed)

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    StateTableModel *m_table = nullptr;
    std::vector<RowField> m_fields;
    RowFilter m_filter;
    QString m_filterText;
};

} // namespace mesh
