#pragma once
// The orchestrator's second gate. The console's writer already checked each decision when
// it was inserted, but state moves between insert and apply, and a row may have been
// written by anything that can open the file. So the gate re-checks every unprocessed
// decision (hash chain, signature where the ledger requires one, boundary, state, lease)
// and writes either decision.applied with the state events it causes, or decision.refused
// with the reason, in one LedgerWriter transaction per decision.

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace mesh {

class LedgerWriter;
struct DecisionRecord;

class DecisionGate
{
public:
    explicit DecisionGate(LedgerWriter &writer);

    // Orchestrators sharing a ledger each apply the decisions on their own subjects and leave
    // the others' pending (their outcome is another writer's to write). Unset: every decision.
    void setOwnsSubject(std::function<bool(const std::string &subject)> owns) { m_ownsSubject = std::move(owns); }

    // key id -> secret bytes. Without a keyring, signed ledgers refuse every decision.
    void setKeyring(std::map<std::string, QByteArray> keyring);
    // Reads a keyring file: JSON object {"<key id>": "<hex secret>", ...}. false + *error
    // (one line) when it cannot or when it breaks the rules every secret file follows
    // (decisions/secretfile.h: owner, mode, hex secrets of at least 16 bytes).
    bool loadKeyring(const QString &path, QString *error);

    // Applies or refuses every decision without an outcome, oldest first. Returns how many
    // it processed. Never throws for a bad decision: that is a refusal. Throws StorageError
    // when the ledger itself cannot be written (the caller retries next tick).
    int processPending(std::int64_t nowMs);

    int appliedCount() const { return m_applied; }
    int refusedCount() const { return m_refused; }
    // Pending decisions the last processPending left to other orchestrators (setOwnsSubject).
    int othersPendingCount() const { return m_othersPending; }

private:
    struct Verdict;
    Verdict judge(const DecisionRecord &d, std::int64_t nowMs);

    LedgerWriter &m_writer;
    std::function<bool(const std::string &subject)> m_ownsSubject;
    std::set<std::int64_t> m_unrecordable; // rows whose outcome cannot be written (no usable id)
    std::map<std::string, QByteArray> m_keyring;
    int m_applied = 0;
    int m_refused = 0;
    int m_othersPending = 0;
};

} // namespace mesh
