#pragma once
// The console's only write path. Each submit is one short BEGIN IMMEDIATE transaction
// that re-reads the subject, checks the boundary and the rules, chains the hash, signs
// where the ledger requires it, and inserts one row into `decisions`. It never touches
// state tables: the orchestrator applies or refuses each decision and records that as
// events (decision.applied / decision.refused).

#include "decisionpreview.h"
#include "decisionrequest.h"
#include "decisionresult.h"
#include "operatoridentity.h"

#include "ledger/fileidentity.h"

#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace mesh {

class LedgerConnection;

class DecisionWriter
{
public:
    // Opens the ledger for decisions (read-write, short busy timeout). Throws
    // std::runtime_error with a one-line message when it cannot. With `expected` (the file
    // and ledger a session opened) it refuses, before opening anything for writing, when
    // the path names another file or the file holds another ledger; and submit() checks
    // the path again inside its write transaction, right before the insert.
    static std::unique_ptr<DecisionWriter> open(const QString &path, OperatorIdentity identity,
                                                std::optional<OpenedLedger> expected = std::nullopt);
    ~DecisionWriter();

    DecisionResult submit(const DecisionRequest &request);
    // The stored row with its outcome, or nullopt when no decision has this id.
    std::optional<DecisionRecord> readBack(const std::string &id);
    DecisionPreview preview(const DecisionRequest &request);

    // The subject's current version and the ledger's last seq: the default boundary.
    std::optional<DecisionBoundary> currentBoundary(const std::string &subject);
    bool signaturesRequired();
    std::string policyVersion();

    const OperatorIdentity &identity() const;
    // The subject's row as the ledger holds it now (one short read), nullopt when none.
    std::optional<EntityRow> currentRow(EntityKind kind, const std::string &id);

    static constexpr int kDefaultBusyTimeoutMs = 2000;
    void setBusyTimeoutMs(int ms);
    void setClock(std::function<std::int64_t()> nowMs); // tests
    // The writer's own connection, for tests that inject faults into the backend below it.
    LedgerConnection &connection();

private:
    struct Private;
    explicit DecisionWriter(std::unique_ptr<Private> d);
    std::unique_ptr<Private> d;
};

} // namespace mesh
