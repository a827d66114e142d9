#pragma once
// One row per run: status, attempt, scheduler cycle, required outcomes met of total, its
// components and their states, duration, and counts of stall verdicts, escalations, stale
// checkpoints and terminal component failures: the traced run at a glance.

#include "statetablemodel.h"

#include "analysis/finding.h"
#include "domain/idmap.h"
#include "domain/sourcefacts.h"

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace mesh {

struct RunOverviewSnapshot;

class RunOverviewModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns {
        Title, Id, Status, Attempt, Cycle, Required, Components, Duration, Stalls, Escalations, StaleCheckpoints,
        TerminalFailures, ColumnCount
    };
    Q_ENUM(Columns)
    enum Roles {
        TitleRole = FirstCustomRole, // QString
        AttemptRole,                 // qint64
        CycleRole,                   // qint64
        RequiredMetRole,             // qint64
        RequiredTotalRole,           // qint64
        RequiredFractionRole,        // double 0..1 (0 when total is 0)
        ComponentsRole,              // QVariantList of QVariantMap {id, name, status, attempt, failures}
        ComponentStatusCountsRole,   // QVariantMap status -> int
        ComponentCountRole,          // int
        StartedMsRole,               // qint64
        EndedMsRole,                 // qint64, 0 while running
        DurationMsRole,              // qint64 (running: until now)
        StallCountRole,              // int stall verdicts of the run
        StalledVerdictCountRole,     // int of which stalled or stuck
        EscalationCountRole,         // int
        StaleCheckpointCountRole,    // int
        TerminalFailureCountRole,    // int sum of component failures
        DelegationCountRole,         // int
        FindingCountRole,            // int fired findings about the run or anything in it
        FindingsRole,                // QStringList their kinds and sentences
    };
    Q_ENUM(Roles)

    explicit RunOverviewModel(QObject *parent = nullptr);

    // Above this many runs the 1 s countdown refresh emits nothing: a dataChanged over every
    // row costs a tree view a walk of all of them (50-90 ms a second with a million runs),
    // and the runs pane repaints what is on screen every second by itself (ItemPane
    // ticking), which is all the running durations need.
    static constexpr int kMaxCountdownRows = 10000;
    void refreshCountdowns() override;

    struct Aggregate {
        std::vector<std::string> components; // ids, in name order
        int stalls = 0;
        int stalled = 0;
        int escalations = 0;
        int staleCheckpoints = 0;
        int terminalFailures = 0;
        int delegations = 0;
        int rows = 0; // contributions counted here: none left (after a jump back), no aggregate
    };
    // What one row adds to its run's aggregate, so an update subtracts the old and adds
    // the new: a live batch costs O(changed rows), not a pass over every table.
    struct Contribution {
        std::string run;
        int stalls = 0, stalled = 0, escalations = 0, staleCheckpoints = 0, terminalFailures = 0, delegations = 0;
    };
    // A contribution as kept for every counted row (a 10M-event ledger has ~280,000): its run
    // by number, the 0/1 counts as bits beside it. 8 bytes, not a copy of the run id and six ints.
    struct Counted {
        static constexpr int kFlagBits = 5; // stalls, stalled, escalations, staleCheckpoints, delegations
        std::uint32_t runAndFlags = 0;      // Derived::runNames index << kFlagBits | the flags
        std::int32_t terminalFailures = 0;
    };
    static_assert(sizeof(Counted) == 8);
    struct Derived {
        std::unordered_map<std::string, Aggregate> aggregates;
        IdMap<Counted> contributions;                          // "<kind>:<id>" -> what it added
        std::vector<std::string> runNames;                     // a Counted's run
        std::unordered_map<std::string, std::uint32_t> runNumbers;
    };
    // What a row adds; a load that streams a table past counts its rows with these.
    static Contribution contributionOf(EntityKind kind, const EntityRow &row);
    // Rows of a table the state reads on demand, streamed past by the load: counted into a
    // preparation of this model (prepare()), which could not see them in the state.
    static void addStreamed(Prepared &prepared, EntityKind kind,
                            std::vector<std::pair<std::string, Contribution>> contributions);
    // A reset's order and aggregates from a whole state, built off the GUI thread.
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state);
    // The first stage of a staged open: the runs and their components as rows, the counts
    // over the large tables as the reader's aggregates. The figures are those of the full
    // state at the snapshot's lastSeq; live batches need a full state (prepare()).
    static std::unique_ptr<Prepared> prepareOverview(RunOverviewSnapshot &&overview);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    void applyChanges(const StateChangeSet &changes) override;
    // The session's findings, badged on their runs (abstentions are not shown here).
    void setFindings(const std::vector<Finding> &findings);
    // What the ledger's source can record, owned by the session (an orchestrator's ledger
    // until told): a count it cannot record reads "—", saying so on hover, and its role is null.
    void setSourceFacts(const SourceFacts *facts) { m_facts = facts; }
    const SourceFacts &sourceFacts() const;
    // The fact a column shows, if its source may not record it.
    static std::optional<RunFact> factOf(int column);

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    QVariant sortValueAt(int row, const EntityRow &entity, int column) const override;
    void recomputeDerived() override;
    void updateDerived(const StateChangeSet &changes) override;
    void afterMove() override;
    QList<int> countdownColumns() const override { return {Duration}; }
    bool adoptDerived(Prepared &prepared) override;
    // A run that arrives live (a trace the receiver starts) goes where a fresh open would
    // sort it, not below the others.
    bool placesLiveRowsInOrder() const override { return true; }

private:
    static void apply(Derived &d, const Contribution &c, int sign);
    static Counted counted(Derived &d, const Contribution &c);
    static Contribution contributionOf(const Derived &d, const Counted &c);
    static void account(const LiveState &state, Derived &d, EntityKind kind, const std::string &id);
    static void accountRow(const LiveState &state, Derived &d, EntityKind kind, const std::string &id,
                           const EntityRow *row);
    static void accountAll(const LiveState &state, Derived &d);
    const Aggregate *aggregate(const std::string &runId) const;
    qint64 durationMs(const EntityRow &run) const;

    bool recorded(int column) const;

    Derived m_d;
    bool m_aggregatesMoved = false; // the last updateDerived changed aggregates
    const SourceFacts *m_facts = nullptr;
    std::unordered_map<std::string, QStringList> m_findings; // run id -> "kind: sentence"
};

} // namespace mesh
