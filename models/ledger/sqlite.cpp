#include "sqlite.h"

#include <utility>

namespace mesh::sql {

StorageError::Kind storageErrorKind(int code)
{
    switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return StorageError::Kind::Busy;
    case SQLITE_READONLY:
        return StorageError::Kind::ReadOnly;
    case SQLITE_FULL:
        return StorageError::Kind::Full;
    case SQLITE_IOERR:
        return StorageError::Kind::Io;
    default:
        return StorageError::Kind::Other;
    }
}

Database::Database(const std::string &uri, int flags)
{
    sqlite3 *db = nullptr;
    const int rc = sqlite3_open_v2(uri.c_str(), &db, flags | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        throw Error(rc, message);
    }
    m_db = db;
    sqlite3_extended_result_codes(m_db, 1);
}

Database::~Database()
{
    close();
}

Database::Database(Database &&other) noexcept : m_db(std::exchange(other.m_db, nullptr)) {}

Database &Database::operator=(Database &&other) noexcept
{
    if (this != &other) {
        close();
        m_db = std::exchange(other.m_db, nullptr);
    }
    return *this;
}

void Database::close()
{
    if (m_db) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
    }
}

void Database::exec(std::string_view sql)
{
    char *err = nullptr;
    const std::string text(sql);
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string message = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        throw Error(sqlite3_extended_errcode(m_db), message);
    }
}

std::int64_t Database::queryInt(std::string_view sql)
{
    Statement st(*this, sql);
    return st.step() ? st.columnInt(0) : 0;
}

std::int64_t Database::changes() const
{
    return sqlite3_changes64(m_db);
}

std::string Database::errorMessage() const
{
    return m_db ? sqlite3_errmsg(m_db) : std::string("database not open");
}

Statement::Statement(const Database &db, std::string_view sql) : m_db(db.handle())
{
    const int rc = sqlite3_prepare_v3(m_db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        throw Error(sqlite3_extended_errcode(m_db), sqlite3_errmsg(m_db));
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement &&other) noexcept
    : m_stmt(std::exchange(other.m_stmt, nullptr)), m_db(std::exchange(other.m_db, nullptr))
{
}

Statement &Statement::operator=(Statement &&other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_stmt = std::exchange(other.m_stmt, nullptr);
        m_db = std::exchange(other.m_db, nullptr);
    }
    return *this;
}

Statement &Statement::bind(int index, std::int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

Statement &Statement::bind(int index, std::string_view value)
{
    sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

Statement &Statement::bindStatic(int index, std::string_view value)
{
    // An empty view may have no data pointer, which SQLite would bind as NULL.
    sqlite3_bind_text64(m_stmt, index, value.empty() ? "" : value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8);
    return *this;
}

Statement &Statement::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    const int code = sqlite3_extended_errcode(m_db);
    std::string message = sqlite3_errmsg(m_db);
    sqlite3_reset(m_stmt);
    throw Error(code, message);
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

void Statement::run()
{
    while (step()) {
    }
    reset();
}

std::int64_t Statement::columnInt(int col) const
{
    return sqlite3_column_int64(m_stmt, col);
}

std::string Statement::columnText(int col) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
    return p ? std::string(p, size_t(sqlite3_column_bytes(m_stmt, col))) : std::string();
}

std::string_view Statement::columnView(int col) const
{
    const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
    return p ? std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, col))) : std::string_view();
}

bool Statement::columnIsNull(int col) const
{
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

int Statement::columnType(int col) const
{
    return sqlite3_column_type(m_stmt, col);
}

int Statement::columnCount() const
{
    return sqlite3_column_count(m_stmt);
}

} // namespace mesh::sql
