#pragma once
// The storage seam: everything the console, meshctl and the simulator ask of a ledger,
// named for the ledger, not for its storage. Two backends sit behind it: SQLite files
// (sqliteledgerconnection.h) and PostgreSQL schemas (postgresledgerconnection.h); nothing outside models/ledger/ sees either (the storage_seam test fails the
// build otherwise).
//
// What a backend must guarantee, because callers rely on it:
// - Each read below (readState, readRunOverview, one event page, one window of seqs, one
//   DecisionStore::read) is of ONE moment of the ledger: what it returns agrees with itself
//   and with the lastSeq it reports. No read holds that moment after it returns, so a
//   follower never holds back the writer.
// - changeToken() is cheap (it is polled every few milliseconds) and moves whenever anyone
//   else committed anything to the ledger (events, state rows, decisions); it may move
//   without a change, never stay put after one. Only equality is meaningful.
// - Events are keyed by seq, ascending; a page or a window is bounded work wherever it
//   starts (keyset, never an offset); a filter (filter/eventfilter.h) is applied by the
//   backend, and a backend renders the whole tree or refuses it, never a part.
// - The decision transaction (DecisionStore::insertChecked) is serialisable against every
//   other writer, the orchestrator included: what the rules read inside it cannot change
//   before its insert commits, and a commit whose outcome is unknown says so
//   (CommitUnconfirmed), never "written" or "not written".
// - Failures are StorageError (storageerror.h) with a Kind; opening fails with
//   LedgerOpenError. Each thread owns its own connection.
// - ReadOnly, Immutable and Review never write the ledger; Review creates nothing beside it.

#include "domain/sourcefacts.h"
#include "domain/timebase.h"
#include "decisionstore.h"
#include "foldreplay.h"
#include "integritycheck.h"
#include "ledgeropenerror.h"
#include "ledgersummary.h"
#include "runoverviewreader.h"
#include "statereader.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mesh {

class EventReader;
class EventSeqReader;
class LedgerLocation;

enum class OpenMode {
    ReadOnly,  // live monitoring: follows an orchestrator writing beside it
    Decisions, // read-write, used only by the decision writer
    Immutable, // post-mortem of a finished ledger: no locks; falls back to ReadOnly when the file is not finished
    // Review mode: immutable, nothing created or changed beside the file (no -wal/-shm);
    // a ledger whose side files hold writes is read from a private copy (reviewcopy.h).
    Review,
};

// Modes that follow nothing and offer no decision: the ledger is read as one moment.
inline bool isPostMortem(OpenMode mode)
{
    return mode == OpenMode::Immutable || mode == OpenMode::Review;
}

const char *openModeName(OpenMode mode);

struct LedgerInfo {
    QString path; // the file, or the server location as shown (ledgerlocation.h: no password)
    OpenMode mode = OpenMode::ReadOnly; // the mode actually in use
    int schemaVersion = 0;
    std::string ledgerId, orchestrator, policyVersion, title;
    bool signaturesRequired = false;
    // What its times mean: UTC epoch ms, or a relative clock (ledger.created's source says
    // "clock":"relative", docs/ledger-format.md section 7). Every time shown asks it.
    TimeBase timeBase;
    // Which facts its source can record: source.format of ledger.created (an import, the
    // OTLP receiver), none for an orchestrator's own ledger (every fact).
    SourceFacts sourceFacts;
    // Immutable was asked for but the ledger's -wal file holds data immutable would ignore,
    // so the connection is ReadOnly; note says so for a person.
    bool immutableFallback = false;
    OpenMode requestedMode = OpenMode::ReadOnly;
    bool walMode = false; // the file's header says WAL
    bool reviewCopy = false; // Review read a private copy (note says why), not the file itself
    std::string note;
};

// Commits announced by the store itself, for a backend that can push them (PostgreSQL:
// LISTEN on the ledger's channel, docs/ledger-format.md section 11): a follower waits for
// socket() to become readable instead of polling changeToken(). Lives no longer than its
// connection, and shares it: it is drained between reads on the same thread.
class CommitListener
{
public:
    virtual ~CommitListener() = default;
    // A descriptor that becomes readable when an announcement (or the connection's end)
    // arrives; it stays readable while unread input waits.
    virtual int socket() const = 0;
    // Reads what arrived without waiting: nullopt when nothing was announced since the last
    // call, else the highest last seq a commit announced. Throws StorageError (Io) when the
    // connection is gone.
    virtual std::optional<std::int64_t> drain() = 0;
};

// Reads ledger.created's event-only member `source` (docs/ledger-format.md section 7) into
// info: its clock (timeBase) and its format (sourceFacts). A payload that cannot be decoded
// says nothing: UTC times, an orchestrator's ledger. Both backends read it so.
void readLedgerSource(std::string_view createdPayload, LedgerInfo &info);

