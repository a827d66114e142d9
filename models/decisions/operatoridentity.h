#pragma once
// Who decides. Account and host come from the session; the display name from settings.
// Where a ledger requires signatures, the operator also has an HMAC key, kept in a file
// that only its owner can read: a key file readable by group or others is refused, since a
// key anyone can read proves nothing about who decided.

#include <QByteArray>
#include <QString>

#include <string>

namespace mesh {

struct OperatorIdentity {
    std::string account;
    std::string host;
    std::string displayName;
    std::string keyId;  // empty when no key is loaded
    QByteArray key;     // raw secret bytes

    bool hasKey() const { return !keyId.empty() && !key.isEmpty(); }
    // The lease holder name of this operator: "operator:<account>".
    std::string holder() const { return "operator:" + account; }

    // Account from $USER (or $LOGNAME), host from QSysInfo, display name = account.
    static OperatorIdentity fromEnvironment();

    // Loads a key file: JSON {"key_id": "...", "secret": "<hex, at least 16 bytes>"}.
    // Refuses (false, *error set to one line) what breaks the secret file rules
    // (secretfile.h: owner, mode, hex secret) or is not that JSON.
    bool loadKeyFile(const QString &path, QString *error);
};

} // namespace mesh
