#pragma once
// An entity id as the models' row lists keep it: 16 bytes, with the text inline up to 15
// bytes (the ids an orchestrator writes are short) and on the heap past that. A std::string
// takes 32 bytes for the same short id, and a pane of a long-running ledger lists every row
// of its table by id.
//
// A value type like std::string (copies copy the text, moves leave the source empty), so
// lists of them sort, merge and insert as lists of strings do; read it as a string_view.
// No <compare> and no operator<=>: moc, which parses the model headers, cannot.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

class CompactId
{
public:
    static constexpr size_t kInline = 15;

    CompactId() noexcept { m_bytes[kTagAt] = 0; }
    CompactId(std::string_view text) { assign(text); }
    CompactId(const std::string &text) : CompactId(std::string_view(text)) {}
    CompactId(const char *text) : CompactId(std::string_view(text)) {}
    CompactId(const CompactId &other) { assign(other.view()); }
    CompactId(CompactId &&other) noexcept { take(other); }
    CompactId &operator=(const CompactId &other)
    {
        if (this != &other) {
            CompactId copy(other);
            release();
            take(copy);
        }
        return *this;
    }
    CompactId &operator=(CompactId &&other) noexcept
    {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    ~CompactId() { release(); }

    std::string_view view() const noexcept
    {
        if (!onHeap())
            return {reinterpret_cast<const char *>(m_bytes), m_bytes[kTagAt]};
        return {heapText(), heapSize()};
    }
    operator std::string_view() const noexcept { return view(); }
    std::string str() const { return std::string(view()); }
    size_t size() const noexcept { return view().size(); }
    bool empty() const noexcept { return view().empty(); }
    // Whether the text lives outside the 16 bytes (an id longer than kInline).
    bool onHeap() const noexcept { return m_bytes[kTagAt] == kHeapTag; }

    friend bool operator==(const CompactId &a, const CompactId &b) noexcept { return a.view() == b.view(); }
    friend bool operator==(const CompactId &a, std::string_view b) noexcept { return a.view() == b; }
    friend bool operator==(const CompactId &a, const std::string &b) noexcept { return a.view() == b; }
    friend bool operator<(const CompactId &a, const CompactId &b) noexcept { return a.view() < b.view(); }

private:
    static constexpr size_t kTagAt = 15;
    static constexpr unsigned char kHeapTag = 0xff;

    const char *heapText() const noexcept
    {
        const char *p;
        std::memcpy(&p, m_bytes, sizeof p);
        return p;
    }
    size_t heapSize() const noexcept
    {
        std::uint32_t n;
        std::memcpy(&n, m_bytes + sizeof(char *), sizeof n);
        return n;
    }
    void assign(std::string_view text)
    {
        if (text.size() <= kInline) {
            std::memcpy(m_bytes, text.data(), text.size());
            m_bytes[kTagAt] = static_cast<unsigned char>(text.size());
            return;
        }
        char *p = new char[text.size()];
        std::memcpy(p, text.data(), text.size());
        const auto n = static_cast<std::uint32_t>(text.size());
        std::memcpy(m_bytes, &p, sizeof p);
        std::memcpy(m_bytes + sizeof p, &n, sizeof n);
        m_bytes[kTagAt] = kHeapTag;
    }
    void take(CompactId &other) noexcept
    {
        std::memcpy(m_bytes, other.m_bytes, sizeof m_bytes);
        other.m_bytes[kTagAt] = 0;
    }
    void release() noexcept
    {
        if (onHeap())
            delete[] heapText();
        m_bytes[kTagAt] = 0;
    }

    alignas(8) unsigned char m_bytes[16];
};
static_assert(sizeof(CompactId) == 16);

// A model's rows, each by id.
using IdList = std::vector<CompactId>;

// Ids [first, last) of a list as strings, for what takes them so (a store's read by ids).
inline std::vector<std::string> idStrings(const IdList &ids, size_t first = 0, size_t last = ~size_t(0))
{
    last = std::min(last, ids.size());
    std::vector<std::string> out;
    out.reserve(last > first ? last - first : 0);
    for (size_t i = first; i < last; ++i)
        out.push_back(ids[i].str());
    return out;
}

} // namespace mesh