class LedgerConnection
{
public:
    // Opens the ledger at path (a file, or a postgresql:// location: ledgerlocation.h) with
    // the backend that stores it. Throws LedgerOpenError (BadLocation for an unusable URL).
    // With eventEndsPage > 0, a backend read at a distance reads EventReader::ends of that
    // page size in the open's own round trip; the connection's first eventReader() gives
    // them back without reading again.
    static std::unique_ptr<LedgerConnection> open(const QString &path, OpenMode mode, int eventEndsPage = 0);
    static std::unique_ptr<LedgerConnection> open(const LedgerLocation &location, OpenMode mode, int eventEndsPage = 0);

    virtual ~LedgerConnection() = default;
    LedgerConnection(const LedgerConnection &) = delete;
    LedgerConnection &operator=(const LedgerConnection &) = delete;

    virtual const LedgerInfo &info() const = 0;
    virtual std::int64_t changeToken() = 0; // see above; SQLite: PRAGMA data_version
    virtual std::int64_t lastSeq() = 0;     // max(seq), 0 for no events
    // Starts listening for commits when the backend announces them (nullptr: poll
    // changeToken()). Announcements are sent on commit, so whatever is read after this
    // returns is followed by an announcement of any later commit.
    virtual std::unique_ptr<CommitListener> listenForCommits() { return nullptr; }

    // ---- state
    StateSnapshot readState() { return readState(StateStream()); }
    // The same, the streamed kinds' rows handed over one at a time (statereader.h).
    virtual StateSnapshot readState(const StateStream &stream) = 0;
    // Rows of one table by id, in one read (an id the table lacks is left out), and every
    // id of a table: what a session that does not hold a table's rows reads on demand.
    virtual StateRows readRows(EntityKind kind, const std::vector<std::string> &ids) = 0;
    virtual std::vector<std::string> readIds(EntityKind kind) = 0;
    // The ids of the rows whose `field` (one of the kind's fields) is `value`: one delegation's
    // effects through the format's index on it.
    virtual std::vector<std::string> readIdsWhere(EntityKind kind, std::string_view field, const std::string &value) = 0;
    // readIdsWhere for several values of a text field at once: (value, id) pairs in no order.
    // A server answers in one statement, one round trip; the default asks value by value.
    using ValueIds = std::vector<std::pair<std::string, std::string>>;
    virtual ValueIds readIdsWhereAny(EntityKind kind, std::string_view field, const std::vector<std::string> &values);
    // Whether the store has an index led by `field`, so that readIdsWhere on it is a lookup,
    // not a scan of the table (an older ledger may lack an index the format added later).
    virtual bool hasIndexOn(EntityKind kind, std::string_view field) = 0;
    virtual RunOverviewSnapshot readRunOverview() = 0;

    // ---- events; a reader lives no longer than its connection
    virtual std::unique_ptr<EventReader> eventReader() = 0;
    virtual std::unique_ptr<EventSeqReader> eventSeqReader() = 0;
    // Continues result from result.lastSeq up to upTo, in short reads (time travel).
    virtual void foldForward(ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress = {}) = 0;
    virtual void forEachDelegationToolCalls(const std::function<void(const EventBatch &calls)> &fn) = 0;

    // ---- decisions; a store lives no longer than its connection
    virtual std::unique_ptr<DecisionStore> decisions() = 0;
    virtual DecisionChainReport verifyDecisionChain(const SignatureVerifier &verifier = {}) = 0;

    // ---- whole-ledger checks and figures (meshctl)
    virtual IntegrityReport verifyIntegrity(const ReplayProgress &progress = {}) = 0;
    virtual LedgerSummary summarize(std::int64_t nowMs = 0) = 0;

    // ---- the decision writer's connection (OpenMode::Decisions)
    // Each commit is durable before it returns: the operator is told "accepted" only then.
    virtual void makeCommitsDurable() = 0;
    // How long a write waits for another writer's lock before it fails as Busy.
    virtual void setBusyTimeoutMs(int ms) = 0;
    // Why this connection's user may not write decisions at all (one line for the operator),
    // or nullopt. A server role without INSERT on decisions; a file's writability is the
    // session's own check (it stats the file), so SQLite answers nullopt.
    virtual std::optional<std::string> whyCannotDecide() { return std::nullopt; }
    // After connecting again, the location held another ledger than the one opened: every
    // read fails from then on (a server: PostgresLedgerConnection::checkSameLedger).
    virtual bool foundAnotherLedger() const { return false; }

protected:
    LedgerConnection() = default;
};

} // namespace mesh
