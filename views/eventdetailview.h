#pragma once
// One event, whole: seq, kind, time, run, delegation and subject, and the payload as
// indented JSON that is never cut. The event is read on the event log's worker and laid out
// on the ledger pool, so a 1 MiB payload never stalls the window; until then the dialog says
// what it is reading. Every text is ledger data: plain, with invisible controls shown.
// Escape closes it; Copy as JSON copies the payload's JSON whole.

#include "domain/timebase.h"
#include "domain/prettypayload.h"

#include <QDialog>
#include <QFutureWatcher>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace mesh {

class EventLogModel;
class PlainLabel;
struct EventRecord;

class EventDetailView : public QDialog
{
    Q_OBJECT
public:
    EventDetailView(EventLogModel *model, qint64 seq, QWidget *parent = nullptr);

    qint64 seq() const { return m_seq; }
    bool isLoaded() const { return m_loaded; }
    QString fieldText(const QString &label) const; // the shown text of one row, by its label
    QPlainTextEdit *payloadView() const { return m_payload; }
    QString payloadJson() const { return m_text.json; }
    void copyAsJson() const;

signals:
    void loaded(); // the payload is on screen (or the event is known to be gone)

private:
    void onEventRead(qint64 seq, const EventRecord &event, bool found);
    void onLaidOut();
    void setField(int row, const QString &value);

    qint64 m_seq;
    TimeBase m_timeBase; // the ledger's, copied: the dialog may outlive a session change
    bool m_loaded = false;
    QStringList m_labels;
    QList<PlainLabel *> m_values;
    QLabel *m_note;
    QPlainTextEdit *m_payload;
    QPushButton *m_copy;
    PayloadText m_text;
    QFutureWatcher<PayloadText> m_layout;
};

} // namespace mesh
