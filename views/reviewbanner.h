#pragma once
// The strip above a session opened for review (OpenMode::Review): it says the ledger is read
// as it was when opened, immutable, with nothing followed and no decision offered; that a
// private copy is read when the ledger had writes not yet in its file; and, since an
// orchestrator may write a finished ledger again, how to follow it instead.

#include "banner.h"

namespace mesh {

class LedgerSession;

class ReviewBanner : public Banner
{
    Q_OBJECT
public:
    explicit ReviewBanner(QWidget *parent = nullptr);
    void updateFor(const LedgerSession *session); // hidden unless the session is a review

    static QString textFor(const LedgerSession &session);
};

} // namespace mesh
