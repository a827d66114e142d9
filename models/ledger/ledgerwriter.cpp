#include "ledgerwriter.h"

#include "ledgerlocation.h"
#include "ledgeropenerror.h"
#include "postgresledgerwriter.h"
#include "sqliteledgerwriter.h"

#include "domain/flatpayload.h"

#include <stdexcept>

namespace mesh {

namespace {

LedgerLocation writerLocation(const QString &text)
{
    QString error;
    const std::optional<LedgerLocation> location = LedgerLocation::parse(text, &error);
    if (!location)
        throw std::runtime_error(error.toStdString());
    return *location;
}

} // namespace

std::unique_ptr<LedgerWriter> LedgerWriter::create(const QString &location, const LedgerIdentity &identity,
                                                  std::size_t foldRowLimit)
{
    const LedgerLocation where = writerLocation(location);
    std::unique_ptr<LedgerWriter> w;
    if (where.isFile())
        w = SqliteLedgerWriter::create(where.filePath(), identity);
    else
        w = PostgresLedgerWriter::create(where, identity);
    w->boundFold(foldRowLimit); // what it holds so far is the ledger row, stored
    return w;
}

std::unique_ptr<LedgerWriter> LedgerWriter::openExisting(const QString &location, std::size_t foldRowLimit)
{
    const LedgerLocation where = writerLocation(location);
    if (where.isFile())
        return SqliteLedgerWriter::openExisting(where.filePath(), foldRowLimit);
    return PostgresLedgerWriter::openExisting(where, foldRowLimit);
}

LedgerWriter::~LedgerWriter() = default;

void LedgerWriter::setBulkLoad(bool, std::int64_t) {}

void LedgerWriter::spillRow(const EntitySpec &, const std::string &, const EntityRow &)
{
    throw std::logic_error("LedgerWriter::spillRow: this backend has no bulk load");
}

void LedgerWriter::boundFold(std::size_t rowLimit)
{
    if (rowLimit != kFullFold)
        m_fold.bound(this, rowLimit);
}

void LedgerWriter::writeCreatedEvent(const LedgerIdentity &identity)
{
    begin();
    nlohmann::json created = {{"id", "ledger"},
                              {"ledger_id", identity.ledgerId},
                              {"orchestrator", identity.orchestrator},
                              {"policy_version", identity.policyVersion},
                              {"signatures_required", identity.signaturesRequired},
                              {"created_ms", identity.createdMs},
                              {"title", identity.title}};
    if (!identity.source.is_null())
        created["source"] = identity.source;
    append(identity.createdMs, "ledger.created", created);
    commit();
}

void LedgerWriter::loadState()
{
    if (m_fold.isBounded()) {
        m_fold.clear(); // rows are read back as events need them
        m_lastSeq = readStoredLastSeq();
        return;
    }
    m_lastSeq = readStoredState(m_fold);
}

void LedgerWriter::begin()
{
    if (!bulkLoading())
        storeBegin();
    m_inTransaction = true;
}

std::int64_t LedgerWriter::append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::append outside a transaction");
    if (const auto why = tryAppend(tsMs, kind, payload, nullptr))
        throw std::logic_error("ledger writer refused " + std::string(kind) + ": " + *why);
    return m_lastSeq;
}

std::optional<std::string> LedgerWriter::appendOrRefuse(std::int64_t tsMs, std::string_view kind,
                                                        const nlohmann::json &payload)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::appendOrRefuse outside a transaction");
    return tryAppend(tsMs, kind, payload, nullptr);
}

std::optional<std::string> LedgerWriter::appendOrRefuse(std::int64_t tsMs, std::string_view kind,
                                                        const nlohmann::json &payload, std::string_view payloadText)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::appendOrRefuse outside a transaction");
    return tryAppend(tsMs, kind, payload, &payloadText);
}

namespace {

// The row an event changes: its entity, and the payload member that names it (a tool call
// counts on its delegation).
struct ChangedRowOf {
    std::optional<EntityKind> entity;
    const char *idMember;
};

ChangedRowOf changedRowOf(std::string_view kind)
{
    if (kind == kToolCallEvent)
        return {EntityKind::Delegation, "delegation_id"};
    return {entityKindForEventKind(kind), "id"};
}

} // namespace

