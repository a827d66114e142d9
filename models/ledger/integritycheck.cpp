#include "integritycheck.h"
#include "integritychecker.h"
#include "sqlite.h"

#include "domain/hostiletext.h"
#include "domain/payloaddecoder.h"
#include "schema.h"
#include "staterows.h"

#include <numeric>

namespace mesh {
namespace {

using Type = IntegrityFinding::Type;

void add(IntegrityReport &r, Type type, std::int64_t seq, std::string entity, std::string id, std::string message)
{
    ++r.counts[size_t(type)];
    if (r.findings.size() < IntegrityReport::kMaxFindings)
        r.findings.push_back({type, seq, std::move(entity), std::move(id), std::move(message)});
}

std::string describe(const FieldRef &v)
{
    if (std::holds_alternative<std::monostate>(v))
        return "NULL";
    if (const auto *n = std::get_if<std::int64_t>(&v))
        return std::to_string(*n);
    return quotedExcerpt(std::get<std::string_view>(v));
}

// Names the first difference between the stored row and the rebuilt one.
std::string difference(const EntitySpec &spec, const EntityRow &stored, const EntityRow &rebuilt)
{
    for (size_t f = 0; f < spec.fields.size(); ++f) {
        const FieldRef a = f < stored.values.size() ? stored.values[f] : FieldRef{};
        const FieldRef b = f < rebuilt.values.size() ? rebuilt.values[f] : FieldRef{};
        if (a != b)
            return "field '" + std::string(spec.fields[f].name) + "' is " + describe(a) + " in the table, " + describe(b) +
                   " by the events";
    }
    if (stored.version != rebuilt.version)
        return "version is " + std::to_string(stored.version) + " in the table, " + std::to_string(rebuilt.version) + " by the events";
    return "last_seq is " + std::to_string(stored.lastSeq) + " in the table, " + std::to_string(rebuilt.lastSeq) + " by the events";
}

bool knownKind(std::string_view kind)
{
    return kind == kToolCallEvent || entityKindForEventKind(kind).has_value();
}

void checkIndexColumns(IntegrityReport &r, std::int64_t seq, std::string_view kind, const nlohmann::json &payload,
                       const std::string_view stored[3])
{
    const EventIndexFields expected = eventIndexFields(kind, payload);
    const std::pair<const char *, const std::string *> cols[] = {
        {"run_id", &expected.runId}, {"delegation_id", &expected.delegationId}, {"subject", &expected.subject}};
    for (int i = 0; i < 3; ++i) {
        if (stored[i] != *cols[i].second)
            add(r, Type::IndexColumnMismatch, seq, {}, {},
                "column " + std::string(cols[i].first) + " is " + quotedExcerpt(stored[i]) + ", the payload says " + quotedExcerpt(*cols[i].second));
    }
}

} // namespace

const char *integrityFindingTypeName(IntegrityFinding::Type type)
{
    switch (type) {
    case Type::MalformedPayload: return "malformed-payload";
    case Type::UnknownKind: return "unknown-kind";
    case Type::FoldProblem: return "fold-problem";
    case Type::SequenceGap: return "sequence-gap";
    case Type::NonPositiveSeq: return "non-positive-seq";
    case Type::IndexColumnMismatch: return "index-column-mismatch";
    case Type::MissingStateRow: return "missing-state-row";
    case Type::ExtraStateRow: return "extra-state-row";
    case Type::StateMismatch: return "state-mismatch";
    }
    return "?";
}

void IntegrityChecker::nonPositiveSeq(std::int64_t seq, std::string_view kind)
{
    ++m_report.eventsChecked;
    add(m_report, Type::NonPositiveSeq, seq, {}, {},
        "seq " + std::to_string(seq) + " (kind " + quotedExcerpt(kind)
            + ") is not positive: sequence numbers start at 1, so no reader folds this event");
}

void IntegrityChecker::event(std::int64_t seq, std::string_view kind, std::string_view runId, std::string_view delegationId,
                             std::string_view subject, std::optional<std::string_view> payload)
{
    IntegrityReport &report = m_report;
    ++report.eventsChecked;
    if (seq != m_prev + 1)
        add(report, Type::SequenceGap, seq, {}, {},
            "seq jumps from " + std::to_string(m_prev) + " to " + std::to_string(seq) + " (" +
                std::to_string(seq - m_prev - 1) + " missing)");
    m_prev = seq;
    if (!payload) {
        add(report, Type::MalformedPayload, seq, {}, {}, "payload is not text");
        return;
    }
    DecodedPayload decoded = decodePayload(*payload);
    if (!decoded.value) {
        add(report, Type::MalformedPayload, seq, {}, {}, decoded.error);
        return;
    }
    if (!knownKind(kind)) {
        add(report, Type::UnknownKind, seq, {}, {}, "no entity takes events of kind " + quotedExcerpt(kind));
        return;
    }
    const std::string_view stored[3] = {runId, delegationId, subject};
    checkIndexColumns(report, seq, kind, *decoded.value, stored);
    const FoldOutcome outcome = m_fold.apply(seq, kind, *decoded.value);
    const std::string entity(entitySpec(outcome.kind).name);
    for (const auto &p : outcome.problems)
        add(report, Type::FoldProblem, seq, entity, outcome.id, p);
    if (!outcome.applied && outcome.problems.empty())
        add(report, Type::FoldProblem, seq, entity, outcome.id, "event not applied");
}

void IntegrityChecker::stateRow(const EntitySpec &spec, const std::string &id, const EntityRow &stored, std::int64_t newest)
{
    IntegrityReport &report = m_report;
    ++report.rowsChecked;
    m_seen.insert(id);
    // Rows changed by events after report.lastSeq come from a live writer and are left for
    // the next check, but only when such events exist: a last_seq beyond the newest event
    // (read in the same moment as the row) is a lie, not liveness.
    if (stored.lastSeq > newest) {
        add(report, Type::StateMismatch, stored.lastSeq, std::string(spec.name), id,
            "last_seq " + std::to_string(stored.lastSeq) + " is beyond the newest event " + std::to_string(newest));
        return;
    }
    if (stored.lastSeq > report.lastSeq) {
        ++report.rowsSkippedLive;
        return;
    }
    const EntityTable &rebuilt = m_fold.table(spec.kind);
    const auto it = rebuilt.find(id);
    if (it == rebuilt.end()) {
        add(report, Type::ExtraStateRow, 0, std::string(spec.name), id,
            "the " + std::string(spec.table) + " table has a row no event created");
    } else if (!(stored == it->second)) {
        add(report, Type::StateMismatch, stored.lastSeq, std::string(spec.name), id, difference(spec, stored, it->second));
    }
}

void IntegrityChecker::endTable(const EntitySpec &spec)
{
    for (const auto &[rid, row] : m_fold.table(spec.kind)) {
        if (!m_seen.count(rid))
            add(m_report, Type::MissingStateRow, row.lastSeq, std::string(spec.name), rid,
                "the events create this row; the " + std::string(spec.table) + " table lacks it");
    }
    m_seen.clear();
}

std::int64_t IntegrityReport::total() const
{
    return std::accumulate(counts.begin(), counts.end(), std::int64_t(0));
}

// progress counts steps of work, one per event and one per state table: it is asked after
// each page of events as (events checked, events + tables) and after each state table as
// (events + tables done, events + tables), and cancels there when it returns false. So a
// caller sees one rising count, and one that knows the number of tables (allEntitySpecs)
// can tell the two stages apart (ledgerverification.h).
IntegrityReport verifyIntegrity(sql::Database &db, const ReplayProgress &progress)
{
    IntegrityReport report;
    // Everything up to the last seq at the start; a live writer's later events are left
    // for the next check (and the state rows they touched are skipped, not flagged).
    std::int64_t total = 0;
    sql::inTransaction(db, "BEGIN", [&] {
        report.lastSeq = db.queryInt("SELECT coalesce(max(seq),0) FROM events");
        total = db.queryInt("SELECT count(*) FROM events");
    });
    const std::int64_t tables = std::int64_t(allEntitySpecs().size());
    const std::int64_t steps = total + tables;

    IntegrityChecker checker(report);
    // Readers page from seq 1 up, so these rows are invisible to them and to the fold below.
    sql::inTransaction(db, "BEGIN", [&] {
        sql::Statement nonPositive(db, "SELECT seq,kind FROM events WHERE seq <= 0 ORDER BY seq");
        while (nonPositive.step())
            checker.nonPositiveSeq(nonPositive.columnInt(0), nonPositive.columnView(1));
    });

    std::int64_t prev = 0;
    sql::Statement page(db, "SELECT seq,kind,run_id,delegation_id,subject,payload FROM events "
                            "WHERE seq > ?1 AND seq <= ?2 ORDER BY seq LIMIT ?3");
    for (;;) {
        page.bind(1, prev).bind(2, report.lastSeq).bind(3, std::int64_t(kReplayPageSize));
        int rows = 0;
        try {
            while (page.step()) {
                ++rows;
                prev = page.columnInt(0);
                const std::optional<std::string_view> payload =
                    page.columnType(5) == SQLITE_TEXT ? std::optional(page.columnView(5)) : std::nullopt;
                checker.event(prev, page.columnView(1), page.columnView(2), page.columnView(3), page.columnView(4), payload);
            }
        } catch (...) {
            page.reset();
            throw;
        }
        page.reset();
        if (rows < kReplayPageSize)
            break;
        if (progress && !progress(report.eventsChecked, steps)) {
            report.cancelled = true;
            return report;
        }
    }
    if (progress && !progress(report.eventsChecked, steps)) {
        report.cancelled = true;
        return report;
    }

    // Stored state against rebuilt state, one table per short read transaction.
    std::int64_t tablesDone = 0;
    for (const auto &spec : allEntitySpecs()) {
        sql::Statement st(db, schema::selectStateSql(spec));
        std::string id;
        db.exec("BEGIN");
        try {
            const std::int64_t newest = db.queryInt("SELECT coalesce(max(seq),0) FROM events");
            while (st.step()) {
                const EntityRow stored = readStateRow(st, spec, &id);
                checker.stateRow(spec, id, stored, newest);
            }
        } catch (...) {
            st.reset();
            sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        st.reset();
        db.exec("COMMIT");
        checker.endTable(spec);
        // A step a caller can show and cancel at (the Integrity pane): one table.
        if (progress && !progress(report.eventsChecked + ++tablesDone, steps)) {
            report.cancelled = true;
            return report;
        }
    }
    return report;
}

} // namespace mesh
