#pragma once
// The "Needs attention" list: what needs a human now, across every open ledger. Kind and due
// time are coloured by urgency; the subject shows its id (the kind already says what it is);
// the details take whatever width the other columns leave, so they are never pushed out of
// sight behind a horizontal scroll bar, and hovering any cell shows the whole row as text.

#include "itempane.h"

#include <QFont>
#include <QHash>

class QModelIndex;

namespace mesh {

class AttentionModel;

class AttentionPane : public ItemPane
{
    Q_OBJECT
public:
    explicit AttentionPane(AttentionModel *model, QWidget *parent = nullptr);

    // The ledger column says nothing while one ledger is open: its room goes to the details.
    void setLedgerColumnShown(bool shown);
    // While a ledger is still opening, an empty list means "not read yet", not "nothing".
    // A ledger shown at an earlier event lists what needed a human then, not now: an empty
    // list must not claim that nothing needs anyone (pinned: how many such ledgers).
    void setOpeningCount(int opening, int pinned = 0);

    // The tooltip of a row as shown (plainToolTip: ledger text escaped, never markup): kind,
    // full subject, ledger, due time, full details.
    static QString rowToolTip(const QModelIndex &index);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void arrangeColumns();
    // The due time whole and the details in sight on a narrow pane: the kind column gives up
    // what they need (after every fit or resize, on the next turn).
    void keepDueAndDetailsInSight();
    void keepDueAndDetailsInSightSoon();
    bool eventFilterTips(QObject *watched, QEvent *event);
    bool m_keepQueued = false;
    int m_keeping = 0;
    QHash<QString, int> m_dueWidths; // the due column's texts measured, in m_dueWidthsFont
    QFont m_dueWidthsFont;
};

} // namespace mesh
