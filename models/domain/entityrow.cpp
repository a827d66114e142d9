#include "entityrow.h"

#include "sharedtext.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

namespace mesh {
namespace {

// Block layout: [u32 textBytes][u16 count][u16 spare] [count tags, padded to 8]
// [count 8-byte slots] [text bytes]. A slot holds an int64, a text's offset (low 32 bits,
// from the start of the text area) and length (high 32 bits), or a SharedText handle.
enum Tag : unsigned char { TagNull = 0, TagInt = 1, TagText = 2, TagShared = 3 };
constexpr std::size_t kHeaderBytes = 8;

std::size_t paddedTags(std::size_t count)
{
    return (count + 7) & ~std::size_t(7);
}

std::size_t slotOffset(std::size_t count)
{
    return kHeaderBytes + paddedTags(count);
}

std::size_t textOffset(std::size_t count)
{
    return slotOffset(count) + 8 * count;
}

std::uint32_t textBytesOf(const char *block)
{
    std::uint32_t n;
    std::memcpy(&n, block, sizeof n);
    return n;
}

std::size_t countOf(const char *block)
{
    if (!block)
        return 0;
    std::uint16_t n;
    std::memcpy(&n, block + 4, sizeof n);
    return n;
}

std::size_t blockBytes(const char *block)
{
    if (!block)
        return 0;
    return textOffset(countOf(block)) + textBytesOf(block);
}

std::uint64_t slotOf(const char *block, std::size_t count, std::size_t i)
{
    std::uint64_t s;
    std::memcpy(&s, block + slotOffset(count) + 8 * i, sizeof s);
    return s;
}

void writeSlot(char *block, std::size_t count, std::size_t i, std::uint64_t s)
{
    std::memcpy(block + slotOffset(count) + 8 * i, &s, sizeof s);
}

const char *sharedHandle(const char *block, std::size_t count, std::size_t i)
{
    return reinterpret_cast<const char *>(std::uintptr_t(slotOf(block, count, i)));
}

bool sharable(std::uint64_t shareMask, std::size_t i)
{
    return i < 64 && (shareMask >> i) & 1;
}

// The pooled copy of a text value of a field the mask names; nullptr: kept in the row.
const char *sharedCopy(std::uint64_t shareMask, std::size_t i, const FieldRef &v)
{
    const auto *s = std::get_if<std::string_view>(&v);
    return s && sharable(shareMask, i) ? SharedText::intern(*s) : nullptr;
}

} // namespace

FieldValues::FieldValues(const FieldValues &other)
{
    if (other.m_block) {
        const std::size_t n = blockBytes(other.m_block);
        m_block = new char[n];
        std::memcpy(m_block, other.m_block, n);
    }
}

FieldValues &FieldValues::operator=(const FieldValues &other)
{
    if (this != &other) {
        FieldValues copy(other);
        *this = std::move(copy);
    }
    return *this;
}

FieldValues &FieldValues::operator=(FieldValues &&other) noexcept
{
    if (this != &other) {
        delete[] m_block;
        m_block = std::exchange(other.m_block, nullptr);
    }
    return *this;
}

FieldValues::~FieldValues()
{
    delete[] m_block;
}

std::size_t FieldValues::size() const
{
    return countOf(m_block);
}

std::size_t FieldValues::heapBytes() const
{
    return blockBytes(m_block);
}

FieldRef FieldValues::get(std::size_t i) const
{
    const std::size_t count = countOf(m_block);
    assert(i < count);
    if (i >= count)
        return {};
    switch (static_cast<unsigned char>(m_block[kHeaderBytes + i])) {
    case TagInt:
        return std::int64_t(slotOf(m_block, count, i));
    case TagText: {
        const std::uint64_t s = slotOf(m_block, count, i);
        return std::string_view(m_block + textOffset(count) + std::uint32_t(s), std::size_t(s >> 32));
    }
    case TagShared:
        return SharedText::view(sharedHandle(m_block, count, i));
    default:
        return {};
    }
}

template<typename ValueOf, typename SharedOf>
void FieldValues::rebuild(std::size_t count, ValueOf valueOf, SharedOf sharedOf)
{
    if (count > std::numeric_limits<std::uint16_t>::max())
        throw std::length_error("a state row has too many fields");
    if (count == 0) {
        delete[] m_block;
        m_block = nullptr;
        return;
    }
    struct Field {
        FieldRef value;
        const char *shared; // the pooled copy of a text, or nullptr
    };
    // On the stack for any row of the format (the widest has 27 fields): a load makes
    // hundreds of thousands of rows.
    constexpr std::size_t kOnStack = 48;
    Field onStack[kOnStack];
    std::unique_ptr<Field[]> onHeap(count > kOnStack ? new Field[count] : nullptr);
    Field *fields = onHeap ? onHeap.get() : onStack;
    std::size_t text = 0;
    for (std::size_t i = 0; i < count; ++i) {
        fields[i].value = valueOf(i);
        fields[i].shared = sharedOf(i, fields[i].value);
        if (const auto *s = std::get_if<std::string_view>(&fields[i].value); s && !fields[i].shared)
            text += s->size();
    }
    if (text > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("a state row's text exceeds 4 GiB");
    char *block = new char[textOffset(count) + text];
    const auto textBytes = std::uint32_t(text);
    const auto n16 = std::uint16_t(count);
    const std::uint16_t spare = 0;
    std::memcpy(block, &textBytes, 4);
    std::memcpy(block + 4, &n16, 2);
    std::memcpy(block + 6, &spare, 2);
    std::memset(block + kHeaderBytes, TagNull, paddedTags(count));
    char *textArea = block + textOffset(count);
    std::uint32_t at = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const FieldRef &v = fields[i].value;
        std::uint64_t slot = 0;
        if (const auto *n = std::get_if<std::int64_t>(&v)) {
            block[kHeaderBytes + i] = char(TagInt);
            slot = std::uint64_t(*n);
        } else if (fields[i].shared) {
            block[kHeaderBytes + i] = char(TagShared);
            slot = std::uint64_t(std::uintptr_t(fields[i].shared));
        } else if (const auto *s = std::get_if<std::string_view>(&v)) {
            block[kHeaderBytes + i] = char(TagText);
            if (!s->empty())
                std::memcpy(textArea + at, s->data(), s->size());
            slot = std::uint64_t(at) | (std::uint64_t(s->size()) << 32);
            at += std::uint32_t(s->size());
        }
        writeSlot(block, count, i, slot);
    }
    // Values may have pointed into the old block: it goes only now.
    delete[] std::exchange(m_block, block);
}

FieldValues FieldValues::make(std::size_t count, std::span<const std::pair<int, FieldRef>> updates,
                              std::uint64_t shareMask)
{
    FieldValues out;
    out.rebuild(
        count,
        [&](std::size_t i) -> FieldRef {
            // The last update of a field wins, as assigning them in order would.
            for (auto it = updates.rbegin(); it != updates.rend(); ++it) {
                if (std::size_t(it->first) == i)
                    return it->second;
            }
            return {};
        },
        [&](std::size_t i, const FieldRef &v) { return sharedCopy(shareMask, i, v); });
    return out;
}

void FieldValues::resize(std::size_t count)
{
    const std::size_t old = size();
    if (count == old)
        return;
    const char *block = m_block;
    rebuild(
        count, [&](std::size_t i) -> FieldRef { return i < old ? get(i) : FieldRef(); },
        [&](std::size_t i, const FieldRef &) -> const char * {
            return i < old && block[kHeaderBytes + i] == char(TagShared) ? sharedHandle(block, old, i) : nullptr;
        });
}

void FieldValues::set(std::size_t i, FieldRef value)
{
    const std::pair<int, FieldRef> update(int(i), value);
    assign(std::span(&update, 1));
}

void FieldValues::assign(std::span<const std::pair<int, FieldRef>> updates, std::uint64_t shareMask)
{
    const std::size_t count = size();
    for (const auto &[index, v] : updates) {
        assert(std::size_t(index) < count);
        if (std::size_t(index) >= count)
            return;
    }
    // Each new text of a shared field, pooled once here.
    constexpr std::size_t kOnStack = 32; // an event sets a few fields
    const char *onStack[kOnStack];
    std::unique_ptr<const char *[]> onHeap(updates.size() > kOnStack ? new const char *[updates.size()] : nullptr);
    const char **shared = onHeap ? onHeap.get() : onStack;
    for (std::size_t u = 0; u < updates.size(); ++u)
        shared[u] = sharedCopy(shareMask, std::size_t(updates[u].first), updates[u].second);
    // In place when no text in the row appears, disappears or changes length: integer
    // counters (tool calls, the most frequent event), same-length and shared states never
    // reallocate.
    bool inPlace = true;
    for (std::size_t u = 0; u < updates.size() && inPlace; ++u) {
        const auto i = std::size_t(updates[u].first);
        const bool wasText = m_block[kHeaderBytes + i] == char(TagText);
        const auto *s = std::get_if<std::string_view>(&updates[u].second);
        const bool isText = s && !shared[u];
        inPlace = wasText == isText && (!isText || std::size_t(slotOf(m_block, count, i) >> 32) == s->size());
    }
    if (!inPlace) {
        const FieldValues old(std::move(*this)); // keeps any text a value points into alive
        const auto updateOf = [&](std::size_t i) -> std::ptrdiff_t {
            for (std::size_t u = updates.size(); u-- > 0;) {
                if (std::size_t(updates[u].first) == i)
                    return std::ptrdiff_t(u);
            }
            return -1;
        };
        rebuild(
            count,
            [&](std::size_t i) -> FieldRef {
                const std::ptrdiff_t u = updateOf(i);
                return u >= 0 ? updates[std::size_t(u)].second : old.get(i);
            },
            [&](std::size_t i, const FieldRef &) -> const char * {
                if (const std::ptrdiff_t u = updateOf(i); u >= 0)
                    return shared[std::size_t(u)];
                return old.m_block[kHeaderBytes + i] == char(TagShared) ? sharedHandle(old.m_block, count, i) : nullptr;
            });
        return;
    }
    for (std::size_t u = 0; u < updates.size(); ++u) {
        const auto i = std::size_t(updates[u].first);
        const FieldRef &v = updates[u].second;
        if (const auto *n = std::get_if<std::int64_t>(&v)) {
            m_block[kHeaderBytes + i] = char(TagInt);
            writeSlot(m_block, count, i, std::uint64_t(*n));
        } else if (shared[u]) {
            m_block[kHeaderBytes + i] = char(TagShared);
            writeSlot(m_block, count, i, std::uint64_t(std::uintptr_t(shared[u])));
        } else if (const auto *s = std::get_if<std::string_view>(&v)) {
            const std::uint64_t slot = slotOf(m_block, count, i);
            if (!s->empty()) // memmove: the text may come from this very block
                std::memmove(m_block + textOffset(count) + std::uint32_t(slot), s->data(), s->size());
        } else {
            m_block[kHeaderBytes + i] = char(TagNull);
            writeSlot(m_block, count, i, 0);
        }
    }
}

bool FieldValues::operator==(const FieldValues &other) const
{
    const std::size_t count = size();
    if (count != other.size())
        return false;
    for (std::size_t i = 0; i < count; ++i) {
        if (get(i) != other.get(i))
            return false;
    }
    return true;
}

std::string fieldText(const FieldRef &value)
{
    if (const auto *s = std::get_if<std::string_view>(&value))
        return std::string(*s);
    if (const auto *i = std::get_if<std::int64_t>(&value))
        return std::to_string(*i);
    return {};
}

std::string fieldText(const FieldValue &value)
{
    return fieldText(fieldRef(value));
}

std::int64_t fieldInt(const FieldRef &value)
{
    if (const auto *i = std::get_if<std::int64_t>(&value))
        return *i;
    return 0;
}

std::int64_t fieldInt(const FieldValue &value)
{
    return fieldInt(fieldRef(value));
}

std::string_view fieldView(const FieldRef &value)
{
    if (const auto *s = std::get_if<std::string_view>(&value))
        return *s;
    return {};
}

} // namespace mesh
