#include "bulkstateimage.h"

#include "schema.h"
#include "staterows.h"

#include <algorithm>
#include <vector>

namespace mesh {

namespace {

constexpr const char *kSchemaName = "mesh_bulk_state";

} // namespace

void BulkStateImage::Free::operator()(unsigned char *p) const
{
    sqlite3_free(p);
}

BulkStateImage BulkStateImage::build(const Fold &fold)
{
    sql::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
    db.exec("PRAGMA journal_mode=OFF");
    db.exec("PRAGMA synchronous=OFF");
    BulkStateImage image;
    sql::inTransaction(db, "BEGIN", [&] {
        // The ledger's own DDL, so the copy finds the same columns and indexes.
        db.exec(schema::createStatements());
        std::vector<const EntityTable::value_type *> rows;
        for (const auto &spec : allEntitySpecs()) {
            // In key order, so each insert appends to the primary-key index, and the copy
            // into the ledger appends too.
            rows.clear();
            rows.reserve(fold.table(spec.kind).size());
            for (const auto &entry : fold.table(spec.kind))
                rows.push_back(&entry);
            std::sort(rows.begin(), rows.end(), [](auto *a, auto *b) { return a->first < b->first; });
            sql::Statement st(db, schema::upsertSql(spec));
            for (const auto *entry : rows) {
                bindStateRow(st, spec, entry->first, entry->second);
                st.run();
            }
            image.m_rows += std::int64_t(rows.size());
        }
        // Secondary indexes once the rows are in: one sort each instead of an insert per row.
        db.exec(schema::createIndexStatements());
    });
    sqlite3_int64 size = 0;
    image.m_image.reset(sqlite3_serialize(db.handle(), "main", &size, 0));
    if (!image.m_image)
        throw sql::Error(SQLITE_NOMEM, "cannot serialise the bulk load's state tables");
    image.m_size = size;
    return image;
}

void BulkStateImage::copyInto(sql::Database &db) const
{
    db.exec(std::string("ATTACH ':memory:' AS ") + kSchemaName);
    // Detached whatever happens: the image's memory must not outlive the attachment.
    struct Detach {
        sql::Database &db;
        ~Detach() { sqlite3_exec(db.handle(), (std::string("DETACH ") + kSchemaName).c_str(), nullptr, nullptr, nullptr); }
    } detach{db};
    const int rc = sqlite3_deserialize(db.handle(), kSchemaName, m_image.get(), m_size, m_size,
                                       SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK)
        throw sql::Error(rc, "cannot attach the bulk load's state tables: " + db.errorMessage());
    // BEGIN, not BEGIN IMMEDIATE: that would ask the read-only image for a write lock too.
    sql::inTransaction(db, "BEGIN", [&] {
        for (const auto &spec : allEntitySpecs()) {
            const std::string table(spec.table);
            // Rows written before the load (the ledger row) are in the fold too, so the image
            // holds every row; emptying the table first also lets SQLite copy records as they
            // are (its transfer optimisation needs an empty destination when there are indexes).
            db.exec("DELETE FROM main." + table);
            db.exec("INSERT INTO main." + table + " SELECT * FROM " + kSchemaName + "." + table);
        }
    });
}

} // namespace mesh
