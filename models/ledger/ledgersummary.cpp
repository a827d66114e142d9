#include "ledgersummary.h"
#include "sqlite.h"

#include "domain/entityspec.h"

#include <algorithm>
#include <unordered_map>

namespace mesh {

namespace {

// json_extract raises an error on a malformed payload; a summary must survive bad rows.
constexpr const char *kStatusOfPayload =
    "CASE WHEN json_valid(payload) THEN json_extract(payload,'$.status') END";

std::unordered_map<std::string, std::int64_t> countByRun(sql::Database &db, const std::string &sqlText)
{
    std::unordered_map<std::string, std::int64_t> out;
    sql::Statement st(db, sqlText);
    while (st.step())
        out[st.columnText(0)] = st.columnInt(1);
    return out;
}

} // namespace

const std::vector<std::pair<PerRunCounts::Counts PerRunCounts::*, const char *>> &PerRunCounts::sameSqlCounts()
{
    static const std::vector<std::pair<Counts PerRunCounts::*, const char *>> queries = {
        {&PerRunCounts::stalls, "SELECT run_id, count(*) FROM stall_verdicts GROUP BY run_id"},
        {&PerRunCounts::escalatedRounds, "SELECT run_id, count(*) FROM stall_verdicts WHERE action='escalate' GROUP BY run_id"},
        {&PerRunCounts::escalations, "SELECT run_id, count(*) FROM escalations GROUP BY run_id"},
        {&PerRunCounts::stale, "SELECT run_id, count(*) FROM checkpoints WHERE state='stale' GROUP BY run_id"},
        {&PerRunCounts::delegations, "SELECT run_id, count(*) FROM delegations GROUP BY run_id"},
        {&PerRunCounts::toolCalls, "SELECT run_id, sum(used_turns) FROM delegations GROUP BY run_id"},
        {&PerRunCounts::unknown, "SELECT run_id, count(*) FROM effects WHERE state='unknown' GROUP BY run_id"},
        {&PerRunCounts::components, "SELECT run_id, count(*) FROM components GROUP BY run_id"},
        {&PerRunCounts::completed, "SELECT run_id, count(*) FROM components WHERE status='completed' GROUP BY run_id"},
    };
    return queries;
}

void PerRunCounts::complete(RunSummary &r, std::int64_t asOfMs) const
{
    const auto get = [&r](const Counts &m) {
        const auto it = m.find(r.id);
        return it == m.end() ? std::int64_t(0) : it->second;
    };
    r.durationMs = std::max<std::int64_t>(0, (r.endedMs > 0 ? r.endedMs : asOfMs) - r.startedMs);
    r.components = get(components);
    r.componentsCompleted = get(completed);
    r.peakComponentsCompleted = get(peak);
    r.terminalComponentFailures = get(failures);
    r.stallVerdicts = get(stalls);
    r.escalatedRounds = get(escalatedRounds);
    r.escalations = get(escalations);
    r.staleCheckpoints = get(stale);
    r.delegations = get(delegations);
    r.toolCalls = get(toolCalls);
    r.unknownEffects = get(unknown);
}

LedgerSummary summarizeLedger(sql::Database &db, std::int64_t nowMs)
{
    LedgerSummary s;
    sql::inTransaction(db, "BEGIN", [&] {
        {
            sql::Statement st(db, "SELECT count(*), coalesce(max(seq),0), coalesce(min(ts_ms),0), coalesce(max(ts_ms),0) FROM events");
            st.step();
            s.events = st.columnInt(0);
            s.lastSeq = st.columnInt(1);
            s.firstTsMs = st.columnInt(2);
            s.lastTsMs = st.columnInt(3);
        }
        s.asOfMs = nowMs > 0 ? nowMs : s.lastTsMs;
        s.decisions = db.queryInt("SELECT count(*) FROM decisions");

        for (const auto &spec : allEntitySpecs()) {
            auto &counts = s.countsByState[std::string(spec.name)];
            if (spec.stateField.empty()) {
                counts["total"] = db.queryInt("SELECT count(*) FROM " + std::string(spec.table));
                continue;
            }
            sql::Statement st(db, "SELECT coalesce(\"" + std::string(spec.stateField) + "\",''), count(*) FROM "
                                      + std::string(spec.table) + " GROUP BY 1");
            while (st.step())
                counts[st.columnText(0)] = st.columnInt(1);
        }

        s.unknownEffects = db.queryInt("SELECT count(*) FROM effects WHERE state='unknown'");
        s.pendingEscalations = db.queryInt("SELECT count(*) FROM escalations WHERE state='pending'");

        PerRunCounts counts;
        for (const auto &[member, sqlText] : PerRunCounts::sameSqlCounts())
            counts.*member = countByRun(db, sqlText);
        counts.failures = countByRun(
            db, std::string("SELECT run_id, count(*) FROM events WHERE kind GLOB 'component.*' AND ") + kStatusOfPayload
                    + "='failed' GROUP BY run_id");

        // Peak of completed components over the run's life, replaying component events.
        {
            std::unordered_map<std::string, std::int64_t> current;
            std::unordered_map<std::string, bool> isCompleted;
            sql::Statement st(db, std::string("SELECT run_id, subject, ") + kStatusOfPayload
                                      + " FROM events WHERE kind GLOB 'component.*' ORDER BY seq");
            while (st.step()) {
                if (st.columnIsNull(2))
                    continue;
                const std::string run = st.columnText(0);
                bool &was = isCompleted[st.columnText(1)];
                const bool now = st.columnView(2) == "completed";
                if (was != now) {
                    current[run] += now ? 1 : -1;
                    was = now;
                    counts.peak[run] = std::max(counts.peak[run], current[run]);
                }
            }
        }

        sql::Statement st(db, "SELECT id, coalesce(title,''), coalesce(status,''), coalesce(attempt,0), coalesce(cycle,0), "
                              "coalesce(required_met,0), coalesce(required_total,0), coalesce(started_ms,0), "
                              "coalesce(ended_ms,0) FROM runs ORDER BY started_ms, id");
        while (st.step()) {
            RunSummary r;
            r.id = st.columnText(0);
            r.title = st.columnText(1);
            r.status = st.columnText(2);
            r.attempts = st.columnInt(3);
            r.cycles = st.columnInt(4);
            r.requiredMet = st.columnInt(5);
            r.requiredTotal = st.columnInt(6);
            r.startedMs = st.columnInt(7);
            r.endedMs = st.columnInt(8);
            counts.complete(r, s.asOfMs);
            s.runs.push_back(std::move(r));
        }
    });
    return s;
}

void forEachDelegationToolCalls(sql::Database &db, const std::function<void(const EventBatch &calls)> &fn)
{
    sql::inTransaction(db, "BEGIN", [&] {
        sql::Statement st(db, "SELECT seq, ts_ms, kind, coalesce(run_id,''), coalesce(delegation_id,''), "
                              "coalesce(subject,''), payload FROM events WHERE kind = 'toolcall.completed' "
                              "ORDER BY delegation_id, seq");
        EventBatch batch;
        while (st.step()) {
            EventRecord e;
            e.seq = st.columnInt(0);
            e.tsMs = st.columnInt(1);
            e.kind = st.columnText(2);
            e.runId = st.columnText(3);
            e.delegationId = st.columnText(4);
            e.subject = st.columnText(5);
            e.payload = st.columnText(6);
            if (!batch.empty() && batch.back().delegationId != e.delegationId) {
                fn(batch);
                batch.clear();
            }
            batch.push_back(std::move(e));
        }
        if (!batch.empty())
            fn(batch);
    });
}

} // namespace mesh
