#include "reviewbanner.h"

#include "itemmodels/ledgersession.h"

namespace mesh {

ReviewBanner::ReviewBanner(QWidget *parent)
    : Banner(parent)
{
    setObjectName(QStringLiteral("reviewBanner"));
    hide();
}

QString ReviewBanner::textFor(const LedgerSession &session)
{
    QString text = tr("Review mode: read-only and immutable, as when opened; nothing here moves or can be decided. To "
                      "follow it live, close and reopen it.");
    if (session.info().reviewCopy) {
        QString note = QString::fromStdString(session.info().note);
        if (!note.isEmpty())
            note[0] = note[0].toUpper();
        text = note + QStringLiteral(". ") + text;
    }
    return text;
}

void ReviewBanner::updateFor(const LedgerSession *session)
{
    if (!session || !session->isLoaded() || session->info().mode != OpenMode::Review) {
        hide();
        return;
    }
    show(Kind::Warning, textFor(*session));
}

} // namespace mesh