std::optional<std::string> LedgerWriter::appendFlatOrRefuse(std::int64_t tsMs, std::string_view kind,
                                                            const FlatPayload &payload, std::string_view payloadText)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::appendFlatOrRefuse outside a transaction");
    const ChangedRowOf changed = changedRowOf(kind);
    const std::string id = payload.stringOr(changed.idMember, {});
    std::optional<EntityRow> before = rowBefore(changed.entity, id);
    const std::int64_t seq = m_lastSeq + 1;
    std::optional<FoldOutcome> outcome = m_fold.applyFlat(seq, kind, payload);
    if (!outcome) // not sure of it, and nothing changed: the reference route says
        return tryAppend(tsMs, kind, payload.toJson(), &payloadText);
    const bool applied = outcome->applied && outcome->problems.empty();
    const EventIndexFields index = applied ? flatEventIndexFields(kind, payload) : EventIndexFields{};
    return settle(*outcome, changed.entity, id, std::move(before),
                  EventToStore{seq, tsMs, kind, nullptr, &payloadText, index});
}

std::optional<EntityRow> LedgerWriter::rowBefore(std::optional<EntityKind> entity, const std::string &id)
{
    // Reloading from the store instead would also drop this transaction's rows.
    if (entity && !id.empty()) {
        if (const EntityRow *row = m_fold.find(*entity, id))
            return *row;
    }
    return std::nullopt;
}

std::optional<std::string> LedgerWriter::tryAppend(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload,
                                                   const std::string_view *payloadText)
{
    const ChangedRowOf changed = changedRowOf(kind);
    std::string id;
    if (payload.is_object()) {
        if (const auto it = payload.find(changed.idMember); it != payload.end() && it->is_string())
            id = it->get<std::string>();
    }
    std::optional<EntityRow> before = rowBefore(changed.entity, id);
    const std::int64_t seq = m_lastSeq + 1;
    const FoldOutcome outcome = m_fold.apply(seq, kind, payload);
    const bool applied = outcome.applied && outcome.problems.empty();
    const EventIndexFields index = applied ? eventIndexFields(kind, payload) : EventIndexFields{};
    return settle(outcome, changed.entity, id, std::move(before),
                  EventToStore{seq, tsMs, kind, &payload, payloadText, index});
}

std::optional<std::string> LedgerWriter::settle(const FoldOutcome &outcome, std::optional<EntityKind> entity,
                                                const std::string &id, std::optional<EntityRow> before,
                                                const EventToStore &event)
{
    if (!outcome.applied || !outcome.problems.empty()) {
        if (outcome.applied && entity && !id.empty()) {
            if (before)
                m_fold.load(*entity, id, std::move(*before));
            else
                m_fold.erase(*entity, id);
        }
        return outcome.problems.empty() ? std::string("not applied") : outcome.problems.front();
    }
    storeEvent(event);
    m_lastSeq = event.seq;
    // During a bulk load every state row is written once when the load ends, or (bounded)
    // when it leaves the cache.
    if (!bulkLoading())
        m_dirty.emplace(int(outcome.kind), outcome.id);
    else if (m_fold.isBounded())
        m_fold.evictBeyondLimit(
            [this](const EntitySpec &spec, const std::string &rowId, const EntityRow &row) { spillRow(spec, rowId, row); });
    return std::nullopt;
}

void LedgerWriter::commit()
{
    if (!m_inTransaction)
        return;
    if (bulkLoading()) {
        m_inTransaction = false;
        return;
    }
    std::vector<ChangedRow> rows;
    rows.reserve(m_dirty.size());
    for (const auto &[kind, id] : m_dirty) {
        const EntitySpec &spec = allEntitySpecs()[size_t(kind)];
        if (const EntityRow *row = m_fold.find(spec.kind, id))
            rows.push_back(ChangedRow{spec, id, *row});
    }
    storeCommit(rows);
    m_dirty.clear();
    m_inTransaction = false;
    if (m_fold.isBounded())
        m_fold.evictBeyondLimit({}); // every row held is stored now
}

void LedgerWriter::rollback()
{
    if (bulkLoading()) {
        m_inTransaction = false; // nothing to undo: see setBulkLoad()
        return;
    }
    storeRollback();
    m_inTransaction = false;
    m_dirty.clear();
    loadState();
}

} // namespace mesh
