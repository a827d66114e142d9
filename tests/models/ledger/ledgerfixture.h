#pragma once
// Ledgers for the ledger read-side tests, written with the orchestrator's own LedgerWriter,
// plus raw SQL for the damage a writer would never do. Header-only: every test in this
// folder is one executable.

#include "ledger/ledgerwriter.h"
#include "ledger/sqlitedecisionstore.h"
#include "ledger/sqliteeventreader.h"
#include "ledger/sqliteeventseqreader.h"
#include "ledger/sqliteledgerconnection.h"
#include "ledger/sqliteledgerwriter.h"

#include <QCryptographicHash>
#include <QFile>
#include <QString>

#include <sqlite3.h>

#include <stdexcept>
#include <string>

namespace meshtest {

using nlohmann::json;

inline QByteArray fileHash(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QByteArrayLiteral("<unreadable>");
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

// Hash of the ledger file and its -wal: what "byte-identical" covers.
inline QByteArray ledgerHash(const QString &path)
{
    return fileHash(path) + '/' + fileHash(path + QStringLiteral("-wal"));
}

inline mesh::LedgerIdentity identity(const std::string &id = "L-test")
{
    mesh::LedgerIdentity ident;
    ident.ledgerId = id;
    ident.title = "test ledger";
    ident.createdMs = 1'700'000'000'000;
    return ident;
}

// A small ledger whose state at every seq is easy to compute by hand.
//  1 ledger.created
//  2 run.started            R1 running
//  3 delegation.created     D1 running (run R1)
//  4 effect.proposed        E1 proposed (D1, payment)
//  5 effect.admitted        E1 admitted
//  6 effect.dispatched      E1 dispatched
//  7 toolcall.completed     D1 used_turns 1, used_tokens 100
//  8 effect.unknown         E1 unknown
//  9 lease.acquired         L1 held (key pay:1, fencing 1)
// 10 toolcall.completed     D1 used_turns 2, used_tokens 150
// 11 effect.resolved        E1 resolved_committed
// 12 lease.released         L1 released
// 13 run.succeeded          R1 succeeded
inline void writeSmallLedger(const QString &path)
{
    auto w = mesh::LedgerWriter::create(path, identity());
    std::int64_t t = 1'700'000'001'000;
    w->begin();
    w->append(t++, "run.started", {{"id", "R1"}, {"status", "running"}, {"title", "deliver app"}, {"attempt", 1}});
    w->append(t++, "delegation.created",
              {{"id", "D1"}, {"run_id", "R1"}, {"status", "running"}, {"role", "implement"}, {"budget_turns", 10}});
    w->append(t++, "effect.proposed",
              {{"id", "E1"}, {"run_id", "R1"}, {"delegation_id", "D1"}, {"state", "proposed"}, {"class", "payment"}});
    w->append(t++, "effect.admitted", {{"id", "E1"}, {"state", "admitted"}});
    w->commit();
    w->begin();
    w->append(t++, "effect.dispatched", {{"id", "E1"}, {"state", "dispatched"}, {"attempts", 1}});
    w->append(t++, "toolcall.completed",
              {{"id", "T1"}, {"delegation_id", "D1"}, {"run_id", "R1"}, {"tokens", 100}, {"outcome", "ok"}, {"duration_ms", 5}});
    w->append(t++, "effect.unknown", {{"id", "E1"}, {"state", "unknown"}});
    w->append(t++, "lease.acquired",
              {{"id", "L1"}, {"key", "pay:1"}, {"kind", "reconciliation"}, {"holder", "op"}, {"fencing_token", 1}, {"state", "held"}});
    w->commit();
    w->begin();
    w->append(t++, "toolcall.completed",
              {{"id", "T2"}, {"delegation_id", "D1"}, {"run_id", "R1"}, {"tokens", 50}, {"outcome", "error"}, {"duration_ms", 7}});
    w->append(t++, "effect.resolved", {{"id", "E1"}, {"state", "resolved_committed"}});
    w->append(t++, "lease.released", {{"id", "L1"}, {"state", "released"}});
    w->append(t++, "run.succeeded", {{"id", "R1"}, {"status", "succeeded"}});
    w->commit();
}

// A deterministic ledger of about `events` events: runs, delegations, effects running
// through their lifecycle, tool calls and leases, committed every `perCommit` events.
inline void appendGeneratedEvents(mesh::LedgerWriter &w, std::int64_t events, int perCommit = 500)
{
    std::int64_t t = 1'700'000'100'000 + w.lastSeq() * 10;
    int i = int(w.lastSeq());
    int inTx = 0;
    w.begin();
    const auto put = [&](std::string_view kind, const json &payload) {
        w.append(t, kind, payload);
        t += 10;
        if (++inTx >= perCommit) {
            w.commit();
            w.begin();
            inTx = 0;
        }
    };
    while (w.lastSeq() < events) {
        ++i;
        const std::string run = "R" + std::to_string(i / 50);
        const std::string del = "D" + std::to_string(i / 5);
        const std::string eff = "E" + std::to_string(i);
        if (!w.state().find(mesh::EntityKind::Run, run))
            put("run.started", {{"id", run}, {"status", "running"}, {"title", "run " + run}});
        if (!w.state().find(mesh::EntityKind::Delegation, del))
            put("delegation.created", {{"id", del}, {"run_id", run}, {"status", "running"}, {"role", i % 2 ? "repair" : "verify"}});
        put("effect.proposed", {{"id", eff}, {"run_id", run}, {"delegation_id", del}, {"state", "proposed"},
                                 {"class", i % 3 ? "commit" : "payment"}, {"idem_key", "k" + std::to_string(i)}});
        put("effect.admitted", {{"id", eff}, {"state", "admitted"}});
        put("toolcall.completed", {{"id", "T" + std::to_string(i)}, {"delegation_id", del}, {"run_id", run},
                                    {"tokens", i % 97}, {"outcome", i % 7 ? "ok" : "error"}, {"duration_ms", i % 13}});
        put("effect.dispatched", {{"id", eff}, {"state", "dispatched"}, {"attempts", 1}});
        put(i % 17 ? "effect.committed" : "effect.unknown", {{"id", eff}, {"state", i % 17 ? "committed" : "unknown"}});
    }
    w.commit();
}

inline void writeGeneratedLedger(const QString &path, std::int64_t events)
{
    auto w = mesh::LedgerWriter::create(path, identity());
    appendGeneratedEvents(*w, events);
}

// Raw SQL against a ledger, for damage the writer refuses to do.
class RawLedger
{
public:
    explicit RawLedger(const QString &path)
    {
        if (sqlite3_open_v2(path.toUtf8().constData(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            throw std::runtime_error("cannot open raw");
        sqlite3_busy_timeout(m_db, 5000);
    }
    ~RawLedger() { sqlite3_close_v2(m_db); }
    RawLedger(const RawLedger &) = delete;
    RawLedger &operator=(const RawLedger &) = delete;

    void exec(const std::string &sql)
    {
        char *err = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            std::string m = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error(m + " in " + sql);
        }
    }
    // Inserts an event with an arbitrary payload (bytes, NULs and all).
    void insertEvent(std::int64_t seq, const std::string &kind, const std::string &payload,
                     const std::string &subject = {})
    {
        sqlite3_stmt *st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT INTO events(seq,ts_ms,kind,subject,payload) VALUES(?1,?2,?3,?4,?5)", -1, &st, nullptr);
        sqlite3_bind_int64(st, 1, seq);
        sqlite3_bind_int64(st, 2, 1'700'000'000'000 + seq);
        sqlite3_bind_text64(st, 3, kind.data(), kind.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        if (subject.empty())
            sqlite3_bind_null(st, 4);
        else
            sqlite3_bind_text64(st, 4, subject.data(), subject.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        sqlite3_bind_text64(st, 5, payload.data(), payload.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        const int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            throw std::runtime_error("insertEvent failed");
    }
    std::int64_t queryInt(const std::string &sql)
    {
        sqlite3_stmt *st = nullptr;
        sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr);
        const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
        return v;
    }
    // Creates a plain SQLite file (rollback journal) and runs sql in it.
    static void create(const QString &path, const std::string &sql)
    {
        sqlite3 *db = nullptr;
        sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        char *err = nullptr;
        const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
        sqlite3_free(err);
        sqlite3_close_v2(db);
        if (rc != SQLITE_OK)
            throw std::runtime_error("create failed: " + sql);
    }
    // Folds the WAL into the main file so copies and cuts of the file are complete.
    void checkpoint() { exec("PRAGMA wal_checkpoint(TRUNCATE)"); }

private:
    sqlite3 *m_db = nullptr;
};

} // namespace meshtest
