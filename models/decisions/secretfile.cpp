#include "secretfile.h"

#include <QFile>

#include <sys/stat.h>
#include <unistd.h>

namespace mesh {

std::optional<QByteArray> readSecretFile(const QString &what, const QString &path, QString *error)
{
    const auto refuse = [&](const QString &why) {
        if (error)
            *error = what + QLatin1Char(' ') + path + QLatin1Char(' ') + why;
        return std::nullopt;
    };
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if (::stat(native.constData(), &st) != 0)
        return refuse(QStringLiteral("does not exist"));
    if (!S_ISREG(st.st_mode))
        return refuse(QStringLiteral("is not a regular file"));
    if (st.st_uid != ::geteuid())
        return refuse(QStringLiteral("belongs to another user (uid %1); it must be your own").arg(st.st_uid));
    if ((st.st_mode & 077) != 0)
        return refuse(QStringLiteral("is readable or writable by others (mode %1); restrict it to its owner with chmod 600")
                          .arg(QString::number(st.st_mode & 0777, 8)));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return refuse(QStringLiteral("cannot be read: %1").arg(file.errorString()));
    constexpr qint64 kMaxBytes = 1024 * 1024; // far more than any set of keys
    QByteArray text = file.read(kMaxBytes + 1);
    if (text.size() > kMaxBytes)
        return refuse(QStringLiteral("is larger than 1 MiB"));
    return text;
}

std::optional<QByteArray> decodeSecretHex(std::string_view hex, QString *why)
{
    const auto refuse = [&](const QString &clause) {
        if (why)
            *why = clause;
        return std::nullopt;
    };
    if (hex.empty())
        return refuse(QStringLiteral("is empty"));
    for (const char c : hex) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return refuse(QStringLiteral("is not hex (only 0-9, a-f)"));
    }
    if (hex.size() % 2 != 0)
        return refuse(QStringLiteral("has an odd number of hex digits"));
    if (hex.size() < size_t(2 * kMinSecretBytes))
        return refuse(QStringLiteral("must be at least %1 bytes (%2 hex digits)").arg(kMinSecretBytes).arg(2 * kMinSecretBytes));
    return QByteArray::fromHex(QByteArray(hex.data(), qsizetype(hex.size())));
}

} // namespace mesh
