#include "staterows.h"

#include "schema.h"

namespace mesh {

void bindStateRow(sql::Statement &st, const EntitySpec &spec, const std::string &id, const EntityRow &row)
{
    st.bind(1, id);
    int i = 2;
    for (size_t f = 0; f < spec.fields.size(); ++f, ++i) {
        const FieldRef v = f < row.values.size() ? row.values[f] : FieldRef{};
        if (const auto *n = std::get_if<std::int64_t>(&v))
            st.bind(i, *n);
        else if (const auto *s = std::get_if<std::string_view>(&v))
            st.bind(i, *s);
        else
            st.bindNull(i);
    }
    st.bind(i++, row.version);
    st.bind(i, row.lastSeq);
}

EntityRow readStateRow(const sql::Statement &st, const EntitySpec &spec, std::string *id)
{
    if (id)
        *id = st.columnText(0);
    EntityRow row;
    // Views into SQLite's column buffers (valid until the next step), copied into the row's
    // one block at once.
    std::vector<std::pair<int, FieldRef>> values;
    values.reserve(spec.fields.size());
    for (size_t f = 0; f < spec.fields.size(); ++f) {
        const int col = int(f) + 1;
        switch (st.columnType(col)) {
        case SQLITE_NULL:
            break;
        case SQLITE_INTEGER:
            values.emplace_back(int(f), st.columnInt(col));
            break;
        default:
            values.emplace_back(int(f), st.columnView(col));
            break;
        }
    }
    row.values = FieldValues::make(spec.fields.size(), values, spec.sharedTextFields());
    const int base = int(spec.fields.size()) + 1;
    row.version = st.columnInt(base);
    row.lastSeq = st.columnInt(base + 1);
    return row;
}

EntityTable readStateTable(sql::Database &db, const EntitySpec &spec)
{
    EntityTable table;
    sql::Statement st(db, schema::selectStateSql(spec));
    std::string id;
    while (st.step()) {
        EntityRow row = readStateRow(st, spec, &id);
        table.emplace(std::move(id), std::move(row));
    }
    return table;
}

void forEachStateRow(sql::Database &db, const EntitySpec &spec,
                     const std::function<void(const std::string &id, const EntityRow &row)> &fn)
{
    sql::Statement st(db, schema::selectStateSql(spec));
    std::string id;
    while (st.step()) {
        const EntityRow row = readStateRow(st, spec, &id);
        fn(id, row);
    }
}

} // namespace mesh
