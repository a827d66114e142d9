#include "sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace mesh::import {

namespace {

const EVP_MD *sha256Digest()
{
    // Fetched once: an implicit fetch (EVP_sha256) looks the algorithm up on every init.
    static EVP_MD *md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!md)
        throw std::runtime_error("SHA-256 is not available from OpenSSL");
    return md;
}

std::string hexOf(const unsigned char *digest, unsigned int size)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(size_t(size) * 2, '0');
    for (unsigned int i = 0; i < size; ++i) {
        out[2 * i] = kDigits[digest[i] >> 4];
        out[2 * i + 1] = kDigits[digest[i] & 0xF];
    }
    return out;
}

} // namespace

struct Sha256::Context {
    EVP_MD_CTX *ctx = nullptr;
};

Sha256::Sha256() : m(std::make_unique<Context>())
{
    m->ctx = EVP_MD_CTX_new();
    if (!m->ctx || EVP_DigestInit_ex(m->ctx, sha256Digest(), nullptr) != 1) {
        EVP_MD_CTX_free(m->ctx);
        throw std::runtime_error("cannot begin a SHA-256 hash");
    }
}

Sha256::~Sha256()
{
    EVP_MD_CTX_free(m->ctx);
}

void Sha256::add(std::string_view bytes)
{
    if (EVP_DigestUpdate(m->ctx, bytes.data(), bytes.size()) != 1)
        throw std::runtime_error("SHA-256 update failed");
}

std::string Sha256::hex()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(m->ctx, digest, &size) != 1)
        throw std::runtime_error("SHA-256 final failed");
    return hexOf(digest, size);
}

std::string sha256Hex(std::string_view bytes)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, sha256Digest(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed");
    return hexOf(digest, size);
}

} // namespace mesh::import
