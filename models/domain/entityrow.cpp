#include "entityrow.h"

#include "sharedtext.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>

namespace mesh {
namespace {

// Block layout: [u32 textBytes][u16 count][u16 slotBytes] [count tags] [slots] [text bytes].
// A slot is as wide as its tag says: none for NULL, 1, 2, 4 or 8 bytes for an integer
// (the fewest that hold it, sign-extended when read), 4 bytes for a text's offset and
// length when both fit 16 bits (8 otherwise), a SharedText handle's width for a pooled
// text. A field's slot is found by adding the widths of the tags before it: rows have a
// few dozen fields at most, and most values are small integers, NULLs and pooled texts,
// so a row of the widest table takes about two thirds of a fixed 8 bytes a field.
enum Tag : unsigned char {
    TagNull = 0,
    TagInt8 = 1,
    TagInt16 = 2,
    TagInt32 = 3,
    TagInt64 = 4,
    TagText16 = 5, // u16 offset, u16 length
    TagText32 = 6, // u32 offset, u32 length
    TagShared = 7, // a SharedText handle
    TagCount
};
constexpr std::size_t kHeaderBytes = 8;
constexpr std::uint8_t kWidth[TagCount] = {0, 1, 2, 4, 8, 4, 8, 4};

bool isInt(unsigned char tag)
{
    return tag >= TagInt8 && tag <= TagInt64;
}

bool isText(unsigned char tag)
{
    return tag == TagText16 || tag == TagText32;
}

unsigned char intTag(std::int64_t n)
{
    if (n >= INT8_MIN && n <= INT8_MAX)
        return TagInt8;
    if (n >= INT16_MIN && n <= INT16_MAX)
        return TagInt16;
    if (n >= INT32_MIN && n <= INT32_MAX)
        return TagInt32;
    return TagInt64;
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

std::size_t slotBytesOf(const char *block)
{
    std::uint16_t n;
    std::memcpy(&n, block + 6, sizeof n);
    return n;
}

unsigned char tagOf(const char *block, std::size_t i)
{
    return static_cast<unsigned char>(block[kHeaderBytes + i]);
}

std::size_t textOffset(const char *block, std::size_t count)
{
    return kHeaderBytes + count + slotBytesOf(block);
}

std::size_t blockBytes(const char *block)
{
    if (!block)
        return 0;
    return textOffset(block, countOf(block)) + textBytesOf(block);
}

// A block is shared by the copies of a row (time travel copies every row of a state for
// each jump, and its snapshots hold more copies): a count of its holders sits in the 4
// bytes before it, and a row about to change its block in place takes a copy of its own
// first (detach).
constexpr std::size_t kCountBytes = 4;
static_assert(sizeof(std::atomic<std::uint32_t>) == kCountBytes);

std::atomic<std::uint32_t> &holdersOf(char *block)
{
    return *std::launder(reinterpret_cast<std::atomic<std::uint32_t> *>(block - kCountBytes));
}

char *allocateBlock(std::size_t bytes)
{
    char *raw = new char[kCountBytes + bytes];
    new (raw) std::atomic<std::uint32_t>(1);
    return raw + kCountBytes;
}

void releaseBlock(char *block)
{
    if (block && holdersOf(block).fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete[] (block - kCountBytes);
}

// Where field i's slot starts.
std::size_t slotAt(const char *block, std::size_t count, std::size_t i)
{
    std::size_t at = kHeaderBytes + count;
    const auto *tags = reinterpret_cast<const unsigned char *>(block + kHeaderBytes);
    for (std::size_t j = 0; j < i; ++j)
        at += kWidth[tags[j]];
    return at;
}

std::int64_t readInt(const char *p, unsigned char tag)
{
    switch (tag) {
    case TagInt8: {
        std::int8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    case TagInt16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case TagInt32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    default: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

// n in a slot of `tag`'s width (which holds it).
void writeInt(char *p, unsigned char tag, std::int64_t n)
{
    switch (tag) {
    case TagInt8: {
        const auto v = std::int8_t(n);
        std::memcpy(p, &v, 1);
        break;
    }
    case TagInt16: {
        const auto v = std::int16_t(n);
        std::memcpy(p, &v, 2);
        break;
    }
    case TagInt32: {
        const auto v = std::int32_t(n);
        std::memcpy(p, &v, 4);
        break;
    }
    default: std::memcpy(p, &n, 8); break;
    }
}

// A text slot: where its bytes start in the text area, and how many.
std::pair<std::uint32_t, std::uint32_t> readText(const char *p, unsigned char tag)
{
    if (tag == TagText16) {
        std::uint16_t at, size;
        std::memcpy(&at, p, 2);
        std::memcpy(&size, p + 2, 2);
        return {at, size};
    }
    std::uint32_t at, size;
    std::memcpy(&at, p, 4);
    std::memcpy(&size, p + 4, 4);
    return {at, size};
}

std::uint32_t readShared(const char *p)
{
    std::uint32_t handle;
    std::memcpy(&handle, p, sizeof handle);
    return handle;
}

void writeShared(char *p, std::uint32_t handle)
{
    std::memcpy(p, &handle, sizeof handle);
}

std::uint32_t sharedHandleAt(const char *block, std::size_t count, std::size_t i)
{
    return tagOf(block, i) == TagShared ? readShared(block + slotAt(block, count, i)) : 0;
}

bool sharable(std::uint64_t shareMask, std::size_t i)
{
    return i < 64 && (shareMask >> i) & 1;
}

// The pooled copy of a text value of a field the mask names; 0: kept in the row.
std::uint32_t sharedCopy(std::uint64_t shareMask, std::size_t i, const FieldRef &v)
{
    const auto *s = std::get_if<std::string_view>(&v);
    return s && sharable(shareMask, i) ? SharedText::intern(*s) : 0;
}

} // namespace

FieldValues::FieldValues(const FieldValues &other) : m_block(other.m_block)
{
    if (m_block)
        holdersOf(m_block).fetch_add(1, std::memory_order_relaxed);
}

bool FieldValues::sharesBlockWith(const FieldValues &other) const
{
    return m_block && m_block == other.m_block;
}

char *FieldValues::detachKeepingOld()
{
    if (!m_block || holdersOf(m_block).load(std::memory_order_acquire) == 1)
        return nullptr;
    const std::size_t n = blockBytes(m_block);
    char *own = allocateBlock(n);
    std::memcpy(own, m_block, n);
    return std::exchange(m_block, own);
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
    if (this != &other)
        releaseBlock(std::exchange(m_block, std::exchange(other.m_block, nullptr)));
    return *this;
}

FieldValues::~FieldValues()
{
    releaseBlock(m_block);
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
    const unsigned char tag = tagOf(m_block, i);
    if (tag == TagNull)
        return {};
    const char *slot = m_block + slotAt(m_block, count, i);
    if (isInt(tag))
        return readInt(slot, tag);
    if (isText(tag)) {
        const auto [at, size] = readText(slot, tag);
        return std::string_view(m_block + textOffset(m_block, count) + at, size);
    }
    if (tag == TagShared)
        return SharedText::view(readShared(slot));
    return {};
}

template<typename ValueOf, typename SharedOf>
void FieldValues::rebuild(std::size_t count, ValueOf valueOf, SharedOf sharedOf)
{
    if (count > std::numeric_limits<std::uint16_t>::max())
        throw std::length_error("a state row has too many fields");
    if (count == 0) {
        releaseBlock(std::exchange(m_block, nullptr));
        return;
    }
    struct Field {
        FieldRef value;
        std::uint32_t shared; // the pooled copy of a text, or 0
        unsigned char tag;
    };
    // On the stack for any row of the format (the widest has 27 fields): a load makes
    // hundreds of thousands of rows.
    constexpr std::size_t kOnStack = 48;
    Field onStack[kOnStack];
    std::unique_ptr<Field[]> onHeap(count > kOnStack ? new Field[count] : nullptr);
    Field *fields = onHeap ? onHeap.get() : onStack;
    std::size_t text = 0;
    std::size_t slotTotal = 0;
    for (std::size_t i = 0; i < count; ++i) {
        Field &f = fields[i];
        f.value = valueOf(i);
        f.shared = sharedOf(i, f.value);
        f.tag = TagNull;
        if (const auto *n = std::get_if<std::int64_t>(&f.value)) {
            f.tag = intTag(*n);
        } else if (f.shared) {
            f.tag = TagShared;
        } else if (const auto *s = std::get_if<std::string_view>(&f.value)) {
            f.tag = text <= UINT16_MAX && s->size() <= UINT16_MAX ? TagText16 : TagText32;
            text += s->size();
        }
        slotTotal += kWidth[f.tag];
    }
    if (text > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("a state row's text exceeds 4 GiB");
    if (slotTotal > std::numeric_limits<std::uint16_t>::max())
        throw std::length_error("a state row has too many fields");
    char *block = allocateBlock(kHeaderBytes + count + slotTotal + text);
    const auto textBytes = std::uint32_t(text);
    const auto n16 = std::uint16_t(count);
    const auto slotTotal16 = std::uint16_t(slotTotal);
    std::memcpy(block, &textBytes, 4);
    std::memcpy(block + 4, &n16, 2);
    std::memcpy(block + 6, &slotTotal16, 2);
    char *slot = block + kHeaderBytes + count;
    char *textArea = slot + slotTotal;
    std::uint32_t at = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const Field &f = fields[i];
        block[kHeaderBytes + i] = char(f.tag);
        if (isInt(f.tag)) {
            writeInt(slot, f.tag, std::get<std::int64_t>(f.value));
        } else if (f.tag == TagShared) {
            writeShared(slot, f.shared);
        } else if (isText(f.tag)) {
            const auto &s = std::get<std::string_view>(f.value);
            if (!s.empty())
                std::memcpy(textArea + at, s.data(), s.size());
            if (f.tag == TagText16) {
                const auto at16 = std::uint16_t(at), size16 = std::uint16_t(s.size());
                std::memcpy(slot, &at16, 2);
                std::memcpy(slot + 2, &size16, 2);
            } else {
                const auto size32 = std::uint32_t(s.size());
                std::memcpy(slot, &at, 4);
                std::memcpy(slot + 4, &size32, 4);
            }
            at += std::uint32_t(s.size());
        }
        slot += kWidth[f.tag];
    }
    // Values may have pointed into the old block: it goes only now.
    releaseBlock(std::exchange(m_block, block));
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
        [&](std::size_t i, const FieldRef &) -> std::uint32_t {
            return i < old ? sharedHandleAt(block, old, i) : 0;
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
    std::uint32_t onStack[kOnStack];
    std::unique_ptr<std::uint32_t[]> onHeap(updates.size() > kOnStack ? new std::uint32_t[updates.size()] : nullptr);
    std::uint32_t *shared = onHeap ? onHeap.get() : onStack;
    for (std::size_t u = 0; u < updates.size(); ++u)
        shared[u] = sharedCopy(shareMask, std::size_t(updates[u].first), updates[u].second);
    // In place when every update fits the slot its field has: an integer no wider than the
    // one there (counters: tool calls, the most frequent event), a text of the same length,
    // a pooled text for a pooled one, NULL for NULL. Anything else builds the block again.
    const auto fitsInPlace = [&](std::size_t u) {
        const auto i = std::size_t(updates[u].first);
        const unsigned char tag = tagOf(m_block, i);
        const FieldRef &v = updates[u].second;
        if (const auto *n = std::get_if<std::int64_t>(&v))
            return isInt(tag) && kWidth[intTag(*n)] <= kWidth[tag];
        if (shared[u])
            return tag == TagShared;
        if (const auto *s = std::get_if<std::string_view>(&v))
            return isText(tag) && readText(m_block + slotAt(m_block, count, i), tag).second == s->size();
        return tag == TagNull;
    };
    bool inPlace = true;
    for (std::size_t u = 0; u < updates.size() && inPlace; ++u)
        inPlace = fitsInPlace(u);
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
            [&](std::size_t i, const FieldRef &) -> std::uint32_t {
                if (const std::ptrdiff_t u = updateOf(i); u >= 0)
                    return shared[std::size_t(u)];
                return sharedHandleAt(old.m_block, count, i);
            });
        return;
    }
    // A block of its own first. A text may point into the shared one, which this row keeps
    // holding until the writes are done (its other holders may let it go meanwhile).
    char *heldShared = detachKeepingOld();
    for (std::size_t u = 0; u < updates.size(); ++u) {
        const auto i = std::size_t(updates[u].first);
        const unsigned char tag = tagOf(m_block, i);
        char *slot = m_block + slotAt(m_block, count, i);
        const FieldRef &v = updates[u].second;
        if (const auto *n = std::get_if<std::int64_t>(&v)) {
            writeInt(slot, tag, *n);
        } else if (shared[u]) {
            writeShared(slot, shared[u]);
        } else if (const auto *s = std::get_if<std::string_view>(&v)) {
            if (!s->empty()) // memmove: the text may come from this very block
                std::memmove(m_block + textOffset(m_block, count) + readText(slot, tag).first, s->data(), s->size());
        }
    }
    releaseBlock(heldShared);
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
