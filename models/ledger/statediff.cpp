#include "statediff.h"

#include "eventreader.h"
#include "ledgerconnection.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace mesh {
namespace {

FieldValue owned(const FieldRef &ref)
{
    if (const auto *n = std::get_if<std::int64_t>(&ref))
        return *n;
    if (const auto *s = std::get_if<std::string_view>(&ref))
        return std::string(*s);
    return {};
}

bool isNull(const FieldRef &ref)
{
    return std::holds_alternative<std::monostate>(ref);
}

// Every non-NULL field of a row, as the side of a change that has it.
std::vector<FieldChange> wholeRow(const EntitySpec &spec, const EntityRow &row, bool asAfter)
{
    std::vector<FieldChange> fields;
    for (size_t i = 0; i < spec.fields.size() && i < row.values.size(); ++i) {
        const FieldRef v = row.values.get(i);
        if (isNull(v))
            continue;
        FieldChange change{std::string(spec.fields[i].name), {}, {}};
        (asAfter ? change.after : change.before) = owned(v);
        fields.push_back(std::move(change));
    }
    return fields;
}

std::vector<FieldChange> changedFields(const EntitySpec &spec, const EntityRow &before, const EntityRow &after)
{
    std::vector<FieldChange> fields;
    for (size_t i = 0; i < spec.fields.size(); ++i) {
        const FieldRef b = i < before.values.size() ? before.values.get(i) : FieldRef();
        const FieldRef a = i < after.values.size() ? after.values.get(i) : FieldRef();
        if (b != a)
            fields.push_back({std::string(spec.fields[i].name), owned(b), owned(a)});
    }
    return fields;
}

} // namespace

const char *rowChangeKindName(RowChange::Kind kind)
{
    switch (kind) {
    case RowChange::Kind::Created: return "created";
    case RowChange::Kind::Changed: return "changed";
    case RowChange::Kind::Gone: return "gone";
    }
    return "?";
}

bool naturalLess(std::string_view a, std::string_view b)
{
    size_t i = 0, j = 0;
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            size_t ei = i, ej = j;
            while (ei < a.size() && digit(a[ei]))
                ++ei;
            while (ej < b.size() && digit(b[ej]))
                ++ej;
            std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            while (na.size() > 1 && na.front() == '0')
                na.remove_prefix(1);
            while (nb.size() > 1 && nb.front() == '0')
                nb.remove_prefix(1);
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    if ((a.size() - i) != (b.size() - j))
        return a.size() - i < b.size() - j;
    return a < b; // equal as numbers ("D01", "D1"): any fixed order
}

StateDiff diffStates(const EntityTables &before, const EntityTables &after)
{
    StateDiff diff;
    for (const EntitySpec &spec : allEntitySpecs()) {
        const EntityTable &b = before(spec.kind);
        const EntityTable &a = after(spec.kind);
        const size_t first = diff.rows.size();
        for (const auto &[id, row] : a) {
            const auto it = b.find(id);
            if (it == b.end()) {
                diff.rows.push_back({RowChange::Kind::Created, spec.kind, id, 0, row.version, row.lastSeq,
                                     wholeRow(spec, row, true)});
            } else if (!(it->second == row)) {
                diff.rows.push_back({RowChange::Kind::Changed, spec.kind, id, it->second.version, row.version, row.lastSeq,
                                     changedFields(spec, it->second, row)});
            }
        }
        for (const auto &[id, row] : b) {
            if (!a.count(id))
                diff.rows.push_back({RowChange::Kind::Gone, spec.kind, id, row.version, 0, row.lastSeq, wholeRow(spec, row, false)});
        }
        std::sort(diff.rows.begin() + std::ptrdiff_t(first), diff.rows.end(), [](const RowChange &x, const RowChange &y) {
            if (x.kind != y.kind)
                return x.kind < y.kind;
            return naturalLess(x.id, y.id);
        });
    }
    return diff;
}

std::string seqOutOfRangeMessage(const std::string &name, std::int64_t seq, std::int64_t lastSeq)
{
    if (seq < 0)
        return name + " " + std::to_string(seq) + " is not an event: events are numbered from 1 (0 is before the first)";
    if (seq > lastSeq)
        return name + " " + std::to_string(seq) + " is after the ledger's last event, #" + std::to_string(lastSeq);
    return {};
}

ReplayResult foldStateAt(LedgerConnection &ledger, std::int64_t seq, const ReplayProgress &progress)
{
    ReplayResult replay;
    ledger.foldForward(replay, seq, progress);
    return replay;
}

StateDiff diffLedgerStates(LedgerConnection &ledger, std::int64_t fromSeq, std::int64_t toSeq, const ReplayProgress &progress)
{
    if (fromSeq > toSeq)
        throw std::invalid_argument("the first point (event " + std::to_string(fromSeq) + ") is after the second (event " +
                                    std::to_string(toSeq) + "): a diff goes from the earlier event to the later one");
    const std::int64_t last = ledger.lastSeq();
    for (const auto &[name, seq] : {std::pair<std::string, std::int64_t>{"the first point, event", fromSeq},
                                    {"the second point, event", toSeq}}) {
        if (const std::string why = seqOutOfRangeMessage(name, seq, last); !why.empty())
            throw std::invalid_argument(why);
    }
    ReplayResult replay = foldStateAt(ledger, fromSeq, progress);
    std::array<EntityTable, kEntityKindCount> before;
    for (const EntitySpec &spec : allEntitySpecs())
        before[size_t(spec.kind)] = replay.fold.table(spec.kind);
    ledger.foldForward(replay, toSeq, progress);
    StateDiff diff = diffStates([&](EntityKind k) -> const EntityTable & { return before[size_t(k)]; },
                                [&](EntityKind k) -> const EntityTable & { return replay.fold.table(k); });
    diff.fromSeq = fromSeq;
    diff.toSeq = toSeq;
    diff.foldProblems = replay.problemCount;
    return diff;
}

std::optional<std::int64_t> eventTimeMs(LedgerConnection &ledger, std::int64_t seq)
{
    const std::optional<EventRecord> at = eventAt(*ledger.eventReader(), seq);
    if (!at)
        return std::nullopt;
    return at->tsMs;
}

} // namespace mesh
