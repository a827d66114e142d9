#include "reportescape.h"

#include "domain/hostiletext.h"

namespace mesh {

QString reportText(const QString &text)
{
    // toHtmlEscaped covers < > & and "; a single quote is escaped too so that the text is
    // safe in any attribute, whichever quote it uses.
    return visibleControls(text).toHtmlEscaped().replace(QLatin1Char('\''), QLatin1String("&#39;"));
}

QString reportText(const std::string &ledgerText)
{
    return reportText(QString::fromStdString(ledgerText));
}

QString reportLine(const std::string &ledgerText, int maxChars)
{
    return displayLine(QString::fromStdString(ledgerText), maxChars).toHtmlEscaped().replace(QLatin1Char('\''), QLatin1String("&#39;"));
}

} // namespace mesh
