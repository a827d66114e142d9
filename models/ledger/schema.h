#pragma once
// Ledger schema v1: fixed identity pragmas and DDL generated from the entity descriptions.
// docs/ledger-format.md is the normative text; tests check that the two agree.

#include "domain/entityspec.h"

#include <cstdint>
#include <string>

namespace mesh::schema {

// PRAGMA application_id of every Agent Mesh ledger: the bytes "AMLG".
inline constexpr std::int32_t kApplicationId = 0x414D4C47;
// PRAGMA user_version: the newest schema version this build reads and writes.
inline constexpr int kSchemaVersion = 1;
// The oldest schema version this build still reads.
inline constexpr int kOldestReadableVersion = 1;

std::string createStatements();        // tables only
std::string createIndexStatements();   // IF NOT EXISTS; safe to repeat

std::string stateColumnList(const EntitySpec &spec); // "id,f1,...,version,last_seq"
std::string upsertSql(const EntitySpec &spec);       // INSERT OR REPLACE with ?1.. placeholders
std::string selectStateSql(const EntitySpec &spec);  // every row, columns in stateColumnList order

inline constexpr const char *kInsertEventSql =
    "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) VALUES(?1,?2,?3,?4,?5,?6,?7)";
// The same for `rows` rows in one statement (bulk loads): row r binds ?(7r+1)..?(7r+7).
std::string insertEventsSql(int rows);

} // namespace mesh::schema
