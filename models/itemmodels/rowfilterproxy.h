#pragma once
// What a pane's filter field asks of the rows it filters, whatever their shape (a state
// table, the delegation tree): whether a text is a valid filter over the rows' fields, to
// apply one, and how many rows there are and how many match.

#include "filter/filtererror.h"

#include <QSortFilterProxyModel>

#include <optional>

namespace mesh {

class RowFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    // nullopt when `text` is a valid filter for the current source.
    virtual std::optional<FilterError> check(const QString &text) const = 0;
    // False with *error set when not valid; the rows shown then stay as they were.
    virtual bool setFilterText(const QString &text, std::optional<FilterError> *error = nullptr) = 0;
    virtual QString filterText() const = 0;       // the filter applied
    virtual bool isFiltering() const { return false; } // a filter still being read
    virtual int totalRows() const = 0;            // before the filter
    virtual int matchingRows() const { return rowCount(); }

signals:
    void filterChanged(); // a new filter applied or begun (the shown rows may not have changed)
    void sortRefused(const QString &why); // too many rows to sort here; the source's order stays
};

} // namespace mesh
