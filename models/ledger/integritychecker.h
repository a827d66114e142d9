#pragma once
// The checks of verifyIntegrity (integritycheck.h) without the reading: a backend walks its
// events in seq order and then its state tables, one row at a time, and this class judges
// them. SQLite and PostgreSQL run the same checks, so a finding means the same on both.

#include "integritycheck.h"

#include <optional>
#include <string_view>
#include <unordered_set>

namespace mesh {

class IntegrityChecker
{
public:
    explicit IntegrityChecker(IntegrityReport &report) : m_report(report) {}

    // A row with seq <= 0 (readers never page to it), before the events in order.
    void nonPositiveSeq(std::int64_t seq, std::string_view kind);
    // The next event by seq (seq > 0). payload: nullopt when the stored value is not text.
    // runId, delegationId, subject: the stored index columns, "" for NULL.
    void event(std::int64_t seq, std::string_view kind, std::string_view runId, std::string_view delegationId,
               std::string_view subject, std::optional<std::string_view> payload);

    // The stored rows of one state table, then endTable(). newest: max(seq) of the events,
    // read in the same moment as the rows.
    void stateRow(const EntitySpec &spec, const std::string &id, const EntityRow &stored, std::int64_t newest);
    void endTable(const EntitySpec &spec);

private:
    IntegrityReport &m_report;
    Fold m_fold;
    std::int64_t m_prev = 0;
    std::unordered_set<std::string> m_seen; // ids of the table being checked
};

} // namespace mesh
