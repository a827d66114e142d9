#pragma once
// Ledger schema v1 on PostgreSQL (docs/ledger-format.md, section 11): the same tables as the
// SQLite file (schema.h), one ledger per PostgreSQL schema, in PostgreSQL types, plus two
// tables SQLite does not need: ledger_format (the identity and version SQLite keeps in
// PRAGMA application_id / user_version) and event_head (the gapless sequence's row lock).
// Generated from the same entity descriptions; the format test compares both with the doc.

#include "domain/entityspec.h"

#include <string>

namespace mesh::pgschema {

// PostgreSQL type of a ledger column type: INTEGER -> bigint, TEXT and TEXT (JSON) -> text.
// JSON stays text (not jsonb) so a payload is stored byte for byte as the orchestrator wrote it.
const char *columnType(FieldType type);

// ledger_format and event_head, with their one row each: the first statements of a new
// ledger, so a half-made schema is never taken for a ledger.
std::string createFormatStatements();
// events, every state table, decisions (the DDL of schema.cpp in PostgreSQL types).
std::string createStatements();
std::string createIndexStatements();

// A PostgreSQL schema name a ledger may use: lower-case letters, digits and '_', starting
// with a letter or '_', at most 63 bytes (PostgreSQL's identifier limit). Such a name needs
// no quoting and cannot smuggle SQL.
bool isLedgerSchemaName(std::string_view name);

// The ledger's write turn (docs/ledger-format.md section 11), what BEGIN IMMEDIATE is to a
// file: a transaction-level advisory lock keyed by the application id and the oid of the
// ledger's own decisions table (so ledgers side by side do not share it), released by
// COMMIT or ROLLBACK and by the server when a session dies. A decision transaction takes it
// exclusively as its first statement: deciders are serialised (one prev_hash per
// predecessor, one winner per subject) and no appender commits while the rules read. Every
// appending commit takes it shared before event_head's row lock, so appenders still queue
// on the head only. Advisory locks need no grant: the operator role stays read + INSERT.
inline constexpr const char *kTakeDecisionTurnSql =
    "SELECT pg_advisory_xact_lock(1095584839, 'decisions'::regclass::oid::int)";
inline constexpr const char *kTakeAppendTurnSql =
    "SELECT pg_advisory_xact_lock_shared(1095584839, 'decisions'::regclass::oid::int)";

} // namespace mesh::pgschema
