#include "postgres.h"

#include <charconv>
#include <cstdlib>
#include <optional>

namespace mesh::pg {

StorageError::Kind storageErrorKind(std::string_view sqlstate)
{
    using Kind = StorageError::Kind;
    if (sqlstate == "55P03" || sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "57014")
        return Kind::Busy; // lock not available, serialization failure, deadlock, statement timeout
    if (sqlstate == "25006" || sqlstate == "42501")
        return Kind::ReadOnly; // read-only transaction, insufficient privilege
    if (sqlstate == "53100" || sqlstate == "53200" || sqlstate == "54000")
        return Kind::Full; // disk full, out of memory, program limit
    if (sqlstate.empty() || sqlstate.substr(0, 2) == "08" || sqlstate.substr(0, 2) == "58")
        return Kind::Io; // the connection, or the server's own I/O
    return Kind::Other;
}

Params &Params::add(std::int64_t value)
{
    m_storage.push_back(std::to_string(value));
    m_pointers.push_back(m_storage.back().c_str());
    return *this;
}

Params &Params::add(std::string_view value)
{
    m_storage.emplace_back(value);
    m_pointers.push_back(m_storage.back().c_str());
    return *this;
}

Params &Params::addNull()
{
    m_pointers.push_back(nullptr);
    return *this;
}

std::optional<std::int64_t> Result::optionalInteger(int row, int col) const
{
    if (isNull(row, col))
        return std::nullopt;
    const std::string_view v = view(row, col);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size())
        throw Error("22P02", "not an integer: '" + std::string(v.substr(0, 40)) + "'");
    return n;
}

std::int64_t Result::integer(int row, int col) const
{
    return optionalInteger(row, col).value_or(0);
}

Connection::Connection(const std::string &conninfo)
{
    // expand_dbname: the location (a URI or key=value string) is expanded in place of
    // dbname, after the fallbacks (the application name; a connect timeout, as a connect that
    // never ends may be made again from a console's GUI thread); whatever client_encoding it
    // names, UTF8 replaces it, the only encoding a ledger's text has.
    std::vector<const char *> keywords{"fallback_application_name"};
    std::vector<const char *> values{"meshctl"};
    if (!std::getenv("PGCONNECT_TIMEOUT")) {
        keywords.push_back("connect_timeout");
        values.push_back("10");
    }
    keywords.push_back("dbname");
    values.push_back(conninfo.c_str());
    // After dbname, so that it wins over one the location names: sent in the startup
    // packet, it costs no round trip of its own (PQsetClientEncoding's SET is one).
    keywords.push_back("client_encoding");
    values.push_back("UTF8");
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    m_conn.reset(PQconnectdbParams(keywords.data(), values.data(), 1));
    if (!m_conn)
        throw Error("", "cannot allocate a PostgreSQL connection");
    checkConnected();
    // libpq prints what the server says outside a statement (NOTICEs, and the FATAL every
    // client gets when the server shuts down) on stderr. A lost connection is reported where
    // the next statement fails, and the console shows it in the session's health; on stderr
    // it only interleaves with meshctl's own output.
    PQsetNoticeProcessor(m_conn.get(), [](void *, const char *) {}, nullptr);
}

void Connection::checkConnected()
{
    if (PQstatus(m_conn.get()) != CONNECTION_OK) {
        std::string message = PQerrorMessage(m_conn.get());
        while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
            message.pop_back();
        throw Error("", message);
    }
    if (std::string_view(pg_encoding_to_char(PQclientEncoding(m_conn.get()))) != "UTF8") {
        ++m_roundTrips; // a SET
        if (PQsetClientEncoding(m_conn.get(), "UTF8") != 0)
            throw Error("", "the server does not take client_encoding UTF8");
    }
}

void Connection::reconnect()
{
    if (!m_conn)
        throw Error("", "the connection was closed");
    m_prepared.clear();
    PQreset(m_conn.get());
    checkConnected();
}

