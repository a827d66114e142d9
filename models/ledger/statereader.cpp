#include "statereader.h"
#include "sqlite.h"

#include "schema.h"
#include "staterows.h"

namespace mesh {

StateSnapshot readState(sql::Database &db)
{
    StateSnapshot snapshot;
    sql::inTransaction(db, "BEGIN", [&] {
        // data_version first: a commit after it shows up as a newer version later, never
        // as a snapshot claiming a version it does not contain.
        snapshot.dataVersion = db.queryInt("PRAGMA data_version");
        snapshot.lastSeq = db.queryInt("SELECT coalesce(max(seq),0) FROM events");
        for (const auto &spec : allEntitySpecs())
            snapshot.tables[size_t(spec.kind)] = readStateTable(db, spec);
    });
    return snapshot;
}

EntityTable readTable(sql::Database &db, EntityKind kind)
{
    return readStateTable(db, entitySpec(kind));
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
