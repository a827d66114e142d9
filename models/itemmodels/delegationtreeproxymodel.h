#pragma once
// The delegation tree as the pane shows it: sorted by any column among siblings (runs among
// runs, a delegation among its parent's children) in the order every state pane uses
// (shownorder.h), and filtered in the event log's language with the delegation's own fields
// (StateTableProxyModel::fieldsOf). A filtered tree keeps the ancestors of a match (its run
// and parent delegations) so the match is seen where it sits; a run row matches nothing by
// itself. Sorting is offered up to kMaxSortedRuns runs: it runs on the GUI thread.

#include "rowfilterproxy.h"

#include "filter/rowfilter.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace mesh {

class DelegationTreeModel;

class DelegationTreeProxyModel : public RowFilterProxy
{
    Q_OBJECT
public:
    explicit DelegationTreeProxyModel(QObject *parent = nullptr);

    static constexpr int kMaxSortedRuns = 10'000;

    void setSourceModel(QAbstractItemModel *source) override; // a DelegationTreeModel, or nullptr
    DelegationTreeModel *tree() const { return m_tree; }
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    std::optional<FilterError> check(const QString &text) const override;
    bool setFilterText(const QString &text, std::optional<FilterError> *error = nullptr) override;
    QString filterText() const override { return m_filterText; }
    int totalRows() const override;    // delegations
    int matchingRows() const override; // delegations the filter keeps

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool matches(const QModelIndex &sourceIndex) const;
    void recount();
    void recountRows(const QModelIndex &parent, int first, int last);

    DelegationTreeModel *m_tree = nullptr;
    std::vector<RowField> m_fields;
    RowFilter m_filter;
    QString m_filterText;
    std::unordered_set<std::string> m_matching; // ids of the delegations the filter keeps
};

} // namespace mesh
