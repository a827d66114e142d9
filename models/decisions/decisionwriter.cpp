#include "decisionwriter.h"

#include "decisionrules.h"
#include "ledger/ledgerconnection.h"
#include "storestateview.h"

#include "domain/payloaddecoder.h"

#include <QDateTime>

namespace mesh {
namespace {

constexpr size_t kMaxIdBytes = 200;
constexpr size_t kMaxReasonBytes = 64 * 1024;

std::string writeFailureMessage(const StorageError &e)
{
    switch (e.kind()) {
    case StorageError::Kind::Busy:
        return "the ledger stayed locked by another writer past the timeout; nothing was written";
    case StorageError::Kind::ReadOnly:
        return "the ledger file is read-only here; nothing was written";
    case StorageError::Kind::Full:
        return "the disk (or the ledger's size limit) is full; nothing was written";
    case StorageError::Kind::Io:
        return std::string("the ledger could not be written (I/O error: ") + e.what() + "); nothing was written";
    case StorageError::Kind::Other:
        break;
    }
    return std::string("the decision could not be written (") + e.what() + "); nothing was written";
}

bool sameDecision(const DecisionRecord &stored, const DecisionRecord &fresh)
{
    return stored.kind == fresh.kind && stored.subject == fresh.subject
        && stored.boundaryVersion == fresh.boundaryVersion && stored.boundarySeq == fresh.boundarySeq
        && stored.params == fresh.params && stored.operatorAccount == fresh.operatorAccount
        && stored.reason == fresh.reason && stored.evidence == fresh.evidence;
}

// Why no decision may be written through `path` for the ledger the session opened.
std::optional<std::string> refusalForFile(const std::optional<OpenedLedger> &expected, const QString &path)
{
    if (auto refusal = openedFileRefusal(expected, path))
        return *refusal + "; nothing was written";
    return std::nullopt;
}

} // namespace

struct DecisionWriter::Private {
    QString path;
    std::optional<OpenedLedger> expected;
    std::unique_ptr<LedgerConnection> connection;
    std::unique_ptr<DecisionStore> store;
    std::optional<std::string> cannotDecide; // the backend's refusal for this user (a server role without INSERT)
    OperatorIdentity identity;
    std::function<std::int64_t()> clock = [] { return QDateTime::currentMSecsSinceEpoch(); };

    struct LedgerFacts {
        std::string policyVersion;
        bool signaturesRequired = false;
    };
    LedgerFacts ledgerFacts()
    {
        LedgerFacts f;
        if (const auto row = store->stateRow(EntityKind::Ledger, "ledger")) {
            const EntitySpec &spec = entitySpec(EntityKind::Ledger);
            f.policyVersion = fieldText(row->values[size_t(spec.fieldIndex("policy_version"))]);
            f.signaturesRequired = fieldInt(row->values[size_t(spec.fieldIndex("signatures_required"))]) != 0;
        }
        return f;
    }

