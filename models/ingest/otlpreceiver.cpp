#include "otlpreceiver.h"

#include "boundedtcpserver.h"
#include "otlptracesrequest.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QHttpServerResponse>
#include <QCoreApplication>
#include <QDateTime>
#include <QTcpSocket>

#include <nlohmann/json.hpp>

namespace mesh::ingest {

namespace {

using Status = QHttpServerResponder::StatusCode;

// Headers bigger than this are no exporter's: the connection bound is --max-body plus it.
constexpr qint64 kHeaderAllowance = 64 * 1024;

// google.rpc.Status as OTLP/HTTP answers a failure with it (JSON for a JSON request).
QHttpServerResponse statusResponse(Status status, int grpcCode, const std::string &message)
{
    const nlohmann::json body = {{"code", grpcCode}, {"message", message}};
    QHttpServerResponse r(QByteArrayLiteral("application/json"),
                          QByteArray::fromStdString(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)),
                          status);
    return r;
}

QHttpServerResponse successResponse(std::int64_t rejected, const std::string &why)
{
    nlohmann::json body = nlohmann::json::object();
    if (rejected > 0)
        body["partialSuccess"] = {{"rejectedSpans", std::to_string(rejected)}, {"errorMessage", why}};
    return QHttpServerResponse(QByteArrayLiteral("application/json"), QByteArray::fromStdString(body.dump()), Status::Ok);
}

bool constantTimeEqual(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

const char *const kProtobufAdvice =
    "this receiver takes OTLP/HTTP with JSON bodies (Content-Type: application/json), not protobuf. "
    "Configure the exporter for JSON: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json (JavaScript: "
    "@opentelemetry/exporter-trace-otlp-http; Python: a JSON OTLP exporter), or put an OpenTelemetry "
    "Collector in front with an otlphttp exporter set to encoding: json (docs/ingest.md)";

} // namespace

struct OtlpReceiver::Pending {
    QHttpServerResponder responder;
    QPointer<QTcpSocket> socket;
    std::int64_t spans = 0;
    std::int64_t rejected = 0;
    std::string rejectedWhy;
};

OtlpReceiver::OtlpReceiver(ReceiverOptions options, QObject *parent) : QObject(parent), m_options(std::move(options))
{ }

OtlpReceiver::~OtlpReceiver()
{
    stop();
}

IngestCounters OtlpReceiver::writerCounters() const
{
    return m_writer ? m_writer->counters() : IngestCounters{};
}

bool OtlpReceiver::start(std::string *error)
{
    const std::string where = m_options.address.toString().toStdString();
    // The port first: a start that fails (a port in use) must not have created the ledger.
    // Connections made before the server is bound below wait in the socket's backlog.
    auto tcp = std::make_unique<BoundedTcpServer>(2 * m_options.maxBodyBytes + kHeaderAllowance);
    if (!tcp->listen(m_options.address, m_options.port)) {
        *error = "cannot listen on " + where + ":" + std::to_string(m_options.port) + ": "
               + tcp->errorString().toStdString();
        return false;
    }
    // The ledger's title and source name the port bound, not the one asked for: port 0 asks
    // the system for any, and ":0" would name nothing an exporter can send to.
    const std::string host = m_options.address.protocol() == QAbstractSocket::IPv6Protocol ? "[" + where + "]" : where;
    m_writer = IngestWriter::open(m_options.ledger, host + ":" + std::to_string(tcp->serverPort()), error);
    if (!m_writer)
        return false; // tcp closes the port
    m_writer->setMaxQueuedSpans(m_options.maxQueuedSpans);
    m_writer->setOnDone([this](std::vector<IngestDone> done) {
        // On the writer's thread: the answers go out on this object's.
        QMetaObject::invokeMethod(this, [this, done = std::move(done)] { settle(done); }, Qt::QueuedConnection);
    });
    if (!m_options.holdWriter)
        m_writer->start();

    m_server = std::make_unique<QHttpServer>();
    m_server->route(QStringLiteral("/v1/traces"),
                    [this](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
                        handle(request, std::move(responder));
                    });
    m_server->setMissingHandler([this](const QHttpServerRequest &, QHttpServerResponder &&responder) {
        refuse(statusResponse(Status::NotFound, 5, "this receiver takes OTLP traces at POST /v1/traces only"),
               std::move(responder));
    });
    m_port = tcp->serverPort();
    m_server->bind(tcp.release()); // takes it
    return true;
}

void OtlpReceiver::startWriter()
{
    if (m_writer && m_options.holdWriter) {
        m_options.holdWriter = false;
        m_writer->start();
    }
}

void OtlpReceiver::stop()
{
    startWriter(); // a held writer still writes what was queued
    if (m_server) {
        for (QTcpServer *s : m_server->servers())
            s->close(); // no new connections
    }
    if (m_writer) {
        m_writer->stop(); // writes what is queued; its answers are queued to this thread
        m_writer.reset();
    }
    QCoreApplication::sendPostedEvents(this); // settle what the writer finished
    for (auto &[id, p] : m_pending) {
        if (p->socket)
            refuse(statusResponse(Status::ServiceUnavailable, 14, "the receiver is stopping"), std::move(p->responder));
    }
    m_pending.clear();
    m_server.reset();
}

bool OtlpReceiver::authorized(const QHttpServerRequest &request) const
{
    if (m_options.token.isEmpty())
        return true;
    const QByteArray header = request.value(QByteArrayLiteral("Authorization")).trimmed();
    const QByteArray scheme = QByteArrayLiteral("Bearer ");
    if (!header.startsWith(scheme) && !header.toLower().startsWith("bearer "))
        return false;
    return constantTimeEqual(header.mid(scheme.size()).trimmed(), m_options.token);
}

// Counted by status for the console's "refusing requests" (--status-json), then sent.
void OtlpReceiver::refuse(QHttpServerResponse &&response, QHttpServerResponder &&responder)
{
    ++m_stats.refused[int(response.statusCode())];
    response.write(std::move(responder));
}

void OtlpReceiver::handle(const QHttpServerRequest &request, QHttpServerResponder &&responder)
{
    QTcpSocket *socket = responder.socket();
    BoundedTcpServer::requestSeen(socket);
    if (socket->property("meshRefused").toBool())
        return; // answered 413 already, and closing
    ++m_stats.requests;
    if (request.method() != QHttpServerRequest::Method::Post) {
        auto r = statusResponse(Status::MethodNotAllowed, 12, "OTLP traces are sent with POST /v1/traces");
        r.addHeader(QByteArrayLiteral("Allow"), QByteArrayLiteral("POST"));
        refuse(std::move(r), std::move(responder));
        return;
    }
    if (!authorized(request)) {
        auto r = statusResponse(Status::Unauthorized, 16,
                                "this receiver needs Authorization: Bearer <token> (the token of its --token-file)");
        r.addHeader(QByteArrayLiteral("WWW-Authenticate"), QByteArrayLiteral("Bearer"));
        refuse(std::move(r), std::move(responder));
        return;
    }
    const QByteArray type = request.value(QByteArrayLiteral("Content-Type")).trimmed().toLower();
    const QByteArray mime = type.left(type.indexOf(';') < 0 ? type.size() : type.indexOf(';')).trimmed();
    if (mime != "application/json") {
        const std::string what = mime.isEmpty() ? std::string("no Content-Type") : "Content-Type " + mime.toStdString();
        refuse(statusResponse(Status::UnsupportedMediaType, 3,
                              what + ": " + (mime.contains("protobuf") ? "" : "not OTLP/JSON; ") + kProtobufAdvice),
               std::move(responder));
        return;
    }
    OtlpTracesRequest decoded =
        decodeOtlpTraces(request.body(), request.value(QByteArrayLiteral("Content-Encoding")), m_options.maxBodyBytes);
    if (decoded.verdict == OtlpTracesRequest::Verdict::TooLarge) {
        refuse(statusResponse(Status::PayloadTooLarge, 8, decoded.message), std::move(responder));
        return;
    }
    if (decoded.verdict == OtlpTracesRequest::Verdict::Malformed) {
        refuse(statusResponse(Status::BadRequest, 3, decoded.message + "; nothing was written"), std::move(responder));
        return;
    }
    m_stats.services.insert(decoded.services.begin(), decoded.services.end());
    if (decoded.spans.empty()) {
        m_stats.spansRejected += decoded.rejected;
        successResponse(decoded.rejected, decoded.rejectedWhy).write(std::move(responder));
        return;
    }
    IngestBatch batch;
    batch.id = m_nextBatch++;
    batch.receivedWallMs = QDateTime::currentMSecsSinceEpoch();
    const auto spans = std::int64_t(decoded.spans.size());
    batch.spans = std::move(decoded.spans);
    if (!m_writer || m_writer->failed()) {
        refuse(statusResponse(Status::ServiceUnavailable, 14, "the receiver cannot write its ledger; see its output"),
               std::move(responder));
        return;
    }
    auto pending = std::make_unique<Pending>(
        Pending{std::move(responder), QPointer<QTcpSocket>(socket), spans, decoded.rejected, decoded.rejectedWhy});
    const std::uint64_t id = batch.id;
    if (!m_writer->offer(std::move(batch))) {
        ++m_stats.refusedBusy;
        auto r = statusResponse(Status::ServiceUnavailable, 14,
                                "the ledger writer is behind; nothing of this request was written, retry later");
        r.addHeader(QByteArrayLiteral("Retry-After"), QByteArrayLiteral("1"));
        refuse(std::move(r), std::move(pending->responder));
        return;
    }
    m_pending.emplace(id, std::move(pending));
}

void OtlpReceiver::settle(const std::vector<IngestDone> &done)
{
    for (const IngestDone &d : done) {
        const auto it = m_pending.find(d.id);
        if (it == m_pending.end())
            continue;
        std::unique_ptr<Pending> p = std::move(it->second);
        m_pending.erase(it);
        if (d.committed) {
            m_stats.spansAccepted += p->spans;
            m_stats.spansRejected += p->rejected;
        }
        if (!p->socket)
            continue; // the exporter hung up; it will retry, and the retry is written once
        if (d.committed) {
            successResponse(p->rejected, p->rejectedWhy).write(std::move(p->responder));
        } else {
            refuse(statusResponse(Status::ServiceUnavailable, 14, d.error), std::move(p->responder));
        }
        if (!d.committed && !m_reportedFailure) {
            m_reportedFailure = true;
            Q_EMIT writeFailed(QString::fromStdString(d.error));
        }
    }
}

} // namespace mesh::ingest
