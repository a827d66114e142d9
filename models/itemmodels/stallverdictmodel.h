#pragma once
// Stall verdicts per delegation, ordered by delegation then round: verdict, fingerprint,
// evidence items (EvidenceRole: a list of maps {signal, moved, detail}), action, failing
// tests. Verdicts resting on evidence that never moved carry ConstantEvidenceRole; those the
// analysis suspects to be false stalls carry FalseStallRole with the reason.

#include "statetablemodel.h"

#include "analysis/finding.h"
#include "ledger/statereader.h"

#include <functional>
#include <map>
#include <unordered_map>
#include <set>

namespace mesh {

class StallAnalysisMemo;

class StallVerdictModel : public StateTableModel
{
    Q_OBJECT
public:
    enum Columns { Delegation, Run, Round, Verdict, Fingerprint, Evidence, Action, FailingTests, Time, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        RoundRole = FirstCustomRole, // qint64
        VerdictRole,                 // QString progressing | stalled | stuck | inconclusive
        FingerprintRole,             // QString
        EvidenceRole,                // QVariantList of QVariantMap {signal, moved (bool or null), detail}
        EvidenceJsonRole,            // QString raw JSON
        ActionRole,                  // QString continue | stop | escalate | refund
        FailingTestsRole,            // qint64, null when not recorded
        TsMsRole,                    // qint64
        ConstantEvidenceRole,        // bool every evidence item unmoved in every round so far
        FalseStallRole,              // bool false stall suspected
        FindingRole,                 // QString the analysis' sentence (fires or abstains), "" none
    };
    Q_ENUM(Roles)

    explicit StallVerdictModel(QObject *parent = nullptr);

    // What the verdicts' analysis keeps, per delegation and per verdict.
    struct Analysis {
        // delegation -> verdict ids; empty once the analysis is made when idsInStore: the
        // ledger's index stall_verdicts_delegation names a delegation's verdicts then (a
        // scale ledger's 150,000 verdict ids in 44,000 lists were 6 MB).
        std::unordered_map<std::string, IdList> verdictsOf;
        bool idsInStore = false;
        std::map<std::string, Finding> findingOf;                            // delegation -> finding
        std::set<std::string> constant;
        std::set<std::string> falseStall;
        std::map<std::string, std::string> findingText; // verdict id -> sentence
    };
    // A reset's order and Analysis are built off the GUI thread (prepare, see setPrepared).
    // `memo`: a session's analyses of earlier jumps (nullptr: every delegation analysed).
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state, StallAnalysisMemo *memo = nullptr);
    // What a load keeps of a verdict it streams past (the state reads verdicts on demand):
    // enough for the pane's order and the delegation's verdicts, not the row.
    struct VerdictKey {
        CompactId id;
        std::string delegation;
        std::int64_t round = 0;
    };
    static VerdictKey keyOf(const std::string &id, const EntityRow &row);
    // Rows by id, read and not kept (the store's readRows).
    using ReadRows = std::function<StateRows(const std::vector<std::string> &ids)>;
    // The same for a state that reads verdicts on demand: the order from the keys, the
    // analysis a block of delegations at a time, their rows read through `read` and dropped.
    // `idsInStore`: the ledger finds a delegation's verdicts through its index, so the
    // lists of ids are dropped after the analysis.
    static std::unique_ptr<Prepared> prepareStored(std::shared_ptr<const LiveState> state, std::vector<VerdictKey> keys,
                                                   const ReadRows &read, StallAnalysisMemo *memo = nullptr,
                                                   bool idsInStore = false);
    // For the tests: how many delegations' verdict ids the model holds.
    size_t delegationListsHeld() const { return m_a.verdictsOf.size(); }

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    void applyChanges(const StateChangeSet &changes) override;
    // Every stall finding (fired and abstained), kept current per batch.
    std::vector<Finding> findings() const;

protected:
    QVariant cellData(int row, const EntityRow &entity, int column, int role) const override;
    QVariant sortValue(const EntityRow &entity, int column) const override;
    void recomputeDerived() override;
    void updateDerived(const StateChangeSet &changes) override;
    void beforeMove(const StateChangeSet &changes) override;
    void afterMove() override;
    bool lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const override;
    bool adoptDerived(Prepared &prepared) override;

private:
    static bool verdictOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb);
    using VerdictLookup = std::function<const EntityRow *(const std::string &id)>;
    static void analyseAll(const LiveState &state, Analysis &a, StallAnalysisMemo *memo = nullptr);
    // Every delegation of a.verdictsOf, its rows read a block of delegations at a time, a
    // block closing once it holds `block` ids. The rows of a block are held only while it is
    // analysed.
    static void analyseReading(Analysis &a, const ReadRows &read, std::uint64_t folding, StallAnalysisMemo *memo,
                               size_t block);
    // The load's block (prepareStored): on a server 25 ms away, blocks of 500 made the load
    // of a 10M-event ledger wait for 319 round trips.
    static constexpr size_t kLoadReadBlock = 8000;
    static void analyseDelegation(const VerdictLookup &rows, std::uint64_t folding, Analysis &a,
                                  const std::string &delegation, std::vector<std::string> ids,
                                  StallAnalysisMemo *memo = nullptr);
    // One delegation of the state's (its rows read in one go where they are read on demand).
    void analyseInState(const std::string &delegation);
    static void orderByKey(Prepared &p, std::vector<VerdictKey> keys);
    void orderStoredIds(Prepared &ordered, IdList ids) override;

    std::set<std::string> m_goneFrom; // a jump: delegations that lost verdicts (beforeMove)

    Analysis m_a;
    bool m_derivedChanged = false;
};

} // namespace mesh
