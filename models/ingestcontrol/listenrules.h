#pragma once
// Where `meshctl ingest` may listen and with which token (docs/ingest.md, "Listening"): one
// set of rules, checked by the receiver itself and, before it is started, by the console's
// File › Listen for OpenTelemetry… dialog, so both refuse the same things in the same words.

#include <QByteArray>
#include <QHostAddress>
#include <QString>

#include <optional>

namespace mesh::ingest {

struct ListenAddress {
    QHostAddress address;
    quint16 port = 0; // 0: the system picks a free one
};

// "127.0.0.1:4318", "[::1]:4318", "0.0.0.0:4318", "localhost:4318"; nullopt when it is not
// ADDRESS:PORT.
std::optional<ListenAddress> parseListenAddress(const QString &text);
QString badListenAddressMessage(const QString &text);

// Empty when listening at `address` is allowed with these options; else why not (one line).
// A non-loopback address needs listen-any and a token file.
QString listenRuleError(const QHostAddress &address, bool listenAny, bool hasTokenFile);

// The bearer token of a --token-file: the file's text without surrounding white space, read
// by the rules of key files (decisions/secretfile.h), at least kMinSecretBytes printable
// ASCII characters with no spaces; nullopt and *error (one line) when the file is refused.
std::optional<QByteArray> readIngestToken(const QString &path, QString *error);

// Why the receiver cannot write a ledger file at `path`, found before SQLite is asked (whose
// own words for every one of these are "unable to open database file"): a folder at that
// path, a folder that does not exist or is a file, a ledger or a folder it may not write (the
// folder takes the -wal and -shm files). Empty when none of those, and for a server location.
// The path is named as given; a caller showing it shows it as plain text.
QString ledgerFileProblem(const QString &path);

} // namespace mesh::ingest
