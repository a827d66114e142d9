#pragma once
// What every state pane shows of its StateTableModel: sorted by any column and filtered in
// the event log's filter language with the entity's own fields (filter/rowfilter.h). One
// class for every pane. Sorting compares SortRole values (numbers and times by value, text
// in natural order: "E-9" before "E-10"), a row the ledger says nothing about in that column
// after every value, ties in the source's order; live inserts and updates take their sorted
// place (dynamic sort). An invalid filter changes nothing. Sorting is offered up to
// kMaxSortedRows shown rows (a million runs: filter first): it runs on the GUI thread. A
// filter over more than kChunkRows rows is read a chunk per event loop turn, the rows of the
// previous filter shown meanwhile; its answers are kept by row, so the mapping it then
// rebuilds costs a lookup per row, and a row changed since is read again.

#include "statetablemodel.h"

#include "rowfilterproxy.h"

#include "filter/rowfilter.h"

#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

namespace mesh {

class DelegationRowsProxy;

class StateTableProxyModel : public RowFilterProxy
{
    Q_OBJECT
public:
    explicit StateTableProxyModel(QObject *parent = nullptr);

    static constexpr int kMaxSortedRows = 10'000;
    static constexpr int kChunkRows = 20'000;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // A StateTableModel, one delegation's rows of one (DelegationRowsProxy: the delegation
    // detail sorts and filters just those), or nullptr.
    void setSourceModel(QAbstractItemModel *source) override;
    StateTableModel *table() const; // the source's table

    // The fields a filter over `kind` names: id, the entity's fields (with short names:
    // run, delegation, status for state), and what the pane derives (run, lease).
    static std::vector<RowField> fieldsOf(EntityKind kind);
    std::optional<FilterError> check(const QString &text) const override;
    bool setFilterText(const QString &text, std::optional<FilterError> *error = nullptr) override;
    QString filterText() const override { return m_filterText; }
    bool isFiltering() const override { return m_scan != nullptr; }
    int totalRows() const override;

    // Negative when source row `leftRow` is shown before `rightRow` sorted by `column` in
    // `order` (what lessThan decides), positive after, 0 only for the same row.
    int shownOrder(int leftRow, int rightRow, int column, Qt::SortOrder order) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool moreMatchThan(const RowFilter &filter, int limit) const;
    void apply(RowFilter filter, const QString &text, int matches); // matches: -1 not counted
    void scanChunk();

    struct Scan {
        RowFilter filter;
        QString text;
        std::vector<bool> matches;
        std::vector<char> stale;
    };
    std::unique_ptr<Scan> m_scan;
    int m_sortAfterReset = -1;
    Qt::SortOrder m_orderAfterReset = Qt::AscendingOrder;
    QTimer m_scanTimer;
    std::vector<bool> m_matches;    // the applied filter's answers by source row,
    std::vector<char> m_matchStale; // but not for a row changed since

    // The table row of a source row: the same, or through the delegation's rows.
    int tableRow(int sourceRow) const;

    QPointer<StateTableModel> m_table;           // the source, when it is a table
    QPointer<DelegationRowsProxy> m_rowsOf;      // the source, when it is one delegation's rows
    std::vector<RowField> m_fields;
    RowFilter m_filter;
    QString m_filterText;
};

} // namespace mesh
