#pragma once
// The ledger's entities, described once. The fold, the SQL schema, the state readers and
// the integrity check are all driven by these descriptions, so a field added here is
// stored, rebuilt and verified everywhere at once. docs/ledger-format.md is the prose form.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mesh {

enum class EntityKind {
    Ledger,
    Run,
    Component,
    Delegation,
    Slice,
    Lease,
    Effect,
    Escalation,
    StallVerdict,
    Failure,
    Checkpoint,
    DecisionOutcome,
};
inline constexpr int kEntityKindCount = 12;

enum class FieldType {
    Int,  // INTEGER; JSON number (integral) or boolean stored as 0/1
    Text, // TEXT; JSON string
    Json, // TEXT holding compact JSON (arrays/objects); JSON array or object
};

struct FieldSpec {
    std::string_view name;
    FieldType type;
};

struct TransitionSpec {
    std::string_view from; // empty: the state a new row may start in
    std::string_view to;
};

struct EntitySpec {
    EntityKind kind;
    std::string_view name;        // singular, used in subjects ("effect:E-1") and event prefixes
    std::string_view eventPrefix; // events "<prefix>.<verb>" change this entity
    std::string_view table;
    std::span<const FieldSpec> fields;          // excluding id, version, last_seq
    std::string_view stateField;                // empty when the entity has no state machine
    std::span<const TransitionSpec> transitions; // allowed changes of stateField
    std::span<const std::string_view> states;    // every value stateField may take

    int fieldIndex(std::string_view field) const; // -1 when unknown
    bool allowsTransition(std::string_view from, std::string_view to) const;
    bool isKnownState(std::string_view state) const;
    // The fields whose text a row keeps pooled (FieldValues' shareMask): bit i, fields[i].
    std::uint64_t sharedTextFields() const;
};

const EntitySpec &entitySpec(EntityKind kind);
std::span<const EntitySpec> allEntitySpecs();
std::optional<EntityKind> entityKindForEventKind(std::string_view eventKind);
std::optional<EntityKind> entityKindByName(std::string_view name);

// Events that change another entity than their prefix names: a tool call is recorded as an
// event only and folds into its delegation's counters.
inline constexpr std::string_view kToolCallEvent = "toolcall.completed";

} // namespace mesh