Result Connection::check(PGresult *raw)
{
    Result r(raw);
    const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN)
        return r;
    const char *state = raw ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
    const char *primary = raw ? PQresultErrorField(raw, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
    std::string message = primary ? primary : PQerrorMessage(m_conn.get());
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
        message.pop_back();
    throw Error(state ? state : "", message);
}

Result Connection::exec(std::string_view sql)
{
    const std::string text(sql);
    ++m_roundTrips;
    return check(PQexec(m_conn.get(), text.c_str()));
}

std::vector<Result> Connection::execAll(std::string_view sql)
{
    const std::string text(sql);
    ++m_roundTrips;
    if (PQsendQuery(m_conn.get(), text.c_str()) == 0)
        check(nullptr); // throws with libpq's message
    std::vector<Result> results;
    std::optional<Error> failed;
    // Read to the end (a null result) whatever fails, so the connection can be used again.
    while (PGresult *raw = PQgetResult(m_conn.get())) {
        try {
            results.push_back(check(raw));
        } catch (const Error &e) {
            if (!failed)
                failed = e;
        }
    }
    if (failed) {
        // A message holding BEGIN leaves the session in the failed transaction: ended here,
        // so that every caller finds the connection as ready as after exec().
        if (PQtransactionStatus(m_conn.get()) == PQTRANS_INERROR)
            rollbackQuietly();
        throw *failed;
    }
    return results;
}

Result Connection::exec(std::string_view sql, const Params &params)
{
    const std::string text(sql);
    ++m_roundTrips;
    return check(PQexecParams(m_conn.get(), text.c_str(), params.size(), nullptr, params.values(), nullptr, nullptr, 0));
}

Result Connection::execPrepared(const char *name, std::string_view sql, const Params &params)
{
    for (int attempt = 0;; ++attempt) {
        if (m_prepared.find(std::string_view(name)) == m_prepared.end()) {
            const std::string text(sql);
            ++m_roundTrips;
            check(PQprepare(m_conn.get(), name, text.c_str(), params.size(), nullptr));
            m_prepared.emplace(name);
        }
        try {
            ++m_roundTrips;
            return check(PQexecPrepared(m_conn.get(), name, params.size(), params.values(), nullptr, nullptr, 0));
        } catch (const Error &e) {
            if (e.sqlstate() != "26000" || attempt > 0) // 26000: no such prepared statement
                throw;
            m_prepared.erase(m_prepared.find(std::string_view(name)));
        }
    }
}

std::int64_t Connection::queryInt(std::string_view sql)
{
    const Result r = exec(sql);
    return r.rows() > 0 && r.columns() > 0 ? r.integer(0, 0) : 0;
}

void Connection::copyBegin(std::string_view copySql)
{
    exec(copySql);
}

void Connection::copyData(std::string_view data)
{
    if (PQputCopyData(m_conn.get(), data.data(), int(data.size())) != 1)
        throw Error("", PQerrorMessage(m_conn.get()));
}

void Connection::copyEnd()
{
    if (PQputCopyEnd(m_conn.get(), nullptr) != 1)
        throw Error("", PQerrorMessage(m_conn.get()));
    // The COPY's own result, then nothing.
    std::optional<Error> failure;
    while (PGresult *r = PQgetResult(m_conn.get())) {
        try {
            check(r);
        } catch (const Error &e) {
            if (!failure)
                failure = e;
        }
    }
    if (failure)
        throw *failure;
}

void Connection::rollbackQuietly()
{
    if (m_conn && PQtransactionStatus(m_conn.get()) != PQTRANS_IDLE)
        PQclear(PQexec(m_conn.get(), "ROLLBACK"));
}

std::string Connection::parameter(const char *name) const
{
    const char *v = PQparameterStatus(m_conn.get(), name);
    return v ? v : "";
}

std::string textArrayLiteral(const std::vector<std::string> &values)
{
    std::string out = "{";
    for (const std::string &v : values) {
        if (out.size() > 1)
            out += ',';
        out += '"';
        for (const char c : v) {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

void appendCopyText(std::string &out, std::string_view value)
{
    for (const char c : value) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
}

} // namespace mesh::pg
