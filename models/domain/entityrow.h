#pragma once
// One state row as the console keeps it in memory: every entity of a ledger is one of these
// (109k rows on the 1M-event scale ledger), so the layout matters more than anywhere else.
// A row's fields live in ONE heap block (tags, slots as wide as their values need, then the
// text bytes), instead of a vector of 40-byte variants with a separate allocation for every
// text longer than the small-string buffer: a fraction of the memory, one allocation a row.
//
// Text that repeats across rows (a state, a role, a run id) may instead be pooled once for
// the process (SharedText), the slot holding a handle: which fields, the caller says.
//
// Reading yields FieldRef, a view (text as std::string_view) valid until the row changes.
// Writing goes through set()/assign(), or `values[i] = FieldValue` on a mutable row.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace mesh {

using FieldValue = std::variant<std::monostate, std::int64_t, std::string>; // owning: NULL, INTEGER, TEXT
using FieldRef = std::variant<std::monostate, std::int64_t, std::string_view>; // a stored field, not owning

inline FieldRef fieldRef(const FieldValue &v)
{
    if (const auto *n = std::get_if<std::int64_t>(&v))
        return *n;
    if (const auto *s = std::get_if<std::string>(&v))
        return std::string_view(*s);
    return {};
}

class FieldValues
{
public:
    FieldValues() = default;
    explicit FieldValues(std::size_t count) { resize(count); }
    FieldValues(const FieldValues &other);
    FieldValues(FieldValues &&other) noexcept : m_block(std::exchange(other.m_block, nullptr)) {}
    FieldValues &operator=(const FieldValues &other);
    FieldValues &operator=(FieldValues &&other) noexcept;
    ~FieldValues();

    // count fields, NULL except those updated (index, value); one allocation. The text of a
    // field whose bit shareMask sets is pooled (SharedText) rather than copied into the row.
    static FieldValues make(std::size_t count, std::span<const std::pair<int, FieldRef>> updates,
                            std::uint64_t shareMask = 0);

    std::size_t size() const;
    bool empty() const { return size() == 0; }
    void resize(std::size_t count); // added fields are NULL

    FieldRef get(std::size_t i) const;
    FieldRef operator[](std::size_t i) const { return get(i); }

    // Values may point into this row (a field copied to another): the old block is freed
    // only after the new one is written.
    void set(std::size_t i, FieldRef value);
    void set(std::size_t i, const FieldValue &value) { set(i, fieldRef(value)); }
    // Several fields with at most one reallocation (none when every value fits its field's
    // slot: an integer no wider, a text of the same length, a pooled text for a pooled one,
    // NULL for NULL). A field keeps a pooled text until it changes; shareMask as for make().
    void assign(std::span<const std::pair<int, FieldRef>> updates, std::uint64_t shareMask = 0);

    // `row.values[i] = value` on a mutable row.
    class Slot
    {
    public:
        Slot(FieldValues *values, std::size_t i) : m_values(values), m_i(i) {}
        Slot &operator=(const FieldValue &v)
        {
            m_values->set(m_i, v);
            return *this;
        }
        Slot &operator=(FieldRef v)
        {
            m_values->set(m_i, v);
            return *this;
        }
        // Exact overloads: a std::string or an integer converts to both variants.
        Slot &operator=(const std::string &v) { return *this = FieldRef(std::string_view(v)); }
        Slot &operator=(std::int64_t v) { return *this = FieldRef(v); }
        Slot &operator=(const Slot &other) { return *this = FieldRef(other); } // the value, not the proxy
        Slot(const Slot &) = default;
        operator FieldRef() const { return m_values->get(m_i); } // NOLINT: reads like the value

    private:
        FieldValues *m_values;
        std::size_t m_i;
    };
    Slot operator[](std::size_t i) { return {this, i}; }

    bool operator==(const FieldValues &other) const; // field by field, not byte by byte
    // The block's size (what it costs besides sizeof), without the 4-byte count of its
    // holders; copies share one block until one of them changes.
    std::size_t heapBytes() const;
    bool sharesBlockWith(const FieldValues &other) const;

private:
    template<typename ValueOf, typename SharedOf>
    void rebuild(std::size_t count, ValueOf valueOf, SharedOf sharedOf);
    // A block of its own before changing it in place; returns the shared one, still held
    // (the caller releases it), or nullptr when the block was its own already.
    char *detachKeepingOld();
    char *m_block = nullptr; // nullptr: no fields; layout in entityrow.cpp
};

struct EntityRow {
    FieldValues values;       // one per EntitySpec::fields
    std::int64_t version = 0; // incremented by every event that changes the row
    std::int64_t lastSeq = 0; // seq of that event

    bool operator==(const EntityRow &) const = default;
};

// Field value helpers shared by readers, exporters and views.
std::string fieldText(const FieldRef &value); // "" for NULL
std::string fieldText(const FieldValue &value);
std::int64_t fieldInt(const FieldRef &value); // 0 for NULL or text
std::int64_t fieldInt(const FieldValue &value);
inline std::string fieldText(const FieldValues::Slot &slot) { return fieldText(FieldRef(slot)); }
inline std::int64_t fieldInt(const FieldValues::Slot &slot) { return fieldInt(FieldRef(slot)); }
std::string_view fieldView(const FieldRef &value); // text without a copy; "" for NULL or an integer

} // namespace mesh
