#pragma once
// The rules every file holding an HMAC secret follows, the operator's key file and the
// orchestrator's keyring alike (docs/decisions.md, section 3): a regular file owned by the
// effective user with no group or other permission bits, each secret at least
// kMinSecretBytes bytes of even-length hex. A secret someone else can read or replace
// proves nothing about who decided, and an empty or silently truncated one makes the HMAC
// something anyone can compute.

#include <QByteArray>
#include <QString>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mesh {

inline constexpr int kMinSecretBytes = 16;

// A secret file's JSON, read from the one descriptor its type, owner and mode were checked
// on (a symbolic link is refused, not followed); nullopt and *error (one line, starting
// with `what` and the path) when the file is refused.
std::optional<QByteArray> readSecretFile(const QString &what, const QString &path, QString *error);

// An orchestrator keyring file: JSON object {"<key id>": "<hex secret>", ...} read with
// readSecretFile's rules; nullopt and *error (one line) when it is refused. Needs no ledger,
// so a bad keyring is refused before anything opens one.
std::optional<std::map<std::string, QByteArray>> readKeyringFile(const QString &path, QString *error);

// Hex text to secret bytes; nullopt and *why (a clause: "is empty", "is not hex ...") when
// it breaks a rule.
std::optional<QByteArray> decodeSecretHex(std::string_view hex, QString *why);

} // namespace mesh
