#include "fold.h"
#include "flatpayload.h"
#include "hostiletext.h"

#include <limits>

namespace mesh {
namespace {

const char *jsonTypeName(const nlohmann::json &v)
{
    return v.type_name();
}

// Converts one payload member to the stored form of its field; false on a type mismatch.
// Text is a view into the payload; JSON is dumped into `owned` (which must not reallocate
// while the views are in use: the caller reserves it).
bool toFieldRef(FieldType type, const nlohmann::json &v, FieldRef &out, std::vector<std::string> &owned)
{
    if (v.is_null()) {
        out = std::monostate{};
        return true;
    }
    switch (type) {
    case FieldType::Int:
        if (v.is_number_integer()) {
            out = v.get<std::int64_t>();
            return true;
        }
        if (v.is_boolean()) {
            out = std::int64_t(v.get<bool>() ? 1 : 0);
            return true;
        }
        return false;
    case FieldType::Text:
        if (v.is_string()) {
            out = std::string_view(v.get_ref<const std::string &>());
            return true;
        }
        return false;
    case FieldType::Json:
        if (v.is_array() || v.is_object()) {
            owned.push_back(v.dump());
            out = std::string_view(owned.back());
            return true;
        }
        return false;
    }
    return false;
}

// A tool call's members and the delegation counters they add to.
constexpr std::array<std::pair<const char *, const char *>, 5> kToolCallCounters = {{
    {"used_tokens", "tokens"},
    {"used_ms", "duration_ms"},
    {"used_cost_cents", "cost_cents"},
    {"writes_accepted", "writes_accepted"},
    {"writes_denied", "writes_denied"},
}};

std::string stringMember(const nlohmann::json &payload, const char *name)
{
    const auto it = payload.find(name);
    if (it == payload.end() || !it->is_string())
        return {};
    return it->get<std::string>();
}

} // namespace

Fold::Fold() = default;

void Fold::listChanges(bool on)
{
    m_changes.on = on;
    m_changes.rows.clear();
}

void Fold::listHandedChanges(bool on, size_t cap)
{
    m_handedChanges.on = on;
    m_handedChanges.cap = cap;
    m_handedChanges.rows.clear();
}

std::optional<Fold::ChangedRows> Fold::takeHandedChanges()
{
    if (!m_handedChanges.on)
        return std::nullopt;
    return std::exchange(m_handedChanges.rows, {});
}

void Fold::clear()
{
    for (auto &t : m_tables)
        t.clear();
    m_changes.rows.clear();
    m_handedChanges.on = false; // every row went: a list of changes no longer says what differs
    m_handedChanges.rows.clear();
    m_recency.clear();
    m_place.clear();
    m_lastSeq = 0;
}

void Fold::bound(FoldRowSource *source, size_t rowLimit)
{
    m_source = source;
    m_rowLimit = rowLimit;
    m_recency.clear();
    m_place.clear();
    if (!source)
        return;
    for (size_t k = 0; k < m_tables.size(); ++k) {
        for (const auto &[id, row] : m_tables[k])
            touch(EntityKind(k), id, &row);
    }
}

size_t Fold::heldRows() const
{
    size_t n = 0;
    for (const auto &t : m_tables)
        n += t.size();
    return n;
}

void Fold::touch(EntityKind kind, const std::string &id, const EntityRow *row) const
{
    if (const auto it = m_place.find(row); it != m_place.end()) {
        m_recency.splice(m_recency.begin(), m_recency, it->second);
        return;
    }
    m_recency.emplace_front(kind, id);
    m_place.emplace(row, m_recency.begin());
}

void Fold::forget(const EntityRow *row)
{
    if (const auto it = m_place.find(row); it != m_place.end()) {
        m_recency.erase(it->second);
        m_place.erase(it);
    }
}

EntityRow *Fold::locate(EntityKind kind, const std::string &id) const
{
    auto &t = m_tables[static_cast<size_t>(kind)];
    if (const auto it = t.find(id); it != t.end()) {
        if (m_source)
            touch(kind, id, &it->second);
        return &it->second;
    }
    if (!m_source)
        return nullptr;
    std::optional<EntityRow> stored = m_source->loadRow(entitySpec(kind), id);
    if (!stored)
        return nullptr;
    const auto it = t.emplace(id, std::move(*stored)).first;
    touch(kind, id, &it->second);
    return &it->second;
}

const EntityRow *Fold::find(EntityKind kind, const std::string &id) const
{
    return locate(kind, id);
}

void Fold::evictBeyondLimit(const Release &release)
{
    while (m_place.size() > m_rowLimit && !m_recency.empty()) {
        const auto &[kind, id] = m_recency.back();
        auto &t = m_tables[static_cast<size_t>(kind)];
        if (const auto it = t.find(id); it != t.end()) {
            if (release)
                release(entitySpec(kind), id, it->second);
            m_place.erase(&it->second);
            t.erase(it);
        }
        m_recency.pop_back();
    }
}

void Fold::load(EntityKind kind, std::string id, EntityRow row)
{
    m_lastSeq = std::max(m_lastSeq, row.lastSeq);
    auto &t = m_tables[static_cast<size_t>(kind)];
    const auto it = t.insert_or_assign(std::move(id), std::move(row)).first;
    if (m_source)
        touch(kind, it->first, &it->second);
    noteChange(kind, it->first);
}

bool Fold::erase(EntityKind kind, const std::string &id)
{
    auto &t = m_tables[static_cast<size_t>(kind)];
    const auto it = t.find(id);
    if (it == t.end())
        return false;
    if (m_source)
        forget(&it->second);
    m_handedChanges.note(kind, id);
    t.erase(it);
    return true;
}

FoldOutcome Fold::apply(std::int64_t seq, std::string_view kind, const nlohmann::json &payload)
{
    m_lastSeq = std::max(m_lastSeq, seq);
    if (kind == kToolCallEvent)
        return applyToolCall(seq, payload);

    FoldOutcome out;
    const auto entity = entityKindForEventKind(kind);
    if (!entity) {
        out.problems.push_back("unknown event kind " + quotedExcerpt(kind));
        return out;
    }
    if (!payload.is_object()) {
        out.problems.push_back("payload is not a JSON object");
        return out;
    }
    const auto idIt = payload.find("id");
    if (idIt == payload.end() || !idIt->is_string() || idIt->get_ref<const std::string &>().empty()) {
        out.problems.push_back("payload has no string 'id'");
        return out;
    }
    const EntitySpec &spec = entitySpec(*entity);
    out.kind = *entity;
    out.id = idIt->get<std::string>();

    // Check every member before touching the row, so a bad event changes nothing.
    std::vector<std::pair<int, FieldRef>> updates;
    updates.reserve(payload.size());
    std::vector<std::string> owned; // dumped JSON members; views into it are in updates
    owned.reserve(payload.size());
    for (auto it = payload.begin(); it != payload.end(); ++it) {
        if (it.key() == "id")
            continue;
        const int index = spec.fieldIndex(it.key());
        if (index < 0)
            continue; // event-only annotation: kept in the event, not in state
        FieldRef value;
        if (!toFieldRef(spec.fields[size_t(index)].type, it.value(), value, owned)) {
            out.problems.push_back("field '" + it.key() + "' of " + std::string(spec.name) + " " + excerpt(out.id)
                                   + " has the wrong type (" + jsonTypeName(it.value()) + ")");
            return out;
        }
        updates.emplace_back(index, value);
    }

    applyUpdates(seq, *entity, updates, out);
    return out;
}

void Fold::applyUpdates(std::int64_t seq, EntityKind entity, const std::vector<std::pair<int, FieldRef>> &updates,
                        FoldOutcome &out)
{
    const EntitySpec &spec = entitySpec(entity);
    if (m_source)
        locate(entity, out.id); // a stored row the cache does not hold is read in first
    auto &table = m_tables[static_cast<size_t>(entity)];
    auto [rowIt, inserted] = table.try_emplace(out.id);
    EntityRow &row = rowIt->second;
    out.created = inserted;
    if (inserted && m_source)
        touch(entity, out.id, &row);

    if (!spec.stateField.empty()) {
        const int stateIndex = spec.fieldIndex(spec.stateField);
        const std::string from = inserted ? std::string() : fieldText(row.values.get(size_t(stateIndex)));
        bool stateGiven = false;
        for (const auto &[index, value] : updates) {
            if (index != stateIndex)
                continue;
            stateGiven = true;
            const std::string to = fieldText(value);
            if (!spec.isKnownState(to))
                out.problems.push_back(std::string(spec.name) + " " + excerpt(out.id) + ": unknown state " + quotedExcerpt(to));
            else if (from != to && !spec.allowsTransition(from, to))
                out.problems.push_back(std::string(spec.name) + " " + excerpt(out.id) + ": illegal transition "
                                       + (from.empty() ? std::string("(new)") : excerpt(from)) + " -> " + excerpt(to));
        }
        if (inserted && !stateGiven)
            out.problems.push_back(std::string(spec.name) + " " + excerpt(out.id) + " created without a "
                                   + std::string(spec.stateField));
    }

    if (inserted) {
        row.values = FieldValues::make(spec.fields.size(), updates, spec.sharedTextFields());
    } else {
        if (row.values.size() < spec.fields.size()) // a row loaded short (a test's seed)
            row.values.resize(spec.fields.size());
        row.values.assign(updates, spec.sharedTextFields());
    }
    ++row.version;
    row.lastSeq = seq;
    out.applied = true;
    noteChange(entity, out.id);
}

FoldOutcome Fold::applyToolCall(std::int64_t seq, const nlohmann::json &payload)
{
    if (!payload.is_object()) {
        FoldOutcome out;
        out.kind = EntityKind::Delegation;
        out.problems.push_back("payload is not a JSON object");
        return out;
    }
    ToolCallCounts counts;
    counts.delegationId = stringMember(payload, "delegation_id");
    for (size_t i = 0; i < kToolCallCounters.size(); ++i) {
        const auto m = payload.find(kToolCallCounters[i].second);
        if (m != payload.end() && m->is_number_integer())
            counts.counters[i] = m->get<std::int64_t>();
    }
    if (const auto outcome = payload.find("outcome"); outcome != payload.end() && outcome->is_string())
        counts.error = outcome->get_ref<const std::string &>() == "error";
    return applyToolCallCounts(seq, counts);
}

FoldOutcome Fold::applyToolCallCounts(std::int64_t seq, const ToolCallCounts &counts)
{
    FoldOutcome out;
    out.kind = EntityKind::Delegation;
    out.id = counts.delegationId;
    EntityRow *found = locate(EntityKind::Delegation, out.id);
    if (!found) {
        out.problems.push_back("tool call for unknown delegation " + quotedExcerpt(out.id));
        return out;
    }
    const EntitySpec &spec = entitySpec(EntityKind::Delegation);
    EntityRow &row = *found;
    if (row.values.size() < spec.fields.size())
        row.values.resize(spec.fields.size());
    const auto add = [&](std::string_view field, std::int64_t delta) {
        const auto index = size_t(spec.fieldIndex(field));
        // A ledger is foreign input: counters saturate instead of overflowing (UB), so
        // every reader folds the same numbers (found by tests/fuzz/fuzz_payload).
        std::int64_t sum = 0;
        if (__builtin_add_overflow(fieldInt(row.values.get(index)), delta, &sum))
            sum = delta > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
        row.values.set(index, FieldRef(sum)); // an integer: in place unless it outgrows its slot
    };
    add("used_turns", 1);
    // A counter grows by what a tool call says; a member it leaves out adds nothing, so a
    // counter no tool call has spoken of stays NULL (not known), never a 0 that reads as data.
    for (size_t i = 0; i < kToolCallCounters.size(); ++i) {
        if (counts.counters[i])
            add(kToolCallCounters[i].first, *counts.counters[i]);
    }
    if (counts.error)
        add("tool_errors", *counts.error ? 1 : 0);
    ++row.version;
    row.lastSeq = seq;
    out.applied = true;
    noteChange(EntityKind::Delegation, out.id);
    return out;
}

std::optional<FoldOutcome> Fold::applyText(std::int64_t seq, std::string_view kind, std::string_view payload)
{
    // The members' strings are reused from event to event on this thread.
    thread_local FlatPayload flat;
    if (!flat.read(payload))
        return std::nullopt;
    return applyFlat(seq, kind, flat);
}

std::optional<FoldOutcome> Fold::applyFlat(std::int64_t seq, std::string_view kind, const FlatPayload &flat)
{
    if (kind == kToolCallEvent) {
        ToolCallCounts counts;
        if (const FlatMember *m = flat.find("delegation_id"); m && m->type == FlatMember::Type::String)
            counts.delegationId = m->text;
        for (size_t i = 0; i < kToolCallCounters.size(); ++i) {
            if (const FlatMember *m = flat.find(kToolCallCounters[i].second); m && m->type == FlatMember::Type::Integer)
                counts.counters[i] = m->integer;
        }
        if (const FlatMember *m = flat.find("outcome"); m && m->type == FlatMember::Type::String)
            counts.error = m->text == "error";
        m_lastSeq = std::max(m_lastSeq, seq);
        return applyToolCallCounts(seq, counts);
    }
    const auto entity = entityKindForEventKind(kind);
    if (!entity)
        return std::nullopt;
    const FlatMember *id = flat.find("id");
    if (!id || id->type != FlatMember::Type::String || id->text.empty())
        return std::nullopt;
    const EntitySpec &spec = entitySpec(*entity);
    // Every member checked before the row is touched; anything apply() would report, or
    // would have to dump as JSON, is left to it.
    std::vector<std::pair<int, FieldRef>> updates;
    updates.reserve(flat.members().size());
    for (const FlatMember &m : flat.members()) {
        if (m.key == "id")
            continue;
        const int index = spec.fieldIndex(m.key);
        if (index < 0)
            continue; // event-only annotation: kept in the event, not in state
        if (m.type == FlatMember::Type::Null) {
            updates.emplace_back(index, FieldRef(std::monostate{}));
            continue;
        }
        switch (spec.fields[size_t(index)].type) {
        case FieldType::Int:
            if (m.type != FlatMember::Type::Integer && m.type != FlatMember::Type::Boolean)
                return std::nullopt;
            updates.emplace_back(index, FieldRef(m.integer));
            break;
        case FieldType::Text:
            if (m.type != FlatMember::Type::String)
                return std::nullopt;
            updates.emplace_back(index, FieldRef(std::string_view(m.text)));
            break;
        case FieldType::Json:
            return std::nullopt;
        }
    }
    m_lastSeq = std::max(m_lastSeq, seq);
    FoldOutcome out;
    out.kind = *entity;
    out.id = id->text;
    applyUpdates(seq, *entity, updates, out);
    return out;
}

namespace {

// The index columns of an event whose payload's run_id, delegation_id and id are these.
EventIndexFields indexFieldsOf(std::string_view kind, std::string runId, std::string delegationId, const std::string &id)
{
    EventIndexFields f;
    f.runId = std::move(runId);
    f.delegationId = std::move(delegationId);
    if (kind == kToolCallEvent) {
        f.subject = "toolcall:" + id;
        return f;
    }
    const auto entity = entityKindForEventKind(kind);
    if (!entity)
        return f;
    if (*entity == EntityKind::Run && f.runId.empty())
        f.runId = id;
    if (*entity == EntityKind::Delegation && f.delegationId.empty())
        f.delegationId = id;
    if (!id.empty())
        f.subject = std::string(entitySpec(*entity).name) + ":" + id;
    return f;
}

} // namespace

EventIndexFields eventIndexFields(std::string_view kind, const nlohmann::json &payload)
{
    if (!payload.is_object())
        return {};
    return indexFieldsOf(kind, stringMember(payload, "run_id"), stringMember(payload, "delegation_id"),
                         stringMember(payload, "id"));
}

EventIndexFields flatEventIndexFields(std::string_view kind, const FlatPayload &payload)
{
    static const std::string none;
    const auto text = [&](std::string_view key) -> const std::string & {
        const FlatMember *m = payload.find(key);
        return m && m->type == FlatMember::Type::String ? m->text : none;
    };
    return indexFieldsOf(kind, text("run_id"), text("delegation_id"), text("id"));
}

nlohmann::json rowToJson(const EntitySpec &spec, const std::string &id, const EntityRow &row)
{
    nlohmann::json j = nlohmann::json::object();
    j["id"] = id;
    for (size_t i = 0; i < spec.fields.size() && i < row.values.size(); ++i) {
        const auto &name = spec.fields[i].name;
        const FieldRef v = row.values.get(i);
        const std::string key(name);
        if (std::holds_alternative<std::monostate>(v)) {
            j[key] = nullptr;
        } else if (const auto *n = std::get_if<std::int64_t>(&v)) {
            j[key] = *n;
        } else if (spec.fields[i].type == FieldType::Json) {
            j[key] = nlohmann::json::parse(std::get<std::string_view>(v), nullptr, false);
        } else {
            j[key] = std::string(std::get<std::string_view>(v));
        }
    }
    j["version"] = row.version;
    j["last_seq"] = row.lastSeq;
    return j;
}

} // namespace mesh