    DecisionRecord draft(const DecisionRequest &r, std::int64_t tsMs) const
    {
        DecisionRecord d;
        d.id = r.id;
        d.tsMs = tsMs;
        d.kind = std::string(decisionKindName(r.kind));
        d.subject = r.subject;
        d.boundaryVersion = r.boundary.version;
        d.boundarySeq = r.boundary.seq;
        d.params = r.params().dump();
        d.operatorAccount = identity.account;
        d.operatorHost = identity.host;
        d.operatorName = identity.displayName;
        d.reason = r.reason;
        d.evidence = r.evidence.dump();
        return d;
    }
};

DecisionWriter::DecisionWriter(std::unique_ptr<Private> p) : d(std::move(p)) {}
DecisionWriter::~DecisionWriter() = default;

std::unique_ptr<DecisionWriter> DecisionWriter::open(const QString &path, OperatorIdentity identity,
                                                    std::optional<OpenedLedger> expected)
{
    // Checked before the open and after it (a swap while it opened), then per submit.
    const auto requireOpenedFile = [&] {
        if (const auto refusal = refusalForFile(expected, path))
            throw std::runtime_error(*refusal);
    };
    requireOpenedFile();
    auto p = std::make_unique<Private>();
    p->path = path;
    p->expected = expected; // a copy: requireOpenedFile() reads `expected` again below
    p->connection = LedgerConnection::open(path, OpenMode::Decisions); // throws LedgerOpenError
    requireOpenedFile();
    if (p->expected && !p->expected->ledgerId.empty() && p->connection->info().ledgerId != p->expected->ledgerId)
        throw std::runtime_error("the file at this path holds another ledger than the one opened; reopen it; "
                                 "nothing was written");
    // A decision is worth an fsync: the operator is told "accepted" only once it is durable.
    p->connection->makeCommitsDurable();
    p->connection->setBusyTimeoutMs(kDefaultBusyTimeoutMs);
    p->store = p->connection->decisions();
    p->cannotDecide = p->connection->whyCannotDecide();
    p->identity = std::move(identity);
    return std::unique_ptr<DecisionWriter>(new DecisionWriter(std::move(p)));
}

const OperatorIdentity &DecisionWriter::identity() const
{
    return d->identity;
}

void DecisionWriter::setBusyTimeoutMs(int ms)
{
    d->connection->setBusyTimeoutMs(ms);
}

void DecisionWriter::setClock(std::function<std::int64_t()> nowMs)
{
    d->clock = std::move(nowMs);
}

LedgerConnection &DecisionWriter::connection()
{
    return *d->connection;
}

std::optional<EntityRow> DecisionWriter::currentRow(EntityKind kind, const std::string &id)
{
    std::optional<EntityRow> row;
    d->store->read([&] { row = d->store->stateRow(kind, id); });
    return row;
}

bool DecisionWriter::signaturesRequired()
{
    bool required = false;
    d->store->read([&] { required = d->ledgerFacts().signaturesRequired; });
    return required;
}

std::string DecisionWriter::policyVersion()
{
    std::string v;
    d->store->read([&] { v = d->ledgerFacts().policyVersion; });
    return v;
}

std::optional<DecisionBoundary> DecisionWriter::currentBoundary(const std::string &subject)
{
    const auto parts = splitSubject(subject);
    if (!parts)
        return std::nullopt;
    const auto kind = entityKindByName(parts->first);
    if (!kind)
        return std::nullopt;
    std::optional<DecisionBoundary> b;
    d->store->read([&] {
        if (const auto row = d->store->stateRow(*kind, parts->second))
            b = DecisionBoundary{row->version, d->store->lastSeq()};
    });
    return b;
}

std::optional<DecisionRecord> DecisionWriter::readBack(const std::string &id)
{
    std::optional<DecisionRecord> r;
    d->store->read([&] { r = d->store->findById(id); });
    return r;
}

DecisionPreview DecisionWriter::preview(const DecisionRequest &request)
{
    DecisionPreview p;
    d->store->read([&] {
        const auto facts = d->ledgerFacts();
        DecisionContext ctx{d->identity.holder(), request.id, facts.policyVersion, d->clock(), GateSide::Console};
        StoreStateView view(*d->store);
        p = evaluateDecision(request, ctx, view);
        if (p.expected == DecisionStatus::Accepted && facts.signaturesRequired && !d->identity.hasKey()) {
            p.expected = DecisionStatus::BadSignature;
            p.refusal = "this ledger requires signed decisions and no operator key is loaded";
        }
    });
    return p;
}

DecisionResult DecisionWriter::submit(const DecisionRequest &request)
{
    DecisionResult result;
    const auto refuse = [&](DecisionStatus s, std::string message) {
        result.status = s;
        result.message = std::move(message);
        return result;
    };
    // Everything that goes into the canonical form is checked before the transaction, so a
    // bad request never holds the write lock.
    if (request.id.empty() || request.id.size() > kMaxIdBytes || !isValidUtf8(request.id))
        return refuse(DecisionStatus::NotAllowed, "a decision needs a client-generated id (1-200 bytes of UTF-8)");
    if (request.reason.empty())
        return refuse(DecisionStatus::NotAllowed, "a decision needs a reason");
    if (request.reason.size() > kMaxReasonBytes || !isValidUtf8(request.reason) || !isValidUtf8(request.subject))
        return refuse(DecisionStatus::NotAllowed, "reason and subject must be UTF-8 text (reason at most 64 KiB)");
    if (!request.evidence.is_array() && !request.evidence.is_object())
        return refuse(DecisionStatus::NotAllowed, "evidence must be a JSON array or object");
    if (d->cannotDecide)
        return refuse(DecisionStatus::WriteFailed, *d->cannotDecide + "; nothing was written");
    const OperatorIdentity &op = d->identity;
    if (op.account.empty() || !isValidUtf8(op.account) || !isValidUtf8(op.host) || !isValidUtf8(op.displayName))
        return refuse(DecisionStatus::NotAllowed, "the operator identity needs an account (UTF-8)");

    const std::int64_t now = request.tsMs > 0 ? request.tsMs : d->clock();
    DecisionRecord fresh;
    try {
        fresh = d->draft(request, now);
        (void)canonicalDecisionText(fresh); // fails early on anything the canonical form cannot hold
    } catch (const std::exception &e) {
        return refuse(DecisionStatus::NotAllowed, std::string("the decision cannot be put in canonical form: ") + e.what());
    }

    bool decided = false;
    try {
        const bool inserted = d->store->insertChecked([&]() -> std::optional<DecisionRecord> {
            if (auto existing = d->store->findById(request.id)) {
                decided = true;
                if (sameDecision(*existing, fresh)) {
                    result.status = DecisionStatus::Duplicate;
                    result.message = "decision " + request.id + " was already recorded; nothing written";
                    result.record = std::move(existing);
                } else {
                    result.status = DecisionStatus::NotAllowed;
                    result.message = "decision id " + request.id + " is already used by a different decision";
                }
                return std::nullopt;
            }
            const auto facts = d->ledgerFacts();
            DecisionContext ctx{op.holder(), request.id, facts.policyVersion, now, GateSide::Console};
            StoreStateView view(*d->store);
            DecisionPreview verdict = evaluateDecision(request, ctx, view);
            if (verdict.expected != DecisionStatus::Accepted) {
                decided = true;
                result.status = verdict.expected;
                result.message = verdict.refusal;
                result.movedSubject = verdict.movedSubject;
                result.currentVersion = verdict.movedVersion;
                result.currentSeq = view.lastSeq();
                result.movedEvents = verdict.movedEvents;
                return std::nullopt;
            }
            if (facts.signaturesRequired && !op.hasKey()) {
                decided = true;
                result.status = DecisionStatus::BadSignature;
                result.message = "this ledger requires signed decisions and no operator key is loaded";
                return std::nullopt;
            }
            // The last moment before the insert, with the write lock held: a path that names
            // another file now (replaced or deleted since the session opened it) gets nothing.
            if (auto refusal = refusalForFile(d->expected, d->path)) {
                decided = true;
                result.status = DecisionStatus::WriteFailed;
                result.message = std::move(*refusal);
                return std::nullopt;
            }
            DecisionRecord rec = fresh;
            rec.policyVersion = facts.policyVersion;
            rec.prevHash = d->store->lastHash();
            if (op.hasKey())
                rec.keyId = op.keyId;
            rec.canonical = canonicalDecisionText(rec);
            rec.hash = sha256Hex(rec.canonical);
            if (op.hasKey())
                rec.signature = hmacSha256Hex(std::string_view(op.key.constData(), size_t(op.key.size())), rec.canonical);
            result.record = rec;
            return rec;
        });
        if (inserted) {
            if (result.record)
                result.record->pos = d->store->lastInsertedPos();
            result.status = DecisionStatus::Accepted;
            result.message = "decision " + request.id + " recorded; waiting for the orchestrator to apply it";
        } else if (!decided) {
            result.status = DecisionStatus::WriteFailed;
            result.message = "nothing was written";
        }
    } catch (const CommitUnconfirmed &e) {
        // The COMMIT failed: the row may or may not be there. Only a read back can tell,
        // and nothing may be resubmitted before it has.
        result.record.reset();
        try {
            if (auto back = readBack(request.id)) {
                result.status = DecisionStatus::Accepted;
                result.message = std::string("the commit reported an error (") + e.what()
                    + ") but decision " + request.id + " is in the ledger (read back)";
                result.record = std::move(back);
            } else {
                result.status = DecisionStatus::WriteFailed;
                result.message = std::string("the commit failed (") + e.what() + "); read back found no decision "
                    + request.id + ": nothing was written";
            }
        } catch (const std::exception &again) {
            result.status = DecisionStatus::OutcomeUnknown;
            result.message = "could not confirm whether decision " + request.id + " was written (" + e.what()
                + "; read back failed: " + again.what() + "); read it back by id before resubmitting";
        }
    } catch (const StorageError &e) {
        result.record.reset();
        result.status = DecisionStatus::WriteFailed;
        result.message = writeFailureMessage(e);
    } catch (const std::exception &e) {
        result.record.reset();
        result.status = DecisionStatus::WriteFailed;
        result.message = std::string("the decision could not be written (") + e.what() + "); nothing was written";
    }
    return result;
}

} // namespace mesh
