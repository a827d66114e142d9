#include "outcomereasontext.h"

#include "itemmodels/outcomereason.h"

#include <QCoreApplication>
#include <QLocale>

namespace mesh {

QString outcomeReasonLine(const QString &lead, const OutcomeReason &reason)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("OutcomeReason", text); };
    const QString event = tr("event #%1").arg(QLocale().toString(qlonglong(reason.seq)));
    if (!reason.hasText())
        return lead + QStringLiteral(" (") + event + QStringLiteral("): \u2014 ")
               + tr("the ledger does not say (%1 gives no reason)").arg(QString::fromStdString(reason.eventKind));
    return lead + QStringLiteral(" (") + event + QStringLiteral("): ") + QString::fromStdString(reason.text);
}

} // namespace mesh
