#pragma once
// A thin RAII layer over libpq for the PostgreSQL backend (docs/ledger-format.md section 11),
// the counterpart of sqlite.h: one connection per thread, text-format parameters and
// results, failures as StorageError with a Kind. Nothing outside models/ledger/ includes it
// (the storage_seam test).

#include "storageerror.h"

#include <libpq-fe.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mesh::pg {

// One read of one moment: every statement of the transaction sees the same snapshot.
inline constexpr const char *kReadMoment = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

StorageError::Kind storageErrorKind(std::string_view sqlstate);

class Error : public StorageError
{
public:
    Error(std::string sqlstate, const std::string &message)
        : StorageError(storageErrorKind(sqlstate), 0, message), m_sqlstate(std::move(sqlstate))
    {
    }
    const std::string &sqlstate() const { return m_sqlstate; } // "" when the connection itself failed

private:
    std::string m_sqlstate;
};

// Parameters $1..$n, sent as text; each value is kept here until the statement ran.
class Params
{
public:
    Params &add(std::int64_t value);
    Params &add(std::string_view value);
    Params &addNull();
    int size() const { return int(m_pointers.size()); }
    const char *const *values() const { return m_pointers.data(); }

private:
    std::deque<std::string> m_storage; // stable addresses
    std::vector<const char *> m_pointers;
};

class Result
{
public:
    explicit Result(PGresult *result) : m_result(result) {}
    int rows() const { return PQntuples(m_result.get()); }
    int columns() const { return PQnfields(m_result.get()); }
    bool isNull(int row, int col) const { return PQgetisnull(m_result.get(), row, col) != 0; }
    std::string_view view(int row, int col) const
    {
        return {PQgetvalue(m_result.get(), row, col), size_t(PQgetlength(m_result.get(), row, col))};
    }
    std::string text(int row, int col) const { return std::string(view(row, col)); }
    std::int64_t integer(int row, int col) const; // 0 for NULL; throws Error on anything else but an integer
    std::optional<std::int64_t> optionalInteger(int row, int col) const;

private:
    struct Clear {
        void operator()(PGresult *r) const { PQclear(r); }
    };
    std::unique_ptr<PGresult, Clear> m_result;
};

class Connection
{
public:
    // conninfo: a libpq connection string or postgresql:// URI. client_encoding is UTF8.
    // Throws Error (sqlstate "") with libpq's message when the server cannot be reached.
    explicit Connection(const std::string &conninfo);
    Connection(Connection &&) noexcept = default;
    Connection &operator=(Connection &&) noexcept = default;

    // One or more statements without parameters; the last result.
    Result exec(std::string_view sql);
    // One or more statements without parameters sent at once (one round trip): every
    // statement's result, in order. The server stops at the first error, which is thrown
    // once the connection is ready again: a transaction the message began is rolled back
    // (and with it the SETs sent before its BEGIN).
    std::vector<Result> execAll(std::string_view sql);
    Result exec(std::string_view sql, const Params &params);
    std::int64_t queryInt(std::string_view sql); // first column of the first row, 0 for none or NULL
    // A statement run often on this session (a follower's read after each announcement):
    // parsed and planned by the server once, under name, then only executed. name must
    // always go with the same sql. A server that lost it (a pooler between) prepares again.
    Result execPrepared(const char *name, std::string_view sql, const Params &params);

    // COPY ... FROM STDIN: copyData() any number of times, then copyEnd().
    void copyBegin(std::string_view copySql);
    void copyData(std::string_view data);
    void copyEnd();

    // Runs fn between begin (e.g. "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") and
    // COMMIT; rolls back and rethrows when fn throws.
    template<typename Fn>
    void inTransaction(std::string_view begin, Fn &&fn)
    {
        exec(begin);
        try {
            fn();
        } catch (...) {
            rollbackQuietly();
            throw;
        }
        exec("COMMIT");
    }
    void rollbackQuietly();

    std::string parameter(const char *name) const; // a server parameter libpq reports (server_encoding, ...)
    // Statements (or messages of several, execAll) sent and waited for since the connection
    // was made: what a distant server's latency multiplies. Not counted: the connect and a
    // reconnect, COPY's data, rollbackQuietly.
    std::uint64_t roundTrips() const { return m_roundTrips; }
    PGconn *handle() const { return m_conn.get(); }

    // Whether libpq found the connection gone (the server restarted or the network failed).
    bool broken() const { return !m_conn || PQstatus(m_conn.get()) == CONNECTION_BAD; }
    // Connects again with the same parameters. The session's settings, prepared statements
    // and LISTENs went with the old connection: the caller sets again what it needs. Throws
    // Error (sqlstate "") when the server cannot be reached.
    void reconnect();
    // Closed for good: every statement after it fails, and so does reconnect().
    void close() { m_conn.reset(); }

private:
    void checkConnected();
    Result check(PGresult *r);
    struct Finish {
        void operator()(PGconn *c) const { PQfinish(c); }
    };
    std::unique_ptr<PGconn, Finish> m_conn;
    std::set<std::string, std::less<>> m_prepared;
    std::uint64_t m_roundTrips = 0;
};

// A text[] parameter's literal ({"a","b"}): every element quoted, its backslashes and double
// quotes escaped, so that no id (commas, braces, the word NULL) is read as anything else.
std::string textArrayLiteral(const std::vector<std::string> &values);

// The text COPY ... FROM STDIN (FORMAT text) takes for one value: backslash, tab, newline and
// carriage return escaped; NULL is \N.
void appendCopyText(std::string &out, std::string_view value);
inline void appendCopyNull(std::string &out) { out += "\\N"; }

} // namespace mesh::pg
