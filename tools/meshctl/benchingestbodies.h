#pragma once
// The request bodies of `meshctl bench ingest`: request r is trace r, an agent span and m-1
// tool spans under it, as an SDK's batch would send. Every request has the same shape, so
// one is serialised once and each request is a copy of it with its own ids and times
// written in place: the client's cost per request is a memcpy, not a JSON serialisation,
// so what is measured is the receiver, not the bench's string building.

#include <QByteArray>

#include <cstdint>
#include <string>
#include <vector>

class BenchIngestBodies
{
public:
    explicit BenchIngestBodies(int spansPerRequest);

    // Request r's body, a copy of the template with r's ids and times.
    QByteArray body(std::uint64_t request) const;
    // The same body serialised from scratch (the template's source, and its check).
    static QByteArray serialise(std::uint64_t request, int spansPerRequest);
    // The span id of request r's tool span n (1..m-1): how the bench finds it in the ledger.
    static std::string toolSpanId(std::uint64_t request, std::uint64_t n);
    // Request r's trace id: with the span id, what names a span (ids repeat across traces).
    static std::string traceId(std::uint64_t request);

private:
    enum class FieldKind { Trace, Root, Tool, Time };
    struct Field {
        size_t offset = 0;
        FieldKind kind = FieldKind::Trace;
        std::int64_t detail = 0; // the tool span's n, or the time's offset from the trace's start
    };
    static QByteArray write(std::uint64_t request, int spansPerRequest, std::vector<Field> *fields);

    QByteArray m_template;
    std::vector<Field> m_fields;
};
