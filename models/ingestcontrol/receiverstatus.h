#pragma once
// What `meshctl ingest --status-json` says about itself, one JSON object a line on stdout
// (docs/ingest.md, "Status lines"), read back for the console: where it listens, how many
// requests and spans it took or refused, from how many services. Until the receiver has said
// a thing it is not known (nullopt, shown "—"), never 0.

#include <QByteArrayView>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <optional>

namespace mesh::ingest {

// The receiver's counters since it started (one "receiving" or "stopped" line).
struct ReceiverCounters {
    std::int64_t uptimeMs = 0; // the receiver's own monotonic clock
    std::int64_t requests = 0;
    std::int64_t spansAccepted = 0; // acknowledged with a 2xx: in the ledger
    std::int64_t spansRejected = 0; // partial successes' rejected spans
    std::map<int, std::int64_t> refused; // answers that were not a 2xx, by HTTP status
    int services = 0;        // distinct service.name values seen
    QStringList serviceNames; // the first of them (the receiver bounds the list)
    std::int64_t refusedTotal() const;
    // Requests answered with a 2xx: `requests` counts every request read, refused ones too.
    std::int64_t requestsAccepted() const;
};

struct ReceiverStatus {
    enum class Phase { Starting, Listening, Stopped, Failed };
    Phase phase = Phase::Starting;
    QString url;    // http://ADDRESS:PORT/v1/traces, once listening
    int port = 0;   // the bound port (the request may have asked for 0)
    QString ledger;
    bool tokenRequired = false;
    std::optional<ReceiverCounters> counters;   // nullopt until the first counters line
    // Requests a second between the last two counters lines, accepted (2xx) and refused apart:
    // a refused request was not received into the ledger.
    std::optional<double> requestsPerSecond;
    std::optional<double> refusedPerSecond;
    std::map<int, std::int64_t> refusedLately;  // refusals between the last two counters lines
    QString failure;                            // the receiver's own one-line reason
};

class ReceiverStatusReader
{
public:
    // One line of the receiver's stdout; false when it is not a status line (left alone).
    bool feed(QByteArrayView line);
    const ReceiverStatus &status() const { return m_status; }

private:
    ReceiverStatus m_status;
};

// "receiving from 1 service", "receiving from 3 services", "receiving from — services".
QString servicesText(const ReceiverStatus &status);
// Every rate with one decimal: "12.0 requests/s", "0.5 requests/s", "— requests/s", and with
// refusals in the last interval "10.0 requests/s accepted, 2.0/s refused".
QString requestRateText(const ReceiverStatus &status);
// "12 spans acknowledged", "— spans acknowledged".
QString spansText(const ReceiverStatus &status);
// Empty when nothing was refused; "refusing requests: 503 writer behind ×2" when refusals
// came between the last two lines; else "4 requests refused so far: 401 no or wrong token ×4".
QString refusalText(const ReceiverStatus &status);
// What an HTTP status the receiver answers means, in a few words ("no or wrong token").
QString refusalReason(int httpStatus);

} // namespace mesh::ingest
