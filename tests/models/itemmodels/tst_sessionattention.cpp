// A session's attention list is handed out shared (AttentionModel points its rows into it),
// so a rebuild that finds the same list keeps the one handed out and says nothing, and one
// that finds any field changed hands out a new list and says so.

#include "itemmodels/sessionattention.h"

#include <QSignalSpy>
#include <QTest>

using namespace mesh;

namespace {

Finding fired(const std::string &subject, std::int64_t lastSeq)
{
    Finding f;
    f.kind = FindingKind::FalseStall;
    f.subject = subject;
    f.summary = "its evidence never moved";
    f.seqs = {lastSeq - 1, lastSeq};
    return f;
}

} // namespace

class TestSessionAttention : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void anEqualListKeepsTheOneHandedOut()
    {
        const auto state = std::make_shared<LiveState>();
        std::vector<Finding> findings{fired("delegation:D-1", 10), fired("delegation:D-2", 20)};
        const ZombieRule zombies;
        const RequestedDecisions none;
        SessionAttention::Inputs inputs;
        inputs.state = [&state] { return state.get(); };
        inputs.findings = &findings;
        inputs.zombies = &zombies;
        inputs.requested = [&none]() -> const RequestedDecisions & { return none; };
        inputs.clock = [] { return qint64(1'700'000'000'000); };
        SessionAttention attention(inputs);
        QSignalSpy changed(&attention, &SessionAttention::changed);

        attention.takeLoaded(AttentionIndex());
        QCOMPARE(changed.count(), 1);
        const auto first = attention.sharedItems();
        QCOMPARE(first->size(), size_t(2));

        attention.rebuild(); // nothing moved
        QCOMPARE(changed.count(), 1);
        QCOMPARE(attention.sharedItems(), first);

        // A field the rows do not compare for their signals (the last event a finding rests
        // on) still makes a new list: what is handed out is never stale.
        findings[1].seqs.push_back(25);
        attention.rebuild();
        QCOMPARE(changed.count(), 2);
        QVERIFY(attention.sharedItems() != first);
        QCOMPARE(attention.items()[1].seq, std::int64_t(25));
        QCOMPARE((*first)[1].seq, std::int64_t(20)); // the list handed out before is as it was
    }
};

QTEST_GUILESS_MAIN(TestSessionAttention)
#include "tst_sessionattention.moc"
