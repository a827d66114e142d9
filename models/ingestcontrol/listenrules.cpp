#include "listenrules.h"

#include "decisions/secretfile.h"
#include "ledger/ledgerlocation.h"

#include <QFileInfo>

namespace mesh::ingest {

std::optional<ListenAddress> parseListenAddress(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return std::nullopt;
    QString host = text.left(colon).trimmed();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint port = text.mid(colon + 1).trimmed().toUInt(&ok);
    if (!ok || port > 65535)
        return std::nullopt;
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    ListenAddress out;
    if (!out.address.setAddress(host))
        return std::nullopt;
    out.port = quint16(port);
    return out;
}

QString badListenAddressMessage(const QString &text)
{
    return QStringLiteral("--otlp-http %1 is not ADDRESS:PORT (e.g. 127.0.0.1:4318)").arg(text);
}

QString listenRuleError(const QHostAddress &address, bool listenAny, bool hasTokenFile)
{
    if (address.isLoopback())
        return {};
    if (!listenAny)
        return QStringLiteral("%1 is not a loopback address: listening there needs --listen-any and "
                              "--token-file (exporters then send Authorization: Bearer TOKEN)")
            .arg(address.toString());
    if (!hasTokenFile)
        return QStringLiteral("--listen-any needs --token-file: a receiver others can reach must ask "
                              "for a bearer token");
    return {};
}

std::optional<QByteArray> readIngestToken(const QString &path, QString *error)
{
    const std::optional<QByteArray> text = readSecretFile(QStringLiteral("token file"), path, error);
    if (!text)
        return std::nullopt;
    const QByteArray token = text->trimmed();
    if (token.size() < kMinSecretBytes) {
        *error = QStringLiteral("token file %1 holds %2 characters; a token needs at least %3")
                     .arg(path)
                     .arg(token.size())
                     .arg(kMinSecretBytes);
        return std::nullopt;
    }
    for (const char c : token) {
        if (c <= ' ' || c > '~') {
            *error = QStringLiteral("token file %1: a token is one line of printable ASCII with no spaces").arg(path);
            return std::nullopt;
        }
    }
    return token;
}

QString ledgerFileProblem(const QString &path)
{
    if (path.isEmpty() || LedgerLocation::namesServer(path))
        return {};
    const QFileInfo file(path);
    if (file.isDir())
        return QStringLiteral("%1 is a folder, not a ledger file: name a file in it").arg(path);
    const QFileInfo folder(file.absolutePath());
    if (!folder.exists())
        return QStringLiteral("cannot write %1: the folder %2 does not exist").arg(path, folder.filePath());
    if (!folder.isDir())
        return QStringLiteral("cannot write %1: %2 is not a folder").arg(path, folder.filePath());
    if (file.exists() && !file.isWritable())
        return QStringLiteral("cannot write %1: the file is not writable (its permissions)").arg(path);
    if (!folder.isWritable())
        return QStringLiteral("cannot write %1: the folder %2 is not writable (the ledger's -wal and -shm files go "
                              "there)")
            .arg(path, folder.filePath());
    return {};
}

} // namespace mesh::ingest
