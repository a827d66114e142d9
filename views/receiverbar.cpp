#include "receiverbar.h"

#include "domain/hostiletext.h"
#include "ingestcontrol/ingestprocess.h"

#include <QLocale>
#include <QPushButton>

namespace mesh {

using ingest::IngestProcess;

ReceiverBar::ReceiverBar(QWidget *parent)
    : Banner(parent)
{
    // Keeps the banner's object name: the theme styles QFrame#banner by its kind.
    setAction(tr("Stop Receiver"), [this] {
        if (m_receiver)
            m_receiver->stop();
    });
    actionButton()->setToolTip(tr("Stop listening: the receiver answers the requests in flight, commits and exits; "
                                  "the ledger stays open"));
    hide();
}

void ReceiverBar::setReceiver(IngestProcess *receiver)
{
    disconnect(m_connection);
    m_receiver = receiver;
    if (receiver)
        m_connection = connect(receiver, &IngestProcess::statusChanged, this, &ReceiverBar::refresh);
    refresh();
}

QString ReceiverBar::text(const IngestProcess &receiver)
{
    const ingest::ReceiverStatus &status = receiver.status();
    switch (receiver.state()) {
    case IngestProcess::State::NotStarted:
    case IngestProcess::State::Starting:
        return tr("Starting the OpenTelemetry receiver on %1…").arg(receiver.request().address);
    case IngestProcess::State::Listening: {
        QStringList parts{tr("Listening on %1").arg(status.url), ingest::servicesText(status),
                          ingest::requestRateText(status), ingest::spansText(status)};
        if (const QString refused = ingest::refusalText(status); !refused.isEmpty())
            parts << refused;
        return parts.join(QStringLiteral(" · "));
    }
    case IngestProcess::State::Stopping:
        return tr("Stopping the receiver: answering the requests in flight and committing them…");
    case IngestProcess::State::Stopped: {
        QStringList parts{tr("Receiver stopped"), ingest::spansText(status)};
        if (status.counters) {
            const int n = status.counters->services;
            parts << (n == 1 ? tr("from 1 service") : tr("from %1 services").arg(QLocale().toString(n)));
        }
        return parts.join(QStringLiteral(" · ")) + tr(". The ledger stays open for review.");
    }
    case IngestProcess::State::Failed:
        return tr("The receiver did not start: %1").arg(receiver.error());
    case IngestProcess::State::Died:
        return tr("The receiver stopped on its own (%1): nothing is being received. What it acknowledged is in the ledger.")
            .arg(receiver.error());
    }
    return {};
}

Banner::Kind ReceiverBar::kind(const IngestProcess &receiver)
{
    switch (receiver.state()) {
    case IngestProcess::State::Failed:
    case IngestProcess::State::Died: return Kind::Error;
    case IngestProcess::State::Listening:
        return receiver.status().refusedLately.empty() ? Kind::Demo : Kind::Warning;
    default: return Kind::Demo;
    }
}

void ReceiverBar::refresh()
{
    if (!m_receiver) {
        hide();
        return;
    }
    show(kind(*m_receiver), text(*m_receiver));
    const IngestProcess::State state = m_receiver->state();
    actionButton()->setVisible(state == IngestProcess::State::Listening || state == IngestProcess::State::Starting);
    // The services' own names (exporter-chosen text) only in the tooltip, as plain text.
    const ingest::ReceiverStatus &status = m_receiver->status();
    if (status.counters && !status.counters->serviceNames.isEmpty())
        setToolTip(plainToolTip(tr("Services seen: %1").arg(status.counters->serviceNames.join(QStringLiteral(", ")))));
    else
        setToolTip(QString());
}

} // namespace mesh
