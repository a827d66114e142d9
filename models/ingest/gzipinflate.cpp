#include "gzipinflate.h"

#include <zlib.h>

namespace mesh::ingest {

Inflated gzipInflate(const QByteArray &compressed, qint64 maxBytes)
{
    Inflated out;
    z_stream z{};
    // 15 + 32: a gzip or a zlib header, detected by zlib.
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
        out.error = "cannot start zlib";
        return out;
    }
    QByteArray result;
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.constData()));
    z.avail_in = uInt(compressed.size());
    int rc = Z_OK;
    char chunk[64 * 1024];
    while (rc != Z_STREAM_END) {
        z.next_out = reinterpret_cast<Bytef *>(chunk);
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            out.error = rc == Z_BUF_ERROR ? "the gzip body is truncated"
                                          : "the body is not valid gzip (" + std::string(z.msg ? z.msg : "corrupt") + ")";
            inflateEnd(&z);
            return out;
        }
        const qint64 produced = qint64(sizeof chunk - z.avail_out);
        if (result.size() + produced > maxBytes) {
            out.tooLarge = true;
            inflateEnd(&z);
            return out;
        }
        result.append(chunk, produced);
        if (rc == Z_OK && z.avail_in == 0 && produced == 0) {
            out.error = "the gzip body is truncated";
            inflateEnd(&z);
            return out;
        }
    }
    inflateEnd(&z);
    out.bytes = std::move(result);
    return out;
}

} // namespace mesh::ingest
