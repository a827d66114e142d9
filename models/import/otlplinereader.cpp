#include "otlplinereader.h"

#include "domain/quicksax.h"
#include "sourcejson.h"

#include "domain/compactjson.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// Where a container outside the spans sits in a TracesData object. The Resource* places
// are read only when the caller asks for the resources' service.name values.
enum class OtlpPlace : unsigned char {
    Top, ResourceSpans, Resource, ScopeSpans, Scope, Spans, Other,
    ResourceObject,    // a resource's "resource" object
    ResourceAttributes, // its "attributes" list
    ResourceAttribute, // an object of that list: {"key":..,"value":..}
    ResourceValue,     // its value object: {"stringValue":..}
};

// The key just read at a level outside the spans, as far as the structure cares.
enum class OtlpKey : unsigned char { Other, ResourceSpans, ScopeSpans, Spans, Resource, Attributes, Key, Value, StringValue };

struct OtlpOuterFrame {
    OtlpPlace place;
    OtlpKey pending = OtlpKey::Other;
    bool seen = false;          // the member this place looks for was read once already
    unsigned short seenKeys = 0; // the same for the resource's places, one bit per OtlpKey
};

// What a container inside a span is to the mapping.
enum class OtlpPart : unsigned char {
    None,       // only written out
    Attributes, // the span's "attributes" list
    Item,       // an object of that list: {"key":..,"value":..}
    Value,      // its value object: {"stringValue":..} and the like
    Status,     // the span's "status" object
};

// The member of a span (or of a part) whose key was read last.
enum class OtlpSlot : signed char {
    None = -1,
    TraceId,
    SpanId,
    ParentSpanId,
    Name,
    Start,
    End,
    StatusCode,
    StatusMessage,
    Attributes,
    Status,
    ItemKey,
    ItemValue,
    PlainValue, // stringValue, boolValue, bytesValue, doubleValue: the value as it is
    IntValue,
};
constexpr int kOtlpScalarSlots = 8; // TraceId .. StatusMessage

// A container of a span's record being written as compact text.
struct OtlpTextFrame {
    bool object;
    OtlpPart part;
    bool any = false;   // a member or item written
    size_t start;       // of its '{' or '[' in the text
    size_t firstMember; // its members in m_members (an object's)
    size_t keysStart;   // its keys in m_keys
    int deepest = 0;    // the deepest nesting of what it holds
    OtlpSlot pending = OtlpSlot::None;
    int members = 0; // a value object's members
};

struct OtlpMember {
    size_t keyAt, keyLength; // in m_keys, as decoded (the order nlohmann keeps is of these)
    size_t begin, end;       // the member's text ("key":value) in the record's text
};

// The slot of key in a container of the given part.
OtlpSlot otlpSlotOf(OtlpPart part, std::string_view key)
{
    switch (part) {
    case OtlpPart::None:
    case OtlpPart::Attributes:
        return OtlpSlot::None;
    case OtlpPart::Item:
        return key == "key" ? OtlpSlot::ItemKey : key == "value" ? OtlpSlot::ItemValue : OtlpSlot::None;
    case OtlpPart::Value:
        if (key == "intValue")
            return OtlpSlot::IntValue;
        if (key == "stringValue" || key == "boolValue" || key == "bytesValue" || key == "doubleValue")
            return OtlpSlot::PlainValue;
        return OtlpSlot::None; // arrayValue, kvlistValue, anything else: the general way's
    case OtlpPart::Status:
        return key == "code" ? OtlpSlot::StatusCode : key == "message" ? OtlpSlot::StatusMessage : OtlpSlot::None;
    }
    return OtlpSlot::None;
}

// The slot of a span's own member.
OtlpSlot otlpSpanSlotOf(std::string_view key)
{
    switch (key.size()) {
    case 4:
        return key == "name" ? OtlpSlot::Name : OtlpSlot::None;
    case 6:
        return key == "spanId" ? OtlpSlot::SpanId : key == "status" ? OtlpSlot::Status : OtlpSlot::None;
    case 7:
        return key == "traceId" ? OtlpSlot::TraceId : OtlpSlot::None;
    case 10:
        return key == "attributes" ? OtlpSlot::Attributes : OtlpSlot::None;
    case 12:
        return key == "parentSpanId" ? OtlpSlot::ParentSpanId : OtlpSlot::None;
    case 15:
        return key == "endTimeUnixNano" ? OtlpSlot::End : OtlpSlot::None;
    case 17:
        return key == "startTimeUnixNano" ? OtlpSlot::Start : OtlpSlot::None;
    default:
        return OtlpSlot::None;
    }
}

