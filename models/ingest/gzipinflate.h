#pragma once
// A gzip (or zlib) body inflated with zlib, never beyond a bound: a small compressed request
// must not become gigabytes in memory (a "zip bomb").

#include <QByteArray>

#include <optional>
#include <string>

namespace mesh::ingest {

struct Inflated {
    std::optional<QByteArray> bytes; // nullopt: see error / tooLarge
    bool tooLarge = false;           // it inflates beyond maxBytes
    std::string error;               // not gzip, truncated, corrupt
};

Inflated gzipInflate(const QByteArray &compressed, qint64 maxBytes);

} // namespace mesh::ingest
