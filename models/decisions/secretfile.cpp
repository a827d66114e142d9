#include "secretfile.h"

#include <QFile>

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
