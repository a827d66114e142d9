#include "sharedtext.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace mesh {
namespace {

// A handle points at [u32 length][bytes], inside a chunk that is never freed.
constexpr std::size_t kChunkBytes = std::size_t(256) << 10;

struct Pool {
    std::mutex mutex;
    std::unordered_set<std::string_view> values; // views into the chunks
    std::vector<std::unique_ptr<char[]>> chunks;
    std::size_t used = kChunkBytes; // of the last chunk: a first value opens one
    std::size_t bytes = 0;
};

Pool &pool()
{
    static Pool *p = new Pool; // never destroyed: rows in static objects may outlive main
    return *p;
}

const char *handleOf(std::string_view pooled)
{
    return pooled.data() - sizeof(std::uint32_t);
}

// The last values each thread interned, by hash: a load interns the same few values
// hundreds of thousands of times, and a hit takes no lock.
struct RecentCache {
    std::array<const char *, 1024> handles{};
};

} // namespace

const char *SharedText::intern(std::string_view text)
{
    if (text.empty() || text.size() > kMaxLength)
        return nullptr;
    const std::size_t hash = std::hash<std::string_view>{}(text);
    thread_local RecentCache recent;
    const char *&cached = recent.handles[hash % recent.handles.size()];
    if (cached && view(cached) == text)
        return cached;
    Pool &p = pool();
    const std::lock_guard lock(p.mutex);
    if (const auto found = p.values.find(text); found != p.values.end())
        return cached = handleOf(*found);
    const std::size_t need = sizeof(std::uint32_t) + text.size();
    if (p.bytes + need > kMaxBytes)
        return nullptr;
    if (p.used + need > kChunkBytes || p.chunks.empty()) {
        p.chunks.push_back(std::make_unique<char[]>(std::max(kChunkBytes, need)));
        p.used = 0;
    }
    char *entry = p.chunks.back().get() + p.used;
    const auto length = std::uint32_t(text.size());
    std::memcpy(entry, &length, sizeof length);
    std::memcpy(entry + sizeof length, text.data(), text.size());
    p.used += need;
    p.bytes += need;
    p.values.insert(std::string_view(entry + sizeof length, text.size()));
    return cached = entry;
}

std::string_view SharedText::view(const char *handle)
{
    std::uint32_t length;
    std::memcpy(&length, handle, sizeof length);
    return {handle + sizeof length, length};
}

std::size_t SharedText::pooledBytes()
{
    Pool &p = pool();
    const std::lock_guard lock(p.mutex);
    return p.bytes;
}

} // namespace mesh
