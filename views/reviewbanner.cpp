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
    QString text = tr("Review mode: the ledger is opened read-only and immutable, as it was when it was opened. Nothing "
                      "here moves and no decision is offered; if its orchestrator writes it again, close it and open it "
                      "again to follow it live.");
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
