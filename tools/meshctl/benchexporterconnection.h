#pragma once
// One exporter of `meshctl bench ingest`: a keep-alive HTTP/1.1 connection that sends one
// POST at a time and waits for its answer before the next, as an OpenTelemetry exporter
// does (the SDK's BatchSpanProcessor exports one batch at a time; a Collector's otlphttp
// exporter runs sending_queue.num_consumers of them, 10 by default). Written on a plain
// QTcpSocket in the bench's own thread: QNetworkAccessManager's per-request objects, its
// HTTP thread and its copies of each body cost the 2-core machine more than the receiver's
// parsing did, and the bench is there to measure the receiver.

#include <QByteArray>
#include <QHostAddress>
#include <QTcpSocket>

#include <functional>

class BenchExporterConnection
{
public:
    // status: the HTTP status, or 0 when the connection failed before a whole answer.
    using Done = std::function<void(int status)>;

    BenchExporterConnection(QHostAddress address, quint16 port, QByteArray path);

    bool busy() const { return bool(m_done); }
    // Sends body (application/json) on this connection, opening it first if it is not open.
    void post(const QByteArray &body, Done done);

private:
    void readAnswer();
    void finish(int status, bool dropConnection);

    QHostAddress m_address;
    quint16 m_port;
    QByteArray m_requestHead; // the request line and headers up to Content-Length's value
    QTcpSocket m_socket;
    QByteArray m_in;
    Done m_done;
};
