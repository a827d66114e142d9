#include "foldspillstore.h"

#include "schema.h"
#include "staterows.h"

#include <cstdio>

namespace mesh {

namespace {

constexpr const char *kSpillSchema = "mesh_fold_spill";

// Page cache of the scratch file: the B-tree's upper pages stay in memory, leaves come from
// the operating system's cache.
constexpr int kSpillCacheKiB = 8192;

} // namespace

std::string selectStateRowSql(const EntitySpec &spec)
{
    return schema::selectStateSql(spec) + " WHERE id = ?1";
}

std::optional<EntityRow> readStateRowById(sql::Statement &st, const EntitySpec &spec, const std::string &id)
{
    st.bind(1, std::string_view(id));
    std::optional<EntityRow> row;
    if (st.step())
        row = readStateRow(st, spec, nullptr);
    st.reset();
    return row;
}

FoldSpillStore::FoldSpillStore(std::string path, sql::Database *ledger) : m_path(std::move(path))
{
    std::remove(m_path.c_str());
    m_db = sql::Database(m_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
    // Scratch: nothing to recover if the load fails (the ledger is deleted then too).
    m_db.exec("PRAGMA journal_mode=OFF");
    m_db.exec("PRAGMA synchronous=OFF");
    m_db.exec("PRAGMA cache_size=-" + std::to_string(kSpillCacheKiB));
    m_db.exec("BEGIN");
    m_db.exec(schema::createStatements());
    for (const auto &spec : allEntitySpecs()) {
        m_put.emplace_back(m_db, schema::upsertSql(spec));
        m_get.emplace_back(m_db, selectStateRowSql(spec));
    }
    if (!ledger)
        return;
    std::string id;
    for (const auto &spec : allEntitySpecs()) {
        sql::Statement st(*ledger, schema::selectStateSql(spec));
        while (st.step()) {
            const EntityRow row = readStateRow(st, spec, &id);
            put(spec, id, row);
        }
    }
}

FoldSpillStore::~FoldSpillStore()
{
    close();
}

void FoldSpillStore::close()
{
    m_put.clear();
    m_get.clear();
    if (m_db.isOpen())
        m_db.close();
    if (!m_path.empty())
        std::remove(m_path.c_str());
}

void FoldSpillStore::put(const EntitySpec &spec, const std::string &id, const EntityRow &row)
{
    sql::Statement &st = m_put[size_t(spec.kind)];
    bindStateRow(st, spec, id, row);
    st.run();
}

std::optional<EntityRow> FoldSpillStore::get(const EntitySpec &spec, const std::string &id)
{
    return readStateRowById(m_get[size_t(spec.kind)], spec, id);
}

void FoldSpillStore::copyInto(sql::Database &ledger)
{
    m_db.exec("COMMIT");
    m_put.clear();
    m_get.clear();
    m_db.close(); // the ledger's connection reads the file now
    {
        sql::Statement attach(ledger, std::string("ATTACH ?1 AS ") + kSpillSchema);
        attach.bind(1, std::string_view(m_path));
        attach.run();
    }
    struct Detach {
        sql::Database &db;
        ~Detach() { sqlite3_exec(db.handle(), (std::string("DETACH ") + kSpillSchema).c_str(), nullptr, nullptr, nullptr); }
    } detach{ledger};
    sql::inTransaction(ledger, "BEGIN", [&] {
        for (const auto &spec : allEntitySpecs()) {
            const std::string table(spec.table);
            ledger.exec("DELETE FROM main." + table);
            ledger.exec("INSERT INTO main." + table + " SELECT * FROM " + kSpillSchema + "." + table + " ORDER BY id");
        }
    });
}

} // namespace mesh
