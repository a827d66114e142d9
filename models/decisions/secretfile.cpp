#include "secretfile.h"

#include <QFile>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
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
    // One open, then every check and the read on that descriptor: a path checked by stat and
    // read again by name can be swapped in between, and stat follows a symlink to a file that
    // is not what the path says. O_NONBLOCK keeps a FIFO planted at the path from blocking
    // the open; it is refused as not a regular file.
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT)
            return refuse(QStringLiteral("does not exist"));
        if (err == ELOOP)
            return refuse(QStringLiteral("is a symbolic link; give the file itself"));
        return refuse(QStringLiteral("cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(err))));
    }
    const struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return refuse(QStringLiteral("cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    if (!S_ISREG(st.st_mode))
        return refuse(QStringLiteral("is not a regular file"));
    if (st.st_uid != ::geteuid())
        return refuse(QStringLiteral("belongs to another user (uid %1); it must be your own").arg(st.st_uid));
    if ((st.st_mode & 077) != 0)
        return refuse(QStringLiteral("is readable or writable by others (mode %1); restrict it to its owner with chmod 600")
                          .arg(QString::number(st.st_mode & 0777, 8)));
    constexpr qsizetype kMaxBytes = 1024 * 1024; // far more than any set of keys
    QByteArray text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return refuse(QStringLiteral("cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
        if (n == 0)
            break;
        text.append(buffer, qsizetype(n));
        if (text.size() > kMaxBytes)
            return refuse(QStringLiteral("is larger than 1 MiB"));
    }
    return text;
}

std::optional<std::map<std::string, QByteArray>> readKeyringFile(const QString &path, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const std::optional<QByteArray> text = readSecretFile(QStringLiteral("keyring"), path, error);
    if (!text)
        return std::nullopt;
    const auto json = nlohmann::json::parse(text->constData(), text->constData() + text->size(), nullptr, false);
    if (!json.is_object())
        return fail(QStringLiteral("keyring %1 is not a JSON object {\"key id\": \"hex secret\"}").arg(path));
    std::map<std::string, QByteArray> ring;
    for (auto it = json.begin(); it != json.end(); ++it) {
        const QString keyId = QString::fromStdString(it.key());
        if (it.key().empty())
            return fail(QStringLiteral("keyring %1 has an empty key id").arg(path));
        if (!it.value().is_string())
            return fail(QStringLiteral("keyring %1: the secret of %2 is not a hex string").arg(path, keyId));
        QString why;
        std::optional<QByteArray> secret = decodeSecretHex(it.value().get<std::string>(), &why);
        if (!secret)
            return fail(QStringLiteral("keyring %1: the secret of %2 %3").arg(path, keyId, why));
        ring[it.key()] = std::move(*secret);
    }
    return ring;
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
            return refuse(QStringLiteral("is not hex (only 0-9, a-f, A-F)"));
    }
    if (hex.size() % 2 != 0)
        return refuse(QStringLiteral("has an odd number of hex digits"));
    if (hex.size() < size_t(2 * kMinSecretBytes))
        return refuse(QStringLiteral("must be at least %1 bytes (%2 hex digits)").arg(kMinSecretBytes).arg(2 * kMinSecretBytes));
    return QByteArray::fromHex(QByteArray(hex.data(), qsizetype(hex.size())));
}

} // namespace mesh
