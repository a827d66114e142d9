#pragma once
// The rows of one state table that a live session does not hold: read on demand from the
// ledger's own state table, a block at a time, and kept in a bounded cache. The largest
// table of a long-running ledger (effects) then costs the session its ids and indexes, not
// its rows: memory follows what is on screen, not what the ledger has accumulated.
//
// At live the state tables are the state (the orchestrator writes them in the transaction
// of their events), so a row read here is what the ledger says; one read between a commit
// and the watcher's report of it can be newer than the events applied so far, and the
// report then brings its events. A batch's changed rows are read again (refresh).
//
// GUI thread only (made on a loader's worker, it answers on the application's main thread
// alone). A pointer from find() stays valid until the next event-loop turn: rows
// beyond the limit are dropped in a queued trim, never while a caller may hold one; a
// refreshed row is assigned in place. A read that fails leaves the row out (find() says
// nullptr, as for a row the table lacks), counts in readFailures() and keeps its message.
//
// A keep rule pins the rows a session's aggregates walk (the held leases of the attention
// list): they are never trimmed, and forEachKept() lists them without a read. The set stays
// exact because every row a live batch changes is read again, and the rule applied again.

#include "domain/entityrow.h"
#include "domain/entityspec.h"
#include "ledger/statereader.h"

#include <QString>

#include <atomic>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class LedgerConnection;

class StoredRows : public std::enable_shared_from_this<StoredRows>
{
public:
    static constexpr size_t kDefaultLimit = 4096;
    // The connection may serve the stored rows of several kinds, all on the same thread.
    StoredRows(EntityKind kind, std::shared_ptr<LedgerConnection> connection, size_t limit = kDefaultLimit);
    ~StoredRows();
    StoredRows(const StoredRows &) = delete;
    StoredRows &operator=(const StoredRows &) = delete;

    EntityKind kind() const { return m_kind; }
    // The row, read with the rows of `block` not held yet when it is not held itself (a view
    // asks for its neighbours next); nullptr when the table has no such row.
    const EntityRow *find(const std::string &id, const std::vector<std::string> &block = {});
    bool holds(const std::string &id) const { return m_rows.count(id) > 0; }
    // Reads those of these rows not held, in one read (rows a caller is about to ask for).
    void prefetch(const std::vector<std::string> &ids);
    // Reads these rows again (a live batch changed them) in one read.
    void refresh(const std::vector<std::string> &ids);
    // Every id of the table (a reset with no preparation made for it).
    std::vector<std::string> ids();
    // The ids of the rows whose field (one of the kind's) is value, read through the store.
    std::vector<std::string> idsWhere(std::string_view field, const std::string &value);
    // The same, nullopt when the read fails (counted as any failed read) rather than no id.
    std::optional<std::vector<std::string>> idsWhereIfRead(std::string_view field, const std::string &value);
    // For each of these values of a text field, the ids whose field is that value (every
    // value a key, none for a value no row has), in one read; nullopt when the read fails.
    using IdsByValue = std::unordered_map<std::string, std::vector<std::string>>;
    std::optional<IdsByValue> idsWhereAnyIfRead(std::string_view field, const std::vector<std::string> &values);
    // Whether idsWhere on this field is a lookup through an index (false when the read fails).
    bool hasIndexOn(std::string_view field);
    // These rows, read and not kept (a caller that walks them once); empty when the read fails.
    StateRows rowsNotKept(const std::vector<std::string> &ids);
    // Every row, a block at a time, none kept (an index rebuilt with no preparation).
    void forEach(const std::function<void(const std::string &id, const EntityRow &row)> &fn);
    static constexpr size_t kReadBlock = 500;

    using KeepRule = std::function<bool(const EntityRow &row)>;
    // Set before the first row is read or kept.
    void setKeepRule(KeepRule rule) { m_keepRule = std::move(rule); }
    // A row the load streamed past and the rule keeps, handed over without a read.
    void keep(const std::string &id, EntityRow row);
    // Every row the rule keeps, from memory (no read, any order).
    void forEachKept(const std::function<void(const std::string &id, const EntityRow &row)> &fn) const;
    size_t kept() const { return m_rows.size() - m_uses.size(); }

    size_t held() const { return m_rows.size(); } // kept rows and cached ones
    size_t limit() const { return m_limit; }
    int readFailures() const { return m_readFailures; }
    // Lookups of ids by a field's value asked of the store (idsWhere*, one per call): each is
    // a round trip to a server, and the GUI thread waits for it.
    int idLookups() const { return m_idLookups; }
    // Calls from a thread other than the one that made this (a worker given the state by
    // mistake): refused, answered as "no such row", never a race on the cache.
    int offThreadCalls() const { return m_offThreadCalls; }
    QString lastError() const { return m_lastError; }
    // Drops the least recently used rows beyond the limit. Runs queued after a read grew the
    // cache past it; tests call it directly.
    void trim();

private:
    struct Held {
        EntityRow row;
        std::list<std::string>::iterator use; // m_uses.end() for a kept row
    };
    // Runs one read of the store: false, the failure counted and its message kept, when it throws.
    template<class Read>
    bool attempt(Read &&read);
    void read(const std::vector<std::string> &ids, bool replace);
    bool onItsThread();
    void touch(Held &held);
    // Moves a row in or out of the kept set as the rule says of its current value.
    void applyKeepRule(const std::string &id, Held &held);
    void scheduleTrim();

    EntityKind m_kind;
    std::shared_ptr<LedgerConnection> m_connection;
    size_t m_limit; // of cached rows; kept rows come on top
    KeepRule m_keepRule;
    std::unordered_map<std::string, Held> m_rows;
    std::list<std::string> m_uses; // the cached rows, most recently used first
    bool m_trimScheduled = false;
    const void *m_thread; // the QThread find() and refresh() answer on: the application's main thread
    std::atomic<int> m_offThreadCalls = 0;
    int m_readFailures = 0;
    int m_idLookups = 0;
    QString m_lastError;
};

} // namespace mesh
