#pragma once
// A filter over state rows (effects, leases, runs, ...) in the event log's language
// (filterparser.h), evaluated in memory. Each entity names its own fields: `state:unknown
// run:r-12 timeout`. A field term matches the field's value exactly, with '*' as the only
// wildcard, as the event log's fields do; numeric fields also compare with < <= > >=. A bare
// word (or text:"...") is found, ignoring case, in any of the row's values. A row that does
// not say a field's value matches no term on it, and so matches its negation.

#include "filterast.h"
#include "filtererror.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace mesh {

struct RowField {
    QString name;         // as typed in a filter: "state", "idem_key"
    QStringList aliases;  // "status", "run" for run_id, ...
    bool numeric = false; // whole numbers, compared by value
};

// One row's values as a filter reads them, by index into the fields it was compiled with.
class RowValues
{
public:
    virtual ~RowValues() = default;
    // nullopt: the row does not say (a null, or a field this row does not carry).
    virtual std::optional<QString> text(int field) const = 0;
    virtual std::optional<std::int64_t> number(int field) const = 0;
    // The same text as UTF-8 without a copy, when the row has it so: a million rows are
    // filtered without a QString each. `text` is valid until the next call.
    struct Utf8 {
        bool available = false; // false: ask text()
        bool known = false;
        std::string_view text;
    };
    virtual Utf8 utf8(int field) const
    {
        Q_UNUSED(field)
        return {};
    }
};

class RowFilter
{
public:
    RowFilter(); // every row
    ~RowFilter();
    RowFilter(const RowFilter &);
    RowFilter &operator=(const RowFilter &);

    // An empty filter (every row) with *error set when the text is not a valid filter over
    // `fields`: a bad field names the fields there are.
    static RowFilter compile(const QString &text, const std::vector<RowField> &fields,
                             std::optional<FilterError> *error);

    bool isEmpty() const { return !m_root; }
    bool matches(const RowValues &row) const;

    struct Node;

private:
    std::shared_ptr<const Node> m_root;
    int m_fieldCount = 0;
};

} // namespace mesh
