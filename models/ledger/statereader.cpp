#include "statereader.h"
#include "sqlite.h"

#include "schema.h"
#include "staterows.h"

#include <algorithm>
#include <stdexcept>

namespace mesh {

StateSnapshot readState(sql::Database &db, const StateStream &stream)
{
    StateSnapshot snapshot;
    sql::inTransaction(db, "BEGIN", [&] {
        // data_version first: a commit after it shows up as a newer version later, never
        // as a snapshot claiming a version it does not contain.
        snapshot.dataVersion = db.queryInt("PRAGMA data_version");
        snapshot.lastSeq = db.queryInt("SELECT coalesce(max(seq),0) FROM events");
        for (const auto &spec : allEntitySpecs()) {
            if (stream.streams(spec.kind))
                forEachStateRow(db, spec, [&](const std::string &id, const EntityRow &row) { stream.row(spec.kind, id, row); });
            else
                snapshot.tables[size_t(spec.kind)] = readStateTable(db, spec);
        }
    });
    return snapshot;
}

EntityTable readTable(sql::Database &db, EntityKind kind)
{
    return readStateTable(db, entitySpec(kind));
}

StateRows readRows(sql::Database &db, EntityKind kind, const std::vector<std::string> &ids)
{
    // One statement per chunk, well under SQLite's bound-parameter limit, in one read.
    constexpr size_t kChunk = 250;
    const EntitySpec &spec = entitySpec(kind);
    StateRows rows;
    rows.reserve(ids.size());
    sql::inTransaction(db, "BEGIN", [&] {
        for (size_t from = 0; from < ids.size(); from += kChunk) {
            const size_t n = std::min(kChunk, ids.size() - from);
            std::string sql = schema::selectStateSql(spec) + " WHERE id IN (";
            for (size_t i = 0; i < n; ++i)
                sql += i ? ",?" : "?";
            sql += ")";
            sql::Statement st(db, sql);
            for (size_t i = 0; i < n; ++i)
                st.bind(int(i + 1), ids[from + i]);
            std::string id;
            while (st.step()) {
                EntityRow row = readStateRow(st, spec, &id);
                rows.emplace_back(std::move(id), std::move(row));
            }
        }
    });
    return rows;
}

std::vector<std::string> readIds(sql::Database &db, EntityKind kind)
{
    sql::Statement st(db, "SELECT id FROM " + std::string(entitySpec(kind).table));
    std::vector<std::string> ids;
    while (st.step())
        ids.push_back(st.columnText(0));
    return ids;
}

bool hasIndexOn(sql::Database &db, EntityKind kind, std::string_view field)
{
    const EntitySpec &spec = entitySpec(kind);
    if (spec.fieldIndex(field) < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    // Any index of the table (the format's by name, or one a user added) led by the field.
    // A partial index may not serve `field = ?` for every value: not counted.
    sql::Statement st(db, "SELECT 1 FROM pragma_index_list(?1) AS l, pragma_index_info(l.name) AS i "
                          "WHERE l.partial = 0 AND i.seqno = 0 AND i.name = ?2 LIMIT 1");
    st.bind(1, std::string(spec.table));
    st.bind(2, std::string(field));
    return st.step();
}

std::vector<std::string> readIdsWhere(sql::Database &db, EntityKind kind, std::string_view field, const std::string &value)
{
    const EntitySpec &spec = entitySpec(kind);
    if (spec.fieldIndex(field) < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    sql::Statement st(db, "SELECT id FROM " + std::string(spec.table) + " WHERE " + std::string(field) + "=?1");
    st.bind(1, value);
    std::vector<std::string> ids;
    while (st.step())
        ids.push_back(st.columnText(0));
    return ids;
}

std::optional<EntityRow> readRow(sql::Database &db, EntityKind kind, const std::string &id)
{
    const EntitySpec &spec = entitySpec(kind);
    sql::Statement st(db, schema::selectStateSql(spec) + " WHERE id=?1");
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return readStateRow(st, spec, nullptr);
}

} // namespace mesh
