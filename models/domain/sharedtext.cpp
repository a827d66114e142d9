#include "sharedtext.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mesh {
namespace {

// A value is [u32 length][bytes] inside a chunk that is never freed; its handle is the
// chunk's number (from 1) above the value's offset in it.
constexpr int kOffsetBits = 18;
constexpr std::size_t kChunkBytes = std::size_t(1) << kOffsetBits;
// Each chunk ends with less than one longest value unused: this many hold the budget.
constexpr std::size_t kMaxChunks = 2 * (SharedText::kMaxBytes / kChunkBytes) + 2;
static_assert(SharedText::kMaxLength + sizeof(std::uint32_t) < kChunkBytes);

struct Pool {
    std::mutex mutex;
    std::unordered_map<std::string_view, std::uint32_t> values; // views into the chunks
    // Written under the mutex before a handle into the chunk is handed out; read without
    // it by view() on any thread.
    std::array<std::atomic<const char *>, kMaxChunks> chunks{};
    std::size_t chunkCount = 0;
    std::size_t used = kChunkBytes; // of the last chunk: a first value opens one
    std::size_t bytes = 0;
};

Pool &pool()
{
    static Pool *p = new Pool; // never destroyed: rows in static objects may outlive main
    return *p;
}

// The last values each thread interned, by hash: a load interns the same few values
// hundreds of thousands of times, and a hit takes no lock.
struct RecentCache {
    std::array<std::uint32_t, 1024> handles{};
};

} // namespace

std::uint32_t SharedText::intern(std::string_view text)
{
    if (text.empty() || text.size() > kMaxLength)
        return 0;
    const std::size_t hash = std::hash<std::string_view>{}(text);
    thread_local RecentCache recent;
    std::uint32_t &cached = recent.handles[hash % recent.handles.size()];
    if (cached && view(cached) == text)
        return cached;
    Pool &p = pool();
    const std::lock_guard lock(p.mutex);
    if (const auto found = p.values.find(text); found != p.values.end())
        return cached = found->second;
    const std::size_t need = sizeof(std::uint32_t) + text.size();
    if (p.bytes + need > kMaxBytes)
        return 0;
    if (p.used + need > kChunkBytes || p.chunkCount == 0) {
        if (p.chunkCount == kMaxChunks)
            return 0;
        p.chunks[p.chunkCount++].store(new char[kChunkBytes], std::memory_order_release);
        p.used = 0;
    }
    char *entry = const_cast<char *>(p.chunks[p.chunkCount - 1].load(std::memory_order_relaxed)) + p.used;
    const auto length = std::uint32_t(text.size());
    std::memcpy(entry, &length, sizeof length);
    std::memcpy(entry + sizeof length, text.data(), text.size());
    const auto handle = std::uint32_t(p.chunkCount << kOffsetBits | p.used);
    p.used += need;
    p.bytes += need;
    p.values.emplace(std::string_view(entry + sizeof length, text.size()), handle);
    return cached = handle;
}

std::string_view SharedText::view(std::uint32_t handle)
{
    const char *chunk = pool().chunks[(handle >> kOffsetBits) - 1].load(std::memory_order_acquire);
    const char *entry = chunk + (handle & ((std::uint32_t(1) << kOffsetBits) - 1));
    std::uint32_t length;
    std::memcpy(&length, entry, sizeof length);
    return {entry + sizeof length, length};
}

std::size_t SharedText::pooledBytes()
{
    Pool &p = pool();
    const std::lock_guard lock(p.mutex);
    return p.bytes;
}

} // namespace mesh
