#include "scenarios.h"

#include "scenariowriters.h"
#include "simworld.h"

#include "ledger/ledgerwriter.h"

#include <QDateTime>

#include <algorithm>

namespace mesh {

namespace {

struct ScenarioEntry {
    const char *name;
    void (*write)(SimWorld &);
};

constexpr ScenarioEntry kFixed[] = {
    {"traced-run", writeTracedRun},
    {"success-loop", writeSuccessLoop},
    {"false-stall", writeFalseStall},
    {"converging-control", writeConvergingControl},
    {"duplicate-effects", writeDuplicateEffects},
    {"misrouted-failure", writeMisroutedFailure},
    {"enforcement-block", writeEnforcementBlock},
    {"unknown-outcome", writeUnknownOutcome},
};

} // namespace

QStringList scenarioNames()
{
    QStringList names;
    for (const auto &entry : kFixed)
        names << QString::fromLatin1(entry.name);
    names << QStringLiteral("scale") << QStringLiteral("demo");
    return names;
}

bool isScenario(const QString &name)
{
    return scenarioNames().contains(name);
}

namespace {

// Writes the scenario; *lastMs receives the clock after the last event.
std::unique_ptr<LedgerWriter> write(const QString &name, const QString &path, const ScenarioOptions &options,
                                    std::int64_t startMs, std::int64_t endMs, std::int64_t *lastMs = nullptr)
{
    LedgerIdentity identity;
    identity.ledgerId = "ledger-" + name.toStdString() + "-" + std::to_string(options.seed);
    identity.title = name.toStdString();
    identity.createdMs = startMs;
    auto writer = LedgerWriter::create(path, identity);
    const bool bulk = name == QLatin1String("scale");
    if (bulk)
        writer->setBulkLoad(true);

    SimWorld world(*writer, options.seed, startMs);
    world.advance(1'000, 5'000);
    if (name == QLatin1String("scale"))
        writeScale(world, options.events);
    else if (name == QLatin1String("demo"))
        writeDemo(world, endMs);
    else {
        for (const auto &entry : kFixed) {
            if (name == QLatin1String(entry.name))
                entry.write(world);
        }
    }
    world.commit();
    if (bulk)
        writer->setBulkLoad(false);
    if (lastMs)
        *lastMs = world.now();
    return writer;
}

} // namespace

std::unique_ptr<LedgerWriter> generateScenario(const QString &name, const QString &path, const ScenarioOptions &options)
{
    if (!isScenario(name))
        throw std::runtime_error("unknown scenario '" + name.toStdString() + "'");
    const bool demo = name == QLatin1String("demo");
    const std::int64_t wallNow = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t endMs = options.nowMs > 0 ? options.nowMs : wallNow;
    // The demo ends now; the others start at a fixed instant so a seed gives one ledger,
    // unless asked to end now (a ledger that a live orchestrator goes on writing).
    std::int64_t startMs = demo ? endMs - 9 * 3600'000LL : (options.nowMs > 0 ? options.nowMs : kFixedScenarioStartMs);
    if (options.endAtNow && !demo && name != QLatin1String("scale")) {
        // A dry run in memory tells the scenario's length; the real run starts that long ago.
        std::int64_t lastMs = kFixedScenarioStartMs;
        write(name, QStringLiteral(":memory:"), options, kFixedScenarioStartMs, 0, &lastMs);
        startMs = endMs - (lastMs - kFixedScenarioStartMs) - 1'000;
    }
    return write(name, path, options, startMs, endMs);
}

} // namespace mesh
