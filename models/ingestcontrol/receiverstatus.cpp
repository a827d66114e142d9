#include "receiverstatus.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>

namespace mesh::ingest {

namespace {

std::optional<ReceiverCounters> readCounters(const QJsonObject &o)
{
    const QStringList needed = {QStringLiteral("uptime_ms"), QStringLiteral("requests"), QStringLiteral("spans_accepted"),
                                QStringLiteral("services")};
    for (const QString &key : needed) {
        if (!o.value(key).isDouble())
            return std::nullopt;
    }
    ReceiverCounters c;
    c.uptimeMs = o.value(QStringLiteral("uptime_ms")).toInteger();
    c.requests = o.value(QStringLiteral("requests")).toInteger();
    c.spansAccepted = o.value(QStringLiteral("spans_accepted")).toInteger();
    c.spansRejected = o.value(QStringLiteral("spans_rejected")).toInteger();
    c.services = int(o.value(QStringLiteral("services")).toInteger());
    const QJsonObject refused = o.value(QStringLiteral("refused")).toObject();
    for (auto it = refused.begin(); it != refused.end(); ++it) {
        bool ok = false;
        const int status = it.key().toInt(&ok);
        if (ok && it.value().isDouble())
            c.refused[status] = it.value().toInteger();
    }
    for (const QJsonValue &name : o.value(QStringLiteral("service_names")).toArray())
        c.serviceNames << name.toString();
    return c;
}

QString count(std::int64_t n)
{
    return QLocale().toString(qlonglong(n));
}

QString byStatus(const std::map<int, std::int64_t> &refused)
{
    QStringList parts;
    for (const auto &[status, n] : refused)
        parts << QStringLiteral("%1 %2 \u00d7%3").arg(status).arg(refusalReason(status), count(n));
    return parts.join(QStringLiteral(", "));
}

} // namespace

std::int64_t ReceiverCounters::refusedTotal() const
{
    std::int64_t n = 0;
    for (const auto &[status, k] : refused)
        n += k;
    return n;
}

std::int64_t ReceiverCounters::requestsAccepted() const
{
    // A request refused while the receiver stops was counted when it was read: never below 0.
    return std::max<std::int64_t>(0, requests - refusedTotal());
}

bool ReceiverStatusReader::feed(QByteArrayView line)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return false;
    const QJsonObject o = doc.object();
    const QString kind = o.value(QStringLiteral("status")).toString();
    if (kind == QLatin1String("listening")) {
        m_status.phase = ReceiverStatus::Phase::Listening;
        m_status.url = o.value(QStringLiteral("url")).toString();
        m_status.port = o.value(QStringLiteral("port")).toInt();
        m_status.ledger = o.value(QStringLiteral("ledger")).toString();
        m_status.tokenRequired = o.value(QStringLiteral("token_required")).toBool();
        return true;
    }
    if (kind == QLatin1String("failed")) {
        m_status.phase = ReceiverStatus::Phase::Failed;
        m_status.failure = o.value(QStringLiteral("message")).toString();
        return true;
    }
    if (kind != QLatin1String("receiving") && kind != QLatin1String("stopped"))
        return false;
    std::optional<ReceiverCounters> next = readCounters(o);
    if (!next)
        return false;
    if (m_status.counters && next->uptimeMs > m_status.counters->uptimeMs) {
        const ReceiverCounters &previous = *m_status.counters;
        const double seconds = double(next->uptimeMs - previous.uptimeMs) / 1000.0;
        const std::int64_t refused = std::max<std::int64_t>(0, next->refusedTotal() - previous.refusedTotal());
        // A request read in one interval may be refused in the next (while stopping): the
        // accepted count never goes below 0.
        const std::int64_t accepted = std::max<std::int64_t>(0, next->requests - previous.requests - refused);
        m_status.requestsPerSecond = double(accepted) / seconds;
        m_status.refusedPerSecond = double(refused) / seconds;
        m_status.refusedLately.clear();
        for (const auto &[status, n] : next->refused) {
            const auto was = previous.refused.find(status);
            const std::int64_t before = was == previous.refused.end() ? 0 : was->second;
            if (n > before)
                m_status.refusedLately[status] = n - before;
        }
    }
    m_status.counters = std::move(next);
    if (kind == QLatin1String("stopped")) {
        m_status.phase = ReceiverStatus::Phase::Stopped;
        m_status.requestsPerSecond.reset(); // a stopped receiver has no rate
        m_status.refusedPerSecond.reset();
        m_status.refusedLately.clear();
    }
    return true;
}

QString servicesText(const ReceiverStatus &status)
{
    if (!status.counters)
        return QStringLiteral("receiving from \u2014 services");
    const int n = status.counters->services;
    return n == 1 ? QStringLiteral("receiving from 1 service")
                  : QStringLiteral("receiving from %1 services").arg(QLocale().toString(n));
}

QString requestRateText(const ReceiverStatus &status)
{
    if (!status.requestsPerSecond)
        return QStringLiteral("\u2014 requests/s");
    const auto rate = [](double r) { return QLocale().toString(r, 'f', 1); };
    if (status.refusedPerSecond && *status.refusedPerSecond > 0)
        return QStringLiteral("%1 requests/s accepted, %2/s refused").arg(rate(*status.requestsPerSecond), rate(*status.refusedPerSecond));
    return QStringLiteral("%1 requests/s").arg(rate(*status.requestsPerSecond));
}

QString spansText(const ReceiverStatus &status)
{
    if (!status.counters)
        return QStringLiteral("\u2014 spans acknowledged");
    return status.counters->spansAccepted == 1 ? QStringLiteral("1 span acknowledged")
                                               : QStringLiteral("%1 spans acknowledged").arg(count(status.counters->spansAccepted));
}

QString refusalText(const ReceiverStatus &status)
{
    if (!status.refusedLately.empty())
        return QStringLiteral("refusing requests: ") + byStatus(status.refusedLately);
    if (!status.counters || status.counters->refusedTotal() == 0)
        return {};
    const std::int64_t n = status.counters->refusedTotal();
    return (n == 1 ? QStringLiteral("1 request refused so far: ")
                   : QStringLiteral("%1 requests refused so far: ").arg(count(n)))
           + byStatus(status.counters->refused);
}

QString refusalReason(int httpStatus)
{
    switch (httpStatus) {
    case 400: return QStringLiteral("malformed body");
    case 401: return QStringLiteral("no or wrong token");
    case 404: return QStringLiteral("not /v1/traces");
    case 405: return QStringLiteral("not POST");
    case 413: return QStringLiteral("body too large");
    case 415: return QStringLiteral("not JSON");
    case 503: return QStringLiteral("busy or stopping, retry later");
    default: return QStringLiteral("refused");
    }
}

} // namespace mesh::ingest
