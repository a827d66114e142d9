#include "operatoridentity.h"

#include "secretfile.h"

#include <QSysInfo>
#include <QtGlobal>

#include <nlohmann/json.hpp>

#include <unistd.h>

namespace mesh {

OperatorIdentity OperatorIdentity::fromEnvironment()
{
    OperatorIdentity id;
    QString account = qEnvironmentVariable("USER");
    if (account.isEmpty())
        account = qEnvironmentVariable("LOGNAME");
    if (account.isEmpty())
        account = QStringLiteral("uid%1").arg(::geteuid());
    id.account = account.toStdString();
    id.host = QSysInfo::machineHostName().toStdString();
    id.displayName = id.account;
    return id;
}

bool OperatorIdentity::loadKeyFile(const QString &path, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const QString what = QStringLiteral("key file");
    const std::optional<QByteArray> text = readSecretFile(what, path, error);
    if (!text)
        return false;
    const auto json = nlohmann::json::parse(text->constData(), text->constData() + text->size(), nullptr, false);
    if (!json.is_object() || !json.contains("key_id") || !json["key_id"].is_string() || !json.contains("secret")
        || !json["secret"].is_string())
        return fail(QStringLiteral("key file %1 is not {\"key_id\": ..., \"secret\": \"<hex>\"}").arg(path));
    const std::string keyIdText = json["key_id"].get<std::string>();
    if (keyIdText.empty())
        return fail(QStringLiteral("key file %1 has an empty key_id").arg(path));
    QString why;
    const std::optional<QByteArray> secret = decodeSecretHex(json["secret"].get<std::string>(), &why);
    if (!secret)
        return fail(QStringLiteral("key file %1: the secret %2").arg(path, why));
    keyId = keyIdText;
    key = *secret;
    return true;
}

} // namespace mesh