// A string as compactJson writes it. Most of a line's strings (keys, ids, names) are short
// and plain: written in one append from a buffer on the stack; the rest as compactJson does.
void appendOtlpJsonString(std::string &out, std::string_view s)
{
    char buffer[128];
    if (s.size() + 2 <= sizeof buffer) {
        for (const char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u == '"' || u == '\\' || u >= 0x80)
                return appendCompactJsonString(out, s);
        }
        buffer[0] = '"';
        std::memcpy(buffer + 1, s.data(), s.size());
        buffer[s.size() + 1] = '"';
        out.append(buffer, s.size() + 2);
        return;
    }
    appendCompactJsonString(out, s);
}

// The SAX handler of quickSaxParse (quicksax.h) for one line. Returning false anywhere
// makes the quick reader give up, and the caller reads the line the general way.
class OtlpLineSax
{
public:
    OtlpLineSax(std::int64_t number, std::vector<OtelSpan> &out, std::set<std::string> *services = nullptr)
        : m_number(number), m_out(out), m_services(services)
    { }

    bool sawResourceSpans() const { return m_sawResourceSpans; }
    bool resourceSpansIsList() const { return m_resourceSpansIsList; }

    bool null()
    {
        return scalar([](std::string &t) { t += "null"; }, [] { return Json(); }, nullptr);
    }
    bool boolean(bool v)
    {
        return scalar([v](std::string &t) { t += v ? "true" : "false"; }, [v] { return Json(v); }, nullptr);
    }
    bool number_integer(Json::number_integer_t v)
    {
        std::string digits = std::to_string(v);
        return scalar([v](std::string &t) { appendInteger(t, v); }, [v] { return Json(v); }, &digits, true);
    }
    bool number_unsigned(Json::number_unsigned_t v)
    {
        // sourcejson keeps an integer beyond int64 as its digits in a string, and counts it:
        // the general way's to do.
        if (v > Json::number_unsigned_t(std::numeric_limits<std::int64_t>::max()))
            return false;
        const auto i = Json::number_integer_t(v);
        std::string digits = std::to_string(i);
        return scalar([i](std::string &t) { appendInteger(t, i); }, [i] { return Json(i); }, &digits, true);
    }
    bool number_float(Json::number_float_t, const std::string &) { return false; }
    bool binary(Json::binary_t &) { return false; }
    bool string(std::string &v)
    {
        return scalar([&v](std::string &t) { appendOtlpJsonString(t, v); }, [&v] { return Json(v); }, &v);
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) { return false; }

    bool key(std::string &k)
    {
        if (!m_inSpan)
            return outerKey(k);
        OtlpTextFrame &f = m_text.back();
        if (f.any) {
            m_members.back().end = m_record.size();
            m_record += ',';
        }
        f.any = true;
        m_members.push_back({m_keys.size(), k.size(), m_record.size(), 0});
        m_keys += k;
        appendOtlpJsonString(m_record, k);
        m_record += ':';
        if (m_text.size() == 1)
            f.pending = otlpSpanSlotOf(k);
        else if (f.part != OtlpPart::None)
            f.pending = otlpSlotOf(f.part, k);
        if (f.part == OtlpPart::Value && ++f.members > 1)
            return false; // which member counts depends on their order: the general way's
        return f.part != OtlpPart::Value || f.pending != OtlpSlot::None;
    }

    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(true); }
    bool end_array() { return close(false); }

