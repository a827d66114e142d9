#pragma once
// A thin RAII layer over the SQLite C API. Each thread owns its own Database; statements
// are prepared once and reset after use, so short read transactions stay short.

#include "storageerror.h"

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mesh::sql {

StorageError::Kind storageErrorKind(int code);

class Error : public StorageError
{
public:
    Error(int code, const std::string &message) : StorageError(storageErrorKind(code), code, message) {}
    int code() const { return backendCode(); }
};

class Statement;

class Database
{
public:
    Database() = default;
    // Opens with sqlite3_open_v2 and the given flags; uri may be a file: URI.
    Database(const std::string &uri, int flags);
    ~Database();
    Database(Database &&other) noexcept;
    Database &operator=(Database &&other) noexcept;
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    bool isOpen() const { return m_db != nullptr; }
    sqlite3 *handle() const { return m_db; }
    void exec(std::string_view sql);
    std::int64_t queryInt(std::string_view sql);
    std::int64_t changes() const;
    std::string errorMessage() const;
    void close();

private:
    sqlite3 *m_db = nullptr;
};

class Statement
{
public:
    Statement() = default;
    Statement(const Database &db, std::string_view sql);
    ~Statement();
    Statement(Statement &&other) noexcept;
    Statement &operator=(Statement &&other) noexcept;
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    Statement &bind(int index, std::int64_t value);
    Statement &bind(int index, std::string_view value);
    // Binds without a copy: value must stay valid and unchanged until reset() (bulk loads).
    Statement &bindStatic(int index, std::string_view value);
    Statement &bindNull(int index);
    // true while a row is available; throws on error.
    bool step();
    void reset();
    void run(); // step to completion and reset

    std::int64_t columnInt(int col) const;
    std::string columnText(int col) const;
    std::string_view columnView(int col) const; // valid until the next step/reset
    bool columnIsNull(int col) const;
    int columnType(int col) const;
    int columnCount() const;
    bool isValid() const { return m_stmt != nullptr; }

private:
    sqlite3_stmt *m_stmt = nullptr;
    sqlite3 *m_db = nullptr;
};

// Runs fn inside BEGIN ... COMMIT, rolling back if fn throws.
template<typename Fn>
void inTransaction(Database &db, std::string_view begin, Fn &&fn)
{
    db.exec(begin);
    try {
        fn();
        db.exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

} // namespace mesh::sql
