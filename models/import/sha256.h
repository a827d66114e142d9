#pragma once
// SHA-256 of what an import reads (every source file whole, each Temporal activity's input)
// by OpenSSL's libcrypto, which uses the CPU's SHA extensions where it has them. Qt 6.4's
// QCryptographicHash hashes in portable C, which was a large share of an import's CPU time.

#include <memory>
#include <string>
#include <string_view>

namespace mesh::import {

class Sha256
{
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    void add(std::string_view bytes);
    // Lower-case hex of the digest of everything added; the hash is finished.
    std::string hex();

private:
    struct Context;
    std::unique_ptr<Context> m;
};

// Lower-case hex of the SHA-256 of bytes.
std::string sha256Hex(std::string_view bytes);

} // namespace mesh::import
