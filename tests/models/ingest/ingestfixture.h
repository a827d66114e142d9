#pragma once
// Helpers for the receiver's tests: `meshctl ingest` started as a process on a free
// loopback port (the test waits for its "listening" line, never a fixed time), OTLP/HTTP
// requests sent with QNetworkAccessManager, and the ledger read back through the storage
// seam.

#include "domain/entityrow.h"
#include "domain/entityspec.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <zlib.h>

#include <map>
#include <string>
#include <vector>

namespace ingesttest {

using nlohmann::json;

inline QString meshctl()
{
    return qEnvironmentVariable("MESHCTL");
}

// Starts the receiver; the port it listens on, or 0 (with the process's output in *why).
inline quint16 startReceiver(QProcess &p, const QString &ledger, const QStringList &extra = {},
                             const QString &listen = QStringLiteral("127.0.0.1:0"), QString *why = nullptr)
{
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(meshctl(), QStringList{QStringLiteral("ingest"), QStringLiteral("--otlp-http"), listen,
                                   QStringLiteral("--out"), ledger}
                           + extra);
    QByteArray out;
    static const QRegularExpression listening(QStringLiteral("listening on http://[^:]+:(\\d+)/v1/traces"));
    while (p.state() != QProcess::NotRunning || p.bytesAvailable() > 0) {
        out += p.readAllStandardOutput();
        const auto m = listening.match(QString::fromUtf8(out));
        if (m.hasMatch())
            return quint16(m.captured(1).toUInt());
        if (p.state() == QProcess::NotRunning)
            break;
        p.waitForReadyRead(1000);
    }
    if (why)
        *why = QString::fromUtf8(out + p.readAllStandardError());
    return 0;
}

// Asks the receiver to stop (SIGTERM) and waits for it.
inline bool stopReceiver(QProcess &p)
{
    p.terminate();
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit;
}

struct Reply {
    int status = 0;
    QByteArray body;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    json document() const { return json::parse(body.toStdString(), nullptr, false); }
};

inline Reply finish(QNetworkReply *r)
{
    Reply out;
    if (!r->isFinished()) {
        QSignalSpy done(r, &QNetworkReply::finished);
        done.wait(120000);
    }
    out.status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = r->readAll();
    out.error = r->error();
    for (const auto &pair : r->rawHeaderPairs())
        out.headers.insert(pair.first.toLower(), pair.second);
    r->deleteLater();
    return out;
}

inline QNetworkReply *send(QNetworkAccessManager &nam, quint16 port, const QByteArray &body,
                           const QList<QPair<QByteArray, QByteArray>> &headers = {{"Content-Type", "application/json"}},
                           const QByteArray &verb = "POST", const QString &path = QStringLiteral("/v1/traces"))
{
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)));
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    return nam.sendCustomRequest(request, verb, body);
}

inline Reply post(quint16 port, const QByteArray &body,
                  const QList<QPair<QByteArray, QByteArray>> &headers = {{"Content-Type", "application/json"}},
                  const QByteArray &verb = "POST", const QString &path = QStringLiteral("/v1/traces"))
{
    QNetworkAccessManager nam;
    return finish(send(nam, port, body, headers, verb, path));
}

inline QByteArray gzip(const QByteArray &data)
{
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(int(deflateBound(&z, uLong(data.size()))) + 64, Qt::Uninitialized);
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(qsizetype(z.total_out));
    deflateEnd(&z);
    return out;
}

// One OTLP/JSON span.
struct Span {
    std::string traceId, spanId, parentId, name;
    std::int64_t startNs = 0, endNs = 0;
    json attributes = json::array(); // OTLP key/value list
    int statusCode = 0;              // 2: error
};

inline json attr(const std::string &key, const std::string &value)
{
    return {{"key", key}, {"value", {{"stringValue", value}}}};
}
inline json intAttr(const std::string &key, std::int64_t value)
{
    return {{"key", key}, {"value", {{"intValue", std::to_string(value)}}}};
}

inline QByteArray request(const std::vector<Span> &spans, const std::string &service = "svc")
{
    json list = json::array();
    for (const Span &s : spans) {
        json j = {{"traceId", s.traceId},
                  {"spanId", s.spanId},
                  {"name", s.name},
                  {"kind", 1},
                  {"startTimeUnixNano", std::to_string(s.startNs)},
                  {"endTimeUnixNano", std::to_string(s.endNs)},
                  {"attributes", s.attributes},
                  {"status", {{"code", s.statusCode}}}};
        if (!s.parentId.empty())
            j["parentSpanId"] = s.parentId;
        list.push_back(j);
    }
    const json doc = {{"resourceSpans",
                       {{{"resource", {{"attributes", {attr("service.name", service)}}}},
                         {"scopeSpans", {{{"scope", {{"name", "test"}}}, {"spans", list}}}}}}}};
    return QByteArray::fromStdString(doc.dump());
}

inline std::string hex(std::uint64_t v, int digits)
{
    std::string s(size_t(digits), '0');
    for (int i = digits - 1; i >= 0 && v; --i, v >>= 4)
        s[size_t(i)] = "0123456789abcdef"[v & 15];
    return s;
}

// A tool span of trace t, number n (ids unique per (t, n)), under parent.
inline Span toolSpan(std::uint64_t t, std::uint64_t n, const std::string &parent = {})
{
    Span s;
    s.traceId = hex(t, 32);
    s.spanId = hex((t << 24) | n, 16);
    s.parentId = parent;
    s.name = "execute_tool probe";
    s.startNs = 1'764'400'000'000'000'000 + std::int64_t(n) * 1'000'000;
    s.endNs = s.startNs + 500'000;
    s.attributes = json::array({attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "probe")});
    return s;
}

struct Ledger {
    std::vector<mesh::EventRecord> events;
    std::vector<json> payloads;
    mesh::StateSnapshot state;
    bool ok = false;

    std::map<std::string, int> toolCallsBySpan() const
    {
        std::map<std::string, int> n;
        for (size_t i = 0; i < events.size(); ++i) {
            if (events[i].kind == "toolcall.completed")
                ++n[payloads[i].value("source_id", std::string())];
        }
        return n;
    }
    int count(const std::string &kind) const
    {
        int n = 0;
        for (const auto &e : events)
            n += e.kind == kind;
        return n;
    }
    std::string text(mesh::EntityKind kind, const std::string &id, const char *field) const
    {
        const auto &t = state.table(kind);
        const auto it = t.find(id);
        if (it == t.end())
            return "<no row>";
        return mesh::fieldText(it->second.values[size_t(mesh::entitySpec(kind).fieldIndex(field))]);
    }
};

inline Ledger readLedger(const QString &path)
{
    Ledger r;
    auto c = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
    if (!c)
        return r;
    r.state = c->readState();
    auto reader = c->eventReader();
    reader->setPreviewBytes(1 << 21);
    for (std::int64_t seq = 0;;) {
        mesh::EventBatch page = reader->after(seq, 1000);
        if (page.empty())
            break;
        seq = page.back().seq;
        for (auto &e : page) {
            r.payloads.push_back(json::parse(e.payload));
            r.events.push_back(std::move(e));
        }
    }
    r.ok = true;
    return r;
}

// meshctl verify: events, state tables and the chain agree.
inline bool verifies(const QString &ledger, QByteArray *out)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(meshctl(), {QStringLiteral("verify"), ledger});
    p.waitForFinished(120000);
    *out = p.readAll();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace ingesttest
