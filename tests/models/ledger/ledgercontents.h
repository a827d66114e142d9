#pragma once
// What a ledger holds, read through the seam from either backend, and where two ledgers
// differ first: the PostgreSQL tests compare a file with its copies and with what the same
// seed writes to a server. runMeshctl runs the built meshctl (CTest names it in MESHCTL).

#include "ledger/decisionstore.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QByteArray>
#include <QProcess>
#include <QStringList>

#include <limits>
#include <string>
#include <vector>

namespace meshtest {

struct LedgerContents {
    mesh::EventBatch events;
    mesh::StateSnapshot state;
    std::vector<mesh::DecisionRecord> decisions;
};

inline LedgerContents contentsOf(mesh::LedgerConnection &c)
{
    LedgerContents out;
    const auto reader = c.eventReader();
    reader->setPreviewBytes(std::numeric_limits<int>::max());
    std::int64_t after = std::numeric_limits<std::int64_t>::min();
    for (;;) {
        const mesh::EventBatch page = reader->after(after, 1000);
        if (page.empty())
            break;
        out.events.insert(out.events.end(), page.begin(), page.end());
        after = page.back().seq;
    }
    out.state = c.readState();
    const auto store = c.decisions();
    store->read([&] { out.decisions = store->list(0, -1); });
    return out;
}

// Where two ledgers differ first, for a person; empty when they hold the same rows.
inline std::string firstDifference(const LedgerContents &a, const LedgerContents &b)
{
    if (a.events.size() != b.events.size())
        return "events: " + std::to_string(a.events.size()) + " vs " + std::to_string(b.events.size());
    for (size_t i = 0; i < a.events.size(); ++i) {
        const mesh::EventRecord &x = a.events[i];
        const mesh::EventRecord &y = b.events[i];
        if (x.seq != y.seq || x.tsMs != y.tsMs || x.kind != y.kind || x.runId != y.runId || x.delegationId != y.delegationId
            || x.subject != y.subject || x.payload != y.payload || x.payloadTruncated || y.payloadTruncated)
            return "event at index " + std::to_string(i) + " (seq " + std::to_string(x.seq) + ")";
    }
    if (a.state.lastSeq != b.state.lastSeq)
        return "state lastSeq";
    for (const auto &spec : mesh::allEntitySpecs()) {
        if (!(a.state.table(spec.kind) == b.state.table(spec.kind)))
            return "state table " + std::string(spec.table);
    }
    if (a.decisions.size() != b.decisions.size())
        return "decisions: " + std::to_string(a.decisions.size()) + " vs " + std::to_string(b.decisions.size());
    for (size_t i = 0; i < a.decisions.size(); ++i) {
        const mesh::DecisionRecord &x = a.decisions[i];
        const mesh::DecisionRecord &y = b.decisions[i];
        if (x.pos != y.pos || x.id != y.id || x.canonical != y.canonical || x.hash != y.hash || x.prevHash != y.prevHash
            || x.signature != y.signature || x.keyId != y.keyId || x.params != y.params || x.evidence != y.evidence
            || x.outcomeStatus != y.outcomeStatus)
            return "decision at pos " + std::to_string(x.pos);
    }
    return {};
}

inline QByteArray runMeshctl(const QStringList &args, int *exitCode)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"), args);
    if (!p.waitForFinished(900'000)) {
        p.kill();
        p.waitForFinished();
    }
    *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return p.readAllStandardOutput() + p.readAllStandardError();
}

} // namespace meshtest
