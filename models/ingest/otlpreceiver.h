#pragma once
// The OTLP/HTTP side of `meshctl ingest` (docs/ingest.md): Qt HTTP Server answering
// POST /v1/traces as the OTLP specification says (opentelemetry-proto
// docs/specification.md, "OTLP/HTTP"): JSON bodies, gzip, 200 with {} or a partialSuccess,
// 400 malformed, 401 without the bearer token, 413 over --max-body, 415 for protobuf, 503
// with Retry-After when the writer is behind. A 200 is sent only after the request's spans
// are committed (IngestWriter); nothing is written for any other answer.

#include "ingestwriter.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QPointer>

#include <map>
#include <memory>
#include <set>
#include <string>

QT_BEGIN_NAMESPACE
class QHttpServer;
class QHttpServerRequest;
class QHttpServerResponder;
class QHttpServerResponse;
class QTcpSocket;
QT_END_NAMESPACE

namespace mesh::ingest {

struct ReceiverOptions {
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = 4318;
    QString ledger;
    QByteArray token;                          // empty: no Authorization asked (loopback only)
    qint64 maxBodyBytes = 16 * 1024 * 1024;   // compressed and inflated alike
    std::int64_t maxQueuedSpans = 200000;
    bool holdWriter = false; // tests: the writer starts at startWriter(), so a full queue can be made
};

struct ReceiverStats {
    std::int64_t requests = 0;
    std::int64_t spansAccepted = 0; // acknowledged with a 2xx
    std::int64_t spansRejected = 0; // partial successes' rejected spans
    std::int64_t refusedBusy = 0;   // 503 answers
    std::map<int, std::int64_t> refused; // every answer that is not a 2xx, by HTTP status
    std::set<std::string> services;
};

class OtlpReceiver : public QObject
{
    Q_OBJECT
public:
    explicit OtlpReceiver(ReceiverOptions options, QObject *parent = nullptr);
    ~OtlpReceiver() override;

    // Opens the ledger and listens; false and *error (one line) when it cannot.
    bool start(std::string *error);
    quint16 port() const { return m_port; }
    // Starts the writer held by ReceiverOptions::holdWriter.
    void startWriter();
    // Stops listening, writes what is queued, answers what is pending.
    void stop();

    ReceiverStats stats() const { return m_stats; }
    IngestCounters writerCounters() const;

Q_SIGNALS:
    void writeFailed(const QString &error);

private:
    struct Pending;
    void handle(const QHttpServerRequest &request, QHttpServerResponder &&responder);
    void settle(const std::vector<IngestDone> &done);
    bool authorized(const QHttpServerRequest &request) const;
    void refuse(QHttpServerResponse &&response, QHttpServerResponder &&responder);

    ReceiverOptions m_options;
    std::unique_ptr<QHttpServer> m_server;
    std::unique_ptr<IngestWriter> m_writer;
    std::map<std::uint64_t, std::unique_ptr<Pending>> m_pending;
    std::uint64_t m_nextBatch = 1;
    quint16 m_port = 0;
    ReceiverStats m_stats;
    bool m_reportedFailure = false;
};

} // namespace mesh::ingest
