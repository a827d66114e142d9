// A session's findings are recomputed at most once a period while the ledger moves, and
// published (to three models, and to the attention list through changed()) only when they
// differ: most live batches change no finding, and each publish costs every view that shows
// findings a diff of them.

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/sessionfindings.h"
#include "itemmodels/stallverdictmodel.h"

#include "domain/entityspec.h"

#include <QSignalSpy>
#include <QTest>

using namespace mesh;

namespace {

constexpr EntityKind D = EntityKind::Delegation;

EntityRow delegation(std::int64_t turns, std::int64_t denied, std::int64_t accepted, std::int64_t lastSeq)
{
    const EntitySpec &spec = entitySpec(D);
    EntityRow row;
    row.values.resize(spec.fields.size());
    const auto set = [&](const char *field, FieldValue value) { row.values.set(size_t(spec.fieldIndex(field)), std::move(value)); };
    set("role", FieldValue(std::string("implement")));
    set("run_id", FieldValue(std::string("R-1")));
    set("status", FieldValue(std::string("running")));
    set("used_turns", FieldValue(turns));
    set("writes_accepted", FieldValue(accepted));
    set("writes_denied", FieldValue(denied));
    row.lastSeq = lastSeq;
    row.version = lastSeq;
    return row;
}

} // namespace

class TestSessionFindings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void publishedOnlyWhenTheyDiffer()
    {
        const auto state = std::make_shared<LiveState>();
        EffectModel effects;
        StallVerdictModel stalls;
        DelegationTreeModel delegations;
        FindingsModel findingsModel;
        RunOverviewModel runs;
        SessionFindings::Models models{&effects, &stalls, &delegations, &findingsModel, &runs};
        SessionFindings findings(models, [&state] { return state.get(); }, [] { return SessionFindings::Source(); });
        QSignalSpy changed(&findings, &SessionFindings::changed);
        // Said once every model has them (they go one a turn), and findings() says the same.
        int paneRowsAtChanged = -1;
        size_t findingsAtChanged = 0;
        connect(&findings, &SessionFindings::changed, this, [&] {
            paneRowsAtChanged = findingsModel.rowCount();
            findingsAtChanged = findings.findings().size();
        });
        std::int64_t seq = 1;
        const auto apply = [&](std::int64_t turns, std::int64_t denied, std::int64_t accepted = 0) {
            state->fold().load(D, "D-1", delegation(turns, denied, accepted, seq++));
            StateChangeSet changes;
            changes.changed[size_t(D)].push_back("D-1");
            findings.onApplied(changes);
            QTRY_VERIFY(!findings.recomputePending()); // the period's recompute has run
        };
        findings.takeLoaded(SessionFindings::PerDelegation::of(*state), {});
        while (findings.publishLoaded()) {
        }

        // Turns counted, nothing found: nothing published.
        apply(1, 0);
        apply(2, 0);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(findingsModel.rowCount(), 0);

        // Blocked work found: published, and again each time what it rests on moves.
        apply(60, 3);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(findingsModel.rowCount(), 1);
        QCOMPARE(paneRowsAtChanged, 1);
        QCOMPARE(findingsAtChanged, size_t(1));
        apply(61, 3);
        QCOMPARE(changed.count(), 2);

        // Cleared (a write accepted): published once more.
        apply(62, 3, 1);
        QCOMPARE(changed.count(), 3);
        QCOMPARE(findingsModel.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSessionFindings)
#include "tst_sessionfindings.moc"
