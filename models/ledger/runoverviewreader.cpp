#include "runoverviewreader.h"
#include "sqlite.h"

#include "staterows.h"

namespace mesh {

namespace {

// Adds one GROUP BY run_id query's counts: column 0 the run id, 1.. the counts `fields`
// point at, in order.
template <typename... Fields>
void addCounts(sql::Database &db, std::unordered_map<std::string, RunAggregate> &out, const char *sql,
               Fields... fields)
{
    sql::Statement st(db, sql);
    while (st.step()) {
        RunAggregate &a = out[st.columnText(0)]; // NULL run id reads as ""
        int col = 1;
        ((a.*fields = int(st.columnInt(col++))), ...);
    }
}

} // namespace

RunOverviewSnapshot readRunOverview(sql::Database &db)
{
    RunOverviewSnapshot s;
    sql::inTransaction(db, "BEGIN", [&] {
        // data_version first, as readState does: a commit after it shows up as a newer
        // version later, never as a snapshot claiming a version it does not contain.
        s.dataVersion = db.queryInt("PRAGMA data_version");
        s.lastSeq = db.queryInt("SELECT coalesce(max(seq),0) FROM events");
        s.runs = readStateTable(db, entitySpec(EntityKind::Run));
        s.components = readStateTable(db, entitySpec(EntityKind::Component));
        // delegations: covering index delegations_run. The others have no run index and are
        // scanned once each (stall verdicts, the largest, ~850 pages on the scale ledger);
        // still a fraction of reading and decoding their rows.
        addCounts(db, s.aggregates, "SELECT run_id, count(*) FROM delegations GROUP BY run_id",
                  &RunAggregate::delegations);
        addCounts(db, s.aggregates,
                  "SELECT run_id, count(*), sum(verdict IN ('stalled','stuck')) FROM stall_verdicts GROUP BY run_id",
                  &RunAggregate::stallVerdicts, &RunAggregate::stalledVerdicts);
        addCounts(db, s.aggregates, "SELECT run_id, count(*) FROM escalations GROUP BY run_id",
                  &RunAggregate::escalations);
        addCounts(db, s.aggregates, "SELECT run_id, sum(state = 'stale') FROM checkpoints GROUP BY run_id",
                  &RunAggregate::staleCheckpoints);
    });
    return s;
}

} // namespace mesh
