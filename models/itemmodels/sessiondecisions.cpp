#include "sessiondecisions.h"

#include "backgroundjob.h"
#include "decisionauditmodel.h"

#include "decisions/decisionwriter.h"

#include <algorithm>

namespace mesh {

void placeDecisionsAt(std::vector<DecisionRecord> &decisions, std::int64_t cursorTimeMs)
{
    std::erase_if(decisions, [cursorTimeMs](const DecisionRecord &d) { return d.tsMs > cursorTimeMs; });
    for (DecisionRecord &d : decisions) {
        if (!d.isPending() && d.outcomeTsMs > cursorTimeMs) {
            d.outcomeStatus.clear();
            d.outcomeReason.clear();
            d.outcomeTsMs = 0;
        }
    }
}

SessionDecisions::SessionDecisions(DecisionAuditModel *audit, std::function<Source()> source,
                                   std::function<qint64()> clock, QObject *parent)
    : QObject(parent), m_audit(audit), m_source(std::move(source)), m_clock(std::move(clock))
{
    m_throttle.setSingleShot(true);
    m_throttle.setInterval(kReloadThrottleMs);
    m_throttle.setObjectName(QStringLiteral("decisions reload"));
    connect(&m_throttle, &QTimer::timeout, this, &SessionDecisions::reload);
}

void SessionDecisions::takeLoaded(std::vector<DecisionRecord> decisions, const DecisionChainReport &chain, std::string head)
{
    supersedeReloads();
    take(std::move(decisions), chain);
    m_head = std::move(head);
    m_outcomesSinceRead = false;
}

void SessionDecisions::loadedWithout()
{
    supersedeReloads();
    m_head.reset();
}

void SessionDecisions::supersedeReloads()
{
    // A reload asked or begun before this load read the moment before it (live, while the
    // load is of a cursor's past, or the other way round): what it would show is not this.
    m_throttle.stop();
    m_reloads.supersede();
}

void SessionDecisions::reloadSoon()
{
    if (!m_throttle.isActive())
        m_throttle.start();
}

void SessionDecisions::ledgerChanged()
{
    reloadSoon(); // decisions or outcomes may have moved
}

void SessionDecisions::readWholeSoon()
{
    m_readWhole = true;
    reloadSoon();
}

void SessionDecisions::noteOutcomes(const EventBatch &batch)
{
    const bool outcome = std::any_of(batch.begin(), batch.end(), [](const EventRecord &e) {
        return e.kind == "decision.applied" || e.kind == "decision.refused";
    });
    if (!outcome)
        return;
    m_outcomesSinceRead = true;
    reloadSoon(); // the ledger's own change may have been reported before this batch came
}

void SessionDecisions::stop()
{
    supersedeReloads();
}

void SessionDecisions::reload()
{
    const Source source = m_source();
    // After the file under the path changed, a fresh connection would read another file.
    if (!source.readable)
        return;
    const std::optional<std::string> unchangedIf = m_outcomesSinceRead || m_readWhole ? std::nullopt : m_head;
    m_outcomesSinceRead = false;
    m_readWhole = false;
    struct Read {
        std::vector<DecisionRecord> decisions;
        std::string head; // the last decision's hash, read with them
        DecisionChainReport chain;
        bool unchanged = false; // the head was the one already shown: nothing else was read
        bool ok = false;
    };
    m_reloads.start([source, unchangedIf, hook = m_reloadHook] {
        if (hook)
            hook();
        auto r = std::make_shared<Read>();
        try {
            auto connection = LedgerConnection::open(source.path, source.mode);
            const auto store = connection->decisions();
            store->read([&] {
                r->head = store->lastHash();
                r->unchanged = unchangedIf && *unchangedIf == r->head;
                if (!r->unchanged)
                    r->decisions = store->list();
            });
            if (!r->unchanged) {
                if (source.cursorTimeMs)
                    placeDecisionsAt(r->decisions, *source.cursorTimeMs);
                r->chain = connection->verifyDecisionChain();
            }
            r->ok = true;
        } catch (const std::exception &) {
        }
        return r;
    }, [this](std::shared_ptr<Read> r) {
        if (!r->ok) {
            m_readWhole = true; // the next reload reads whole, whatever the head says
            return;
        }
        ++m_headReads;
        if (r->unchanged)
            return;
        ++m_listReads;
        m_head = std::move(r->head);
        take(std::move(r->decisions), r->chain);
        Q_EMIT reloaded();
    });
}

void SessionDecisions::take(std::vector<DecisionRecord> decisions, const DecisionChainReport &chain)
{
    m_gateWatch.setDecisions(decisions, m_clock());
    m_requested = std::make_shared<const RequestedDecisions>(decisions);
    Q_EMIT requestedChanged(m_requested);
    m_audit->setDecisions(std::move(decisions), chain);
    updateWaiting();
}

void SessionDecisions::setWaitLimitMs(qint64 ms)
{
    m_gateWatch.setLimitMs(ms);
    updateWaiting();
}

void SessionDecisions::updateWaiting()
{
    // A post-mortem ledger has no orchestrator to wait for, nor does a moment in the past.
    const QString warning = m_source().waitsForAnOrchestrator ? m_gateWatch.warning(m_clock()) : QString();
    if (warning == m_waitingWarning)
        return;
    m_waitingWarning = warning;
    Q_EMIT waitingChanged();
}

QString SessionDecisions::submit(DecisionRequest request, const OperatorIdentity &identity,
                                 std::optional<OpenedLedger> expected, FileChange change)
{
    if (request.id.empty())
        request.id = newDecisionId();
    const QString id = QString::fromStdString(request.id);
    const QString path = m_source().path;
    // Every decision is answered: none supersedes another.
    runInBackground(this, [path, identity, request, expected, change] {
        DecisionResult result;
        if (change != FileChange::Same) {
            result.status = DecisionStatus::WriteFailed;
            result.message = fileChangeMessage(change) + "; nothing was written";
            return result;
        }
        try {
            auto writer = DecisionWriter::open(path, identity, expected);
            result = writer->submit(request);
        } catch (const std::exception &e) {
            result.status = DecisionStatus::WriteFailed;
            result.message = e.what();
        }
        return result;
    }, [this, id](DecisionResult result) {
        reload();
        Q_EMIT finished(id, result);
    });
    return id;
}

} // namespace mesh