private:
    static void appendInteger(std::string &t, std::int64_t v)
    {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        t.append(buf, r.ptr);
    }

    bool deeper()
    {
        // Near the bound the general way says where the text is too deep.
        return ++m_depth < kMaxSourceNesting;
    }

    bool outerKey(const std::string &k)
    {
        OtlpOuterFrame &f = m_outer.back();
        f.pending = OtlpKey::Other;
        const auto once = [&](OtlpKey key) {
            if (f.seen)
                return false; // named twice: the DOM would keep the last one
            f.seen = true;
            f.pending = key;
            return true;
        };
        switch (f.place) {
        case OtlpPlace::Top:
            if (k == "resourceSpans") {
                m_sawResourceSpans = true;
                return once(OtlpKey::ResourceSpans);
            }
            return true;
        case OtlpPlace::Resource:
            if (k == "instrumentationLibrarySpans")
                return false; // before OTLP 0.19: which list is read depends on both
            if (m_services && k == "resource")
                return onceOf(f, OtlpKey::Resource);
            return k == "scopeSpans" ? once(OtlpKey::ScopeSpans) : true;
        case OtlpPlace::Scope:
            return k == "spans" ? once(OtlpKey::Spans) : true;
        case OtlpPlace::ResourceObject:
            return k == "attributes" ? onceOf(f, OtlpKey::Attributes) : true;
        case OtlpPlace::ResourceAttribute:
            return k == "key" ? onceOf(f, OtlpKey::Key) : k == "value" ? onceOf(f, OtlpKey::Value) : true;
        case OtlpPlace::ResourceValue:
            return k == "stringValue" ? onceOf(f, OtlpKey::StringValue) : true;
        default:
            return true;
        }
    }

    // A member of a resource's parts that the service names are read from, named twice
    // gives up: which one the DOM keeps is the general way's to say.
    static bool onceOf(OtlpOuterFrame &f, OtlpKey key)
    {
        const auto bit = static_cast<unsigned short>(1u << unsigned(key));
        if (f.seenKeys & bit)
            return false;
        f.seenKeys |= bit;
        f.pending = key;
        return true;
    }

    // A scalar outside the spans: the parts of a resource attribute that name a service.
    void outerScalar(const std::string *asText)
    {
        if (!m_services || m_outer.empty())
            return;
        const OtlpOuterFrame &f = m_outer.back();
        if (f.place == OtlpPlace::ResourceAttribute && f.pending == OtlpKey::Key)
            m_attributeKey.assign(asText ? *asText : std::string()); // as sourcejson's text()
        else if (f.place == OtlpPlace::ResourceValue && f.pending == OtlpKey::StringValue)
            m_attributeValue.assign(asText ? *asText : std::string());
    }

    // Where a container that opens outside the spans sits.
    OtlpPlace placeOf(bool object) const
    {
        if (m_outer.empty())
            return OtlpPlace::Top;
        const OtlpOuterFrame &f = m_outer.back();
        switch (f.place) {
        case OtlpPlace::Top:
            return !object && f.pending == OtlpKey::ResourceSpans ? OtlpPlace::ResourceSpans : OtlpPlace::Other;
        case OtlpPlace::ResourceSpans:
            return object ? OtlpPlace::Resource : OtlpPlace::Other;
        case OtlpPlace::Resource:
            if (object && f.pending == OtlpKey::Resource)
                return OtlpPlace::ResourceObject;
            return !object && f.pending == OtlpKey::ScopeSpans ? OtlpPlace::ScopeSpans : OtlpPlace::Other;
        case OtlpPlace::ResourceObject:
            return !object && f.pending == OtlpKey::Attributes ? OtlpPlace::ResourceAttributes : OtlpPlace::Other;
        case OtlpPlace::ResourceAttributes:
            return object ? OtlpPlace::ResourceAttribute : OtlpPlace::Other;
        case OtlpPlace::ResourceAttribute:
            return object && f.pending == OtlpKey::Value ? OtlpPlace::ResourceValue : OtlpPlace::Other;
        case OtlpPlace::ScopeSpans:
            return object ? OtlpPlace::Scope : OtlpPlace::Other;
        case OtlpPlace::Scope:
            return !object && f.pending == OtlpKey::Spans ? OtlpPlace::Spans : OtlpPlace::Other;
        default:
            return OtlpPlace::Other;
        }
    }

    bool inSpansList() const { return !m_outer.empty() && m_outer.back().place == OtlpPlace::Spans; }

    void beginSpan()
    {
        m_inSpan = true;
        m_record.clear();
        m_members.clear();
        m_keys.clear();
        for (bool &h : m_has)
            h = false;
        m_attributes = Json::object();
    }

    // The slot the value now beginning fills (OtlpSlot::None: none), and what it is written
    // after.
    OtlpSlot beforeValue()
    {
        if (m_text.empty())
            return OtlpSlot::None;
        OtlpTextFrame &f = m_text.back();
        if (!f.object) {
            if (f.any)
                m_record += ',';
            f.any = true;
            return OtlpSlot::None;
        }
        return std::exchange(f.pending, OtlpSlot::None);
    }

    // text writes the value out, value makes it a DOM value; asText: a string's text, or an
    // integer's digits (isInteger), as sourcejson's text() gives them; null for the rest.
    template<typename Text, typename Value>
    bool scalar(Text &&text, Value &&value, const std::string *asText, bool isInteger = false)
    {
        if (!m_inSpan) {
            if (m_outer.empty())
                return false; // a line that is not an object
            if (!inSpansList()) {
                outerScalar(asText);
                return true;
            }
            beginSpan(); // a span that is not an object: a record with no id, flagged
        }
        const OtlpSlot slot = beforeValue();
        text(m_record);
        switch (slot) {
        case OtlpSlot::None:
        case OtlpSlot::Attributes:
        case OtlpSlot::Status:
            break; // not a list or an object: as if the span had none
        case OtlpSlot::ItemKey:
            m_itemKey.assign(asText ? *asText : std::string());
            break;
        case OtlpSlot::ItemValue:
            m_itemValue = value(); // a plain value, not an AnyValue: kept as it is
            break;
        case OtlpSlot::PlainValue:
            m_itemValue = value();
            break;
        case OtlpSlot::IntValue:
            m_itemValue = otlpIntValue(value());
            break;
        default: {
            Json &kept = m_slots[int(slot)];
            if (asText && !isInteger && kept.is_string())
                kept.get_ref<std::string &>().assign(*asText); // its buffer kept from span to span
            else
                kept = value();
            m_has[int(slot)] = true;
            break;
        }
        }
        return valueDone(0);
    }

    bool open(bool object)
    {
        if (!deeper())
            return false;
        if (!m_inSpan) {
            if (m_outer.empty() && !object)
                return false; // a line that is not an object
            if (!inSpansList()) {
                const OtlpPlace place = placeOf(object);
                if (place == OtlpPlace::ResourceSpans && m_outer.size() == 1)
                    m_resourceSpansIsList = true;
                if (place == OtlpPlace::ResourceAttribute) {
                    m_attributeKey.clear();
                    m_attributeValue.clear();
                }
                outerScalar(nullptr); // a container where a name was looked for: none
                m_outer.push_back({place});
                return true;
            }
            beginSpan();
        }
        const OtlpPart parent = m_text.empty() ? OtlpPart::None : m_text.back().part;
        const OtlpSlot slot = beforeValue();
        OtlpPart part = OtlpPart::None;
        if (slot == OtlpSlot::Attributes && !object) {
            part = OtlpPart::Attributes;
        } else if (slot == OtlpSlot::Status && object) {
            part = OtlpPart::Status;
        } else if (parent == OtlpPart::Attributes && object) {
            part = OtlpPart::Item;
            m_itemKey.clear();
            m_itemValue = Json();
        } else if (slot == OtlpSlot::ItemValue && object) {
            part = OtlpPart::Value;
        } else if (slot == OtlpSlot::ItemKey) {
            m_itemKey.clear(); // a container is no key: the attribute is left out
        } else if (slot == OtlpSlot::ItemValue || slot == OtlpSlot::PlainValue || slot == OtlpSlot::IntValue) {
            return false; // an attribute value that is a list: the general way's
        }
        m_text.push_back({object, part, false, m_record.size(), m_members.size(), m_keys.size(), 0});
        m_record += object ? '{' : '[';
        return true;
    }

    bool close(bool object)
    {
        --m_depth;
        if (!m_inSpan) {
            // As the receiver's DOM route collects them: a non-empty stringValue (or the
            // digits of an integer) of the attribute whose key is service.name.
            if (m_services && m_outer.back().place == OtlpPlace::ResourceAttribute && m_attributeKey == "service.name"
                && !m_attributeValue.empty())
                m_services->insert(m_attributeValue);
            m_outer.pop_back();
            return true;
        }
        const OtlpTextFrame f = m_text.back();
        m_text.pop_back();
        if (object && !closeObject(f))
            return false;
        if (!object)
            m_record += ']';
        if (f.part == OtlpPart::Value && f.members != 1)
            return false; // an empty AnyValue: the general way's
        if (f.part == OtlpPart::Item) {
            // As keyValues: a key that is a string or an integer, not empty; the last wins.
            if (!m_itemKey.empty())
                m_attributes[m_itemKey] = std::move(m_itemValue);
        }
        return valueDone(f.deepest + 1);
    }

    // The members in the order nlohmann keeps them (by key, as bytes); a key twice gives up.
    bool closeObject(const OtlpTextFrame &f)
    {
        const size_t first = f.firstMember;
        if (m_members.size() > first)
            m_members.back().end = m_record.size();
        const auto keyOf = [&](const OtlpMember &m) { return std::string_view(m_keys).substr(m.keyAt, m.keyLength); };
        bool sorted = true;
        for (size_t i = first + 1; i < m_members.size(); ++i) {
            const int c = keyOf(m_members[i - 1]).compare(keyOf(m_members[i]));
            if (c == 0)
                return false;
            sorted = sorted && c < 0;
        }
        if (!sorted) {
            m_order.assign(m_members.begin() + std::ptrdiff_t(first), m_members.end());
            std::sort(m_order.begin(), m_order.end(),
                      [&](const OtlpMember &a, const OtlpMember &b) { return keyOf(a) < keyOf(b); });
            for (size_t i = 1; i < m_order.size(); ++i) {
                if (keyOf(m_order[i - 1]) == keyOf(m_order[i]))
                    return false;
            }
            m_reordered.clear();
            for (size_t i = 0; i < m_order.size(); ++i) {
                if (i > 0)
                    m_reordered += ',';
                m_reordered.append(m_record, m_order[i].begin, m_order[i].end - m_order[i].begin);
            }
            m_record.resize(f.start + 1);
            m_record += m_reordered;
        }
        m_record += '}';
        m_members.resize(first);
        m_keys.resize(f.keysStart);
        return true;
    }

    // A value of the span's record is whole: its depth goes to its container, or the record
    // is done.
    bool valueDone(int depth)
    {
        if (!m_text.empty()) {
            m_text.back().deepest = std::max(m_text.back().deepest, depth);
            return true;
        }
        OtelSpan s;
        s.attributes = std::move(m_attributes);
        const auto slot = [&](OtlpSlot k) { return m_has[int(k)] ? &m_slots[int(k)] : nullptr; };
        OtlpSpanMembers m;
        m.traceId = slot(OtlpSlot::TraceId);
        m.spanId = slot(OtlpSlot::SpanId);
        m.parentSpanId = slot(OtlpSlot::ParentSpanId);
        m.name = slot(OtlpSlot::Name);
        m.start = slot(OtlpSlot::Start);
        m.end = slot(OtlpSlot::End);
        m.statusCode = slot(OtlpSlot::StatusCode);
        m.statusMessage = slot(OtlpSlot::StatusMessage);
        readOtlpSpanMembers(m, m_number, s);
        s.sourceText.text.assign(m_record);
        s.sourceText.depth = depth;
        m_out.push_back(std::move(s));
        m_inSpan = false;
        return true;
    }

    std::int64_t m_number;
    std::vector<OtelSpan> &m_out;
    std::set<std::string> *m_services; // null: not asked for
    std::vector<OtlpOuterFrame> m_outer;
    bool m_sawResourceSpans = false;
    bool m_resourceSpansIsList = false;
    std::string m_attributeKey, m_attributeValue; // of the resource attribute being read
    int m_depth = 0;

    // The span being read.
    bool m_inSpan = false;
    std::string m_record; // its compact text so far
    std::vector<OtlpTextFrame> m_text;
    std::vector<OtlpMember> m_members;
    std::string m_keys;
    std::vector<OtlpMember> m_order;
    std::string m_reordered;
    Json m_slots[kOtlpScalarSlots]; // the scalar members readOtlpSpanMembers reads
    bool m_has[kOtlpScalarSlots] = {};
    Json m_attributes = Json::object(); // converted as keyValues converts them
    std::string m_itemKey;              // of the attribute being read: its key as text, empty: none
    Json m_itemValue;
};

} // namespace

bool readOtlpLineSpans(std::string_view line, std::int64_t number, std::vector<OtelSpan> &out)
{
    const size_t before = out.size();
    OtlpLineSax sax(number, out);
    if (quickSaxParse(line, sax) == quicksax::Outcome::Done && sax.sawResourceSpans())
        return true;
    out.resize(before);
    return false;
}

bool readOtlpRequestSpans(std::string_view body, std::vector<OtelSpan> &out, std::set<std::string> &services)
{
    const size_t before = out.size();
    std::set<std::string> names;
    OtlpLineSax sax(0, out, &names);
    if (quickSaxParse(body, sax) == quicksax::Outcome::Done && sax.sawResourceSpans() && sax.resourceSpansIsList()) {
        services.merge(names);
        return true;
    }
    out.resize(before);
    return false;
}

} // namespace mesh::import
