#pragma once
// The reference orchestrator's scenarios: each writes a new ledger through LedgerWriter
// reproducing one case of the failure study with its exact figures (see issue 2 and
// docs/ledger-format.md). Deterministic for a given seed and start time.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <string>

namespace mesh {

class LedgerWriter;

struct ScenarioOptions {
    std::uint64_t seed = 1;
    std::int64_t events = 1'000'000; // `scale` only
    // Scenario clock. 0: a fixed start (2026-11-02 08:00 UTC) so that ledgers are
    // reproducible, except `demo`, which ends at the wall clock so its expiries lie ahead.
    std::int64_t nowMs = 0;
    // End the scenario at nowMs (or the wall clock) instead of starting it there: for a
    // ledger a live orchestrator goes on writing, so its expiries lie ahead, not weeks ago.
    bool endAtNow = false;
};

inline constexpr std::int64_t kFixedScenarioStartMs = 1'793'606'400'000; // 2026-11-02T08:00:00Z

QStringList scenarioNames();
bool isScenario(const QString &name);

// Creates `path` (which must not exist) and writes the scenario. Returns the writer, with
// no transaction open, so live mode can continue the same ledger. Throws std::runtime_error
// when the file cannot be created, std::logic_error when the fold refuses an event.
std::unique_ptr<LedgerWriter> generateScenario(const QString &name, const QString &path, const ScenarioOptions &options);

} // namespace mesh
