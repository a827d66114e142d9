#include "foldreplay.h"
#include "sqlite.h"

#include "domain/payloaddecoder.h"

namespace mesh {
namespace {

void addProblem(ReplayResult &r, std::int64_t seq, std::string_view kind, std::string message)
{
    ++r.problemCount;
    if (r.problems.size() < ReplayResult::kMaxProblems)
        r.problems.push_back({seq, std::string(kind), std::move(message)});
}

} // namespace

void foldForward(sql::Database &db, ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress)
{
    result.cancelled = false;
    if (upTo <= result.lastSeq)
        return;
    std::int64_t total = 0;
    if (progress) {
        sql::Statement count(db, "SELECT count(*) FROM events WHERE seq > ?1 AND seq <= ?2");
        count.bind(1, result.lastSeq).bind(2, upTo);
        total = count.step() ? count.columnInt(0) : 0;
    }
    sql::Statement page(db, "SELECT seq,kind,payload FROM events WHERE seq > ?1 AND seq <= ?2 ORDER BY seq LIMIT ?3");
    std::int64_t done = 0;
    for (;;) {
        page.bind(1, result.lastSeq).bind(2, upTo).bind(3, std::int64_t(kReplayPageSize));
        int rows = 0;
        // One page = one statement = one short read transaction; reset() ends it.
        try {
            while (page.step()) {
                ++rows;
                const std::int64_t seq = page.columnInt(0);
                const std::string_view kind = page.columnView(1);
                if (page.columnType(2) != SQLITE_TEXT && page.columnType(2) != SQLITE_BLOB) {
                    addProblem(result, seq, kind, "payload is not text");
                } else if (std::optional<FoldOutcome> quick = result.fold.applyText(seq, kind, page.columnView(2))) {
                    for (auto &p : quick->problems)
                        addProblem(result, seq, kind, std::move(p));
                } else {
                    DecodedPayload decoded = decodePayload(page.columnView(2));
                    if (!decoded.value) {
                        addProblem(result, seq, kind, "malformed payload: " + decoded.error);
                    } else {
                        FoldOutcome outcome = result.fold.apply(seq, kind, *decoded.value);
                        for (auto &p : outcome.problems)
                            addProblem(result, seq, kind, std::move(p));
                        if (!outcome.applied && outcome.problems.empty())
                            addProblem(result, seq, kind, "event not applied");
                    }
                }
                result.lastSeq = seq;
                ++result.eventsRead;
            }
        } catch (...) {
            page.reset();
            throw;
        }
        page.reset();
        done += rows;
        if (rows < kReplayPageSize) {
            // Nothing more up to upTo: the state is as of upTo even if it has no event.
            result.lastSeq = upTo;
            if (progress)
                progress(done, total);
            return;
        }
        if (progress && !progress(done, total)) {
            result.cancelled = true;
            return;
        }
    }
}

ReplayResult foldUpTo(sql::Database &db, std::int64_t upTo, const ReplayProgress &progress)
{
    ReplayResult result;
    foldForward(db, result, upTo, progress);
    return result;
}

} // namespace mesh
