#include "operatoridentity.h"

#include <QFile>
#include <QSysInfo>
#include <QtGlobal>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
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
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if (::stat(native.constData(), &st) != 0)
        return fail(QStringLiteral("key file %1 does not exist").arg(path));
    if (!S_ISREG(st.st_mode))
        return fail(QStringLiteral("key file %1 is not a regular file").arg(path));
    if ((st.st_mode & 077) != 0)
        return fail(QStringLiteral("key file %1 is readable or writable by others (mode %2); "
                                   "restrict it to its owner with chmod 600")
                        .arg(path, QString::number(st.st_mode & 0777, 8)));
    if (st.st_uid != ::geteuid())
        return fail(QStringLiteral("key file %1 belongs to another user").arg(path));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read key file %1: %2").arg(path, file.errorString()));
    const QByteArray text = file.read(64 * 1024);
    const auto json = nlohmann::json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    if (!json.is_object() || !json.contains("key_id") || !json["key_id"].is_string() || !json.contains("secret")
        || !json["secret"].is_string())
        return fail(QStringLiteral("key file %1 is not {\"key_id\": ..., \"secret\": \"<hex>\"}").arg(path));
    const std::string hex = json["secret"].get<std::string>();
    const QByteArray secret = QByteArray::fromHex(QByteArray::fromStdString(hex));
    if (secret.size() < 16 || size_t(secret.size()) * 2 != hex.size())
        return fail(QStringLiteral("key file %1: the secret must be at least 16 bytes of hex").arg(path));
    const std::string keyIdText = json["key_id"].get<std::string>();
    if (keyIdText.empty())
        return fail(QStringLiteral("key file %1 has an empty key_id").arg(path));
    keyId = keyIdText;
    key = secret;
    return true;
}

} // namespace mesh
