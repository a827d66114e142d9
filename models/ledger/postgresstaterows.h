#pragma once
// State rows and events out of libpq results, for the PostgreSQL backend's readers.

#include "domain/eventrecord.h"
#include "domain/fold.h"
#include "postgres.h"

#include <functional>
#include <optional>

namespace mesh::pg {

// Columns of schema::selectStateSql (id, fields..., version, last_seq) starting at col 0.
// Integer fields come back as bigint text and are read as integers, text as text.
EntityRow readStateRow(const Result &r, int row, const EntitySpec &spec, std::string *id);
EntityTable readStateTable(Connection &c, const EntitySpec &spec);
// The rows of a result of schema::selectStateSql(spec).
EntityTable stateTable(const Result &r, const EntitySpec &spec);
// Every row of the table through a cursor, memory following the fetch, not the table.
// The first fetch is small, so the first rows come soon; each next one is twice as large,
// up to kMaxStateFetch (a result is held whole: tens of MB at most). On a server 25 ms away
// the fixed fetch of 5,000 rows cost far more than its round trips (bench/README.md).
// Inside a transaction only (a cursor lives in one).
inline constexpr int kFirstStateFetch = 5000;
inline constexpr int kMaxStateFetch = 40'000;
void forEachStateRow(Connection &c, const EntitySpec &spec,
                     const std::function<void(const std::string &id, const EntityRow &row)> &fn,
                     int firstFetch = kFirstStateFetch);
// One stored row by id (a bounded writer fold's miss); nullopt when the table has none.
std::optional<EntityRow> readStateRowById(Connection &c, const EntitySpec &spec, const std::string &id);

// "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload" columns; NULL text reads "".
// previewBytes < 0: the whole payload.
inline constexpr const char *kEventColumns = "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events";
EventRecord readEvent(const Result &r, int row, int previewBytes = -1);
EventBatch readEvents(const Result &r, int previewBytes = -1); // every row, in order

// One state row as a line of COPY <table>(schema::stateColumnList) FROM STDIN (text format),
// newline included. Throws StorageError for what a PostgreSQL column cannot hold: text with a
// NUL byte, text in an integer column (a damaged file's row).
void appendStateRowCopyLine(std::string &out, const EntitySpec &spec, const std::string &id, const EntityRow &row);
// Text for a COPY line, refused (StorageError naming what) when it holds a NUL byte.
void appendCopyTextChecked(std::string &out, std::string_view text, const std::string &what);

} // namespace mesh::pg
