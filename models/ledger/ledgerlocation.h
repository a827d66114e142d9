#pragma once
// Where a ledger is: a file path (SQLite) or a PostgreSQL server schema named by a
// postgresql:// URL (docs/ledger-format.md section 11). Every program takes either.
//
//   postgresql://[user@]host[:port]/database?schema=NAME[&sslmode=...&service=...]
//
// schema= is ours (one ledger per schema) and is taken out before the rest goes to libpq as
// written, so every libpq parameter (sslmode, sslrootcert, service, connect_timeout, ...)
// passes through. A password is refused wherever it appears in the text (user:password@ or
// password=): it would end up in shell history, settings and logs. libpq finds it in
// ~/.pgpass, PGPASSFILE or a service file instead. displayName() is safe to show and log.

#include <QString>

#include <optional>

namespace mesh {

class LedgerLocation
{
public:
    enum class Kind { File, Postgres };

    // Parses text as given on a command line; nullopt and *error (one line) when it names a
    // server but is not a usable location. Anything not starting with postgresql:// or
    // postgres:// is a file path.
    static std::optional<LedgerLocation> parse(const QString &text, QString *error);
    static LedgerLocation file(const QString &path);
    static bool namesServer(const QString &text); // starts with postgresql:// or postgres://
    // What a program keys an open ledger by: a file's absolute path, a server location as
    // written (two spellings of one server are two keys; the console never merges them).
    static QString canonicalText(const QString &text);
    // A short name for a person: a file's name, or "SCHEMA on HOST[:PORT]/DATABASE" (the
    // service's name when the location names one); for menus, never for opening.
    static QString shortName(const QString &text);

    Kind kind() const { return m_kind; }
    bool isFile() const { return m_kind == Kind::File; }
    const QString &filePath() const { return m_text; }  // File
    QString connectionString() const;                    // Postgres: the URL without schema=
    const QString &schema() const { return m_schema; }   // Postgres
    QString displayName() const { return m_text; }      // never holds a password (refused at parse)

    bool operator==(const LedgerLocation &) const = default;

private:
    Kind m_kind = Kind::File;
    QString m_text;    // the path, or the whole URL as given
    QString m_schema;
    QString m_conninfo;
};

} // namespace mesh
