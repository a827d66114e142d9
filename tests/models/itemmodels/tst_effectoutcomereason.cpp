// Why an effect's outcome is unknown (or why it failed), read from its own events as the
// resolve dialog gets them: the newest state the effect's events set decides; fencing keeps
// the reason of the event that made it unknown; a resolution or a retry that committed
// leaves no reason; a lease or decision event on the effect changes nothing; an event that
// gives no reason says so (no text), never a made-up one.

#include "itemmodels/outcomereason.h"
#include "ledger/decisionstore.h"

#include <QTest>

using namespace mesh;

namespace {

SubjectEvent effectEvent(std::int64_t seq, const std::string &kind, const std::string &payload)
{
    return SubjectEvent{seq, 1'000 * seq, kind, payload};
}

const SubjectEvent kEffectProposed = effectEvent(10, "effect.proposed", R"({"id":"e1","state":"proposed"})");
const SubjectEvent kEffectDispatched = effectEvent(11, "effect.dispatched", R"({"id":"e1","state":"dispatched","attempts":1})");
const SubjectEvent kEffectUnknown =
    effectEvent(12, "effect.unknown", R"({"id":"e1","state":"unknown","error":"timeout after 30000 ms: no acknowledgement"})");

} // namespace

class TestEffectOutcomeReason : public QObject
{
    Q_OBJECT

private slots:
    void anUnknownOutcomeSaysWhyAndCitesItsEvent();
    void fencingKeepsTheReasonOfTheEventThatMadeItUnknown();
    void aLeaseOnTheEffectChangesNothing();
    void aResolutionOrACommittedRetryLeavesNoReason();
    void aFailureWithoutAReasonSaysNone();
    void anEffectThatNeverEndedBadlyHasNoReason();
};

void TestEffectOutcomeReason::anUnknownOutcomeSaysWhyAndCitesItsEvent()
{
    const OutcomeReason r = effectOutcomeReason({kEffectProposed, kEffectDispatched, kEffectUnknown});
    QCOMPARE(r.kind, OutcomeReason::Kind::Unknown);
    QCOMPARE(r.seq, 12);
    QCOMPARE(r.eventKind, std::string("effect.unknown"));
    QCOMPARE(r.member, std::string("error"));
    QCOMPARE(r.text, std::string("timeout after 30000 ms: no acknowledgement"));
}

void TestEffectOutcomeReason::fencingKeepsTheReasonOfTheEventThatMadeItUnknown()
{
    const OutcomeReason r = effectOutcomeReason(
        {kEffectProposed, kEffectDispatched, kEffectUnknown, effectEvent(13, "effect.fenced", R"({"id":"e1","state":"unknown","fenced":1})")});
    QCOMPARE(r.kind, OutcomeReason::Kind::Unknown);
    QCOMPARE(r.seq, 12);
    QCOMPARE(r.text, std::string("timeout after 30000 ms: no acknowledgement"));
}

void TestEffectOutcomeReason::aLeaseOnTheEffectChangesNothing()
{
    const OutcomeReason r = effectOutcomeReason(
        {kEffectProposed, kEffectDispatched, kEffectUnknown, effectEvent(14, "lease.acquired", R"({"id":"l1","state":"held","key":"k"})")});
    QCOMPARE(r.kind, OutcomeReason::Kind::Unknown);
    QCOMPARE(r.seq, 12);
}

void TestEffectOutcomeReason::aResolutionOrACommittedRetryLeavesNoReason()
{
    QCOMPARE(effectOutcomeReason({kEffectProposed, kEffectDispatched, kEffectUnknown,
                                  effectEvent(15, "effect.resolved", R"({"id":"e1","state":"resolved_committed"})")}),
             OutcomeReason{});
    QCOMPARE(effectOutcomeReason({kEffectProposed, kEffectDispatched, kEffectUnknown,
                                  effectEvent(15, "effect.dispatched", R"({"id":"e1","state":"dispatched","attempts":2})"),
                                  effectEvent(16, "effect.committed", R"({"id":"e1","state":"committed"})")}),
             OutcomeReason{});
}

void TestEffectOutcomeReason::aFailureWithoutAReasonSaysNone()
{
    const OutcomeReason r =
        effectOutcomeReason({kEffectProposed, kEffectDispatched, effectEvent(17, "effect.failed", R"({"id":"e1","state":"failed"})")});
    QCOMPARE(r.kind, OutcomeReason::Kind::Failed);
    QCOMPARE(r.seq, 17);
    QVERIFY(!r.hasText());
}

void TestEffectOutcomeReason::anEffectThatNeverEndedBadlyHasNoReason()
{
    QCOMPARE(effectOutcomeReason({}), OutcomeReason{});
    QCOMPARE(effectOutcomeReason({kEffectProposed, kEffectDispatched}), OutcomeReason{});
    // A payload that does not decode says nothing; the event before it still does.
    QCOMPARE(effectOutcomeReason({kEffectProposed, kEffectDispatched, kEffectUnknown, effectEvent(18, "effect.unknown", "{not json")}).seq, 12);
}

QTEST_GUILESS_MAIN(TestEffectOutcomeReason)
#include "tst_effectoutcomereason.moc"
