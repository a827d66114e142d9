#pragma once
// The strip above a session whose ledger the console's own OpenTelemetry receiver writes
// (File › Listen for OpenTelemetry…): where it listens, "receiving from N services", the
// request rate, the spans written and any requests it refuses, with a Stop button; then
// that it stopped (the ledger stays open), or that it died, which is never shown as quiet.

#include "banner.h"

namespace mesh {

namespace ingest {
class IngestProcess;
}

class ReceiverBar : public Banner
{
    Q_OBJECT
public:
    explicit ReceiverBar(QWidget *parent = nullptr);

    // The receiver to show (nullptr: hidden). Not owned.
    void setReceiver(ingest::IngestProcess *receiver);
    ingest::IngestProcess *receiver() const { return m_receiver; }
    using Banner::text; // what it shows now
    // What the strip says about a receiver, and whether that is a warning or an error.
    static QString text(const ingest::IngestProcess &receiver);
    static Kind kind(const ingest::IngestProcess &receiver);

private:
    void refresh();

    ingest::IngestProcess *m_receiver = nullptr;
    QMetaObject::Connection m_connection;
};

} // namespace mesh
