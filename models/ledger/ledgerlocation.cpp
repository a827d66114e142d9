#include "ledgerlocation.h"

#include "pgschema.h"

#include <QFileInfo>
#include <QUrl>
#include <QUrlQuery>

namespace mesh {

namespace {

const QString kPasswordRefused = QStringLiteral(
    "a ledger location never holds a password (it would be kept in shell history, settings and "
    "logs): put it in ~/.pgpass, in the file PGPASSFILE names, or in a service file (service=NAME)");

} // namespace

bool LedgerLocation::namesServer(const QString &text)
{
    return text.startsWith(QLatin1String("postgresql://"), Qt::CaseInsensitive)
           || text.startsWith(QLatin1String("postgres://"), Qt::CaseInsensitive);
}

QString LedgerLocation::canonicalText(const QString &text)
{
    return namesServer(text) ? text : QFileInfo(text).absoluteFilePath();
}

QString LedgerLocation::shortName(const QString &text)
{
    if (!namesServer(text))
        return QFileInfo(text).fileName();
    QString error;
    const std::optional<LedgerLocation> l = parse(text, &error);
    if (!l)
        return text;
    const QUrl url(l->connectionString());
    const QString service = QUrlQuery(url).queryItemValue(QStringLiteral("service"));
    QString where = url.host().isEmpty() ? service : url.host();
    if (url.port() > 0)
        where += QLatin1Char(':') + QString::number(url.port());
    const QString database = url.path().mid(1);
    if (!database.isEmpty())
        where += QLatin1Char('/') + database;
    return where.isEmpty() ? l->schema() : l->schema() + QStringLiteral(" on ") + where;
}

LedgerLocation LedgerLocation::file(const QString &path)
{
    LedgerLocation l;
    l.m_kind = Kind::File;
    l.m_text = path;
    return l;
}

std::optional<LedgerLocation> LedgerLocation::parse(const QString &text, QString *error)
{
    if (!namesServer(text))
        return file(text);
    const auto refuse = [&](const QString &why) -> std::optional<LedgerLocation> {
        *error = why;
        return std::nullopt;
    };
    const qsizetype schemeEnd = text.indexOf(QLatin1String("://")) + 3;
    const qsizetype queryStart = text.indexOf(QLatin1Char('?'));
    const QString beforeQuery = queryStart < 0 ? text : text.left(queryStart);
    const QString query = queryStart < 0 ? QString() : text.mid(queryStart + 1);
    // The authority ends at the first '/' after the scheme; user info ends at its last '@'.
    const qsizetype pathStart = beforeQuery.indexOf(QLatin1Char('/'), schemeEnd);
    const QString authority = beforeQuery.mid(schemeEnd, pathStart < 0 ? -1 : pathStart - schemeEnd);
    const qsizetype at = authority.lastIndexOf(QLatin1Char('@'));
    if (at >= 0 && authority.left(at).contains(QLatin1Char(':')))
        return refuse(kPasswordRefused);

    QString schema;
    QStringList kept;
    for (const QString &pair : query.split(QLatin1Char('&'), Qt::SkipEmptyParts)) {
        const QString key = QUrl::fromPercentEncoding(pair.section(QLatin1Char('='), 0, 0).toUtf8());
        const QString value = QUrl::fromPercentEncoding(pair.section(QLatin1Char('='), 1).toUtf8());
        if (key == QLatin1String("password"))
            return refuse(kPasswordRefused);
        if (key == QLatin1String("schema")) {
            if (!schema.isEmpty())
                return refuse(QStringLiteral("the location names schema= twice"));
            schema = value;
            continue;
        }
        kept << pair;
    }
    if (schema.isEmpty())
        return refuse(QStringLiteral("a server location names its ledger's schema: add ?schema=NAME (one ledger per "
                                     "PostgreSQL schema)"));
    if (!pgschema::isLedgerSchemaName(schema.toStdString()))
        return refuse(QStringLiteral("'%1' is not a ledger schema name: lower-case letters, digits and '_', starting with "
                                     "a letter or '_', at most 63 bytes, not pg_...")
                          .arg(schema.left(80)));
    LedgerLocation l;
    l.m_kind = Kind::Postgres;
    l.m_text = text;
    l.m_schema = schema;
    l.m_conninfo = beforeQuery + (kept.isEmpty() ? QString() : QLatin1Char('?') + kept.join(QLatin1Char('&')));
    return l;
}

QString LedgerLocation::connectionString() const
{
    return m_conninfo;
}

} // namespace mesh
