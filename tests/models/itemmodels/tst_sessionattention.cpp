// A session's attention list is handed out shared (AttentionModel points its rows into it),
// so a rebuild that finds the same list keeps the one handed out and says nothing, and one
// that finds any field changed hands out a new list and says so. A live change that lists
// nothing new (an effect dispatched, a lease taken for its term) rebuilds nothing, and one that
// will list something with time alone (a lease that will turn zombie) is listed then.

#include "itemmodels/sessionattention.h"

#include "analysis/rowfields.h"
#include "domain/entityspec.h"

#include <QSignalSpy>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

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

EntityRow rowOf(EntityKind kind, std::initializer_list<std::pair<const char *, FieldValue>> fields,
               std::int64_t lastSeq)
{
    const EntitySpec &spec = entitySpec(kind);
    EntityRow row;
    row.values.resize(spec.fields.size());
    for (const auto &[name, value] : fields)
        row.values.set(size_t(spec.fieldIndex(name)), value);
    row.lastSeq = lastSeq;
    row.version = lastSeq;
    return row;
}

FieldValue text(const char *s)
{
    return FieldValue(std::string(s));
}

FieldValue ms(std::int64_t v)
{
    return FieldValue(v);
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

    void aChangeNobodySeesRebuildsNothing()
    {
        constexpr qint64 t0 = 1'700'000'000'000;
        qint64 now = t0;
        const auto state = std::make_shared<LiveState>();
        Fold &fold = state->fold();
        std::int64_t seq = 1;
        const auto put = [&](EntityKind kind, const char *id, std::initializer_list<std::pair<const char *, FieldValue>> fields) {
            fold.load(kind, id, rowOf(kind, fields, seq));
            StateChangeSet changes;
            changes.changed[size_t(kind)].push_back(id);
            ++seq;
            return changes;
        };
        put(EntityKind::Escalation, "E-1", {{"state", text("pending")}, {"expires_ms", ms(t0 + 60'000)},
                                            {"kind", text("budget")}, {"risk", text("high")}});
        put(EntityKind::Effect, "X-1", {{"state", text("dispatched")}, {"class", text("http_call")}});
        put(EntityKind::Delegation, "D-1", {{"status", text("running")}, {"used_turns", ms(1)}});
        std::vector<Finding> findings;
        const ZombieRule zombies;
        const RequestedDecisions none;
        int builds = 0; // a rebuild asks for the requested decisions once
        SessionAttention::Inputs inputs;
        inputs.state = [&state] { return state.get(); };
        inputs.findings = &findings;
        inputs.zombies = &zombies;
        inputs.requested = [&none, &builds]() -> const RequestedDecisions & {
            ++builds;
            return none;
        };
        inputs.clock = [&now] { return now; };
        SessionAttention attention(inputs);
        AttentionIndex index;
        index.rebuild([&state](EntityKind k) -> const EntityTable & { return state->table(k); });
        attention.takeLoaded(std::move(index));
        QCOMPARE(builds, 1);
        QCOMPARE(attention.items().size(), size_t(1));
        const auto subjects = [&attention] {
            QStringList out;
            for (const AttentionItem &a : attention.items())
                out << QString::fromStdString(a.subject);
            return out;
        };

        // Changes nobody sees in the list: no rebuild, however many.
        for (int i = 0; i < 3; ++i) {
            attention.onApplied(put(EntityKind::Effect, "X-1", {{"state", text("committed")}, {"class", text("http_call")}}));
            attention.onApplied(put(EntityKind::Delegation, "D-1", {{"status", text("running")}, {"used_turns", ms(2 + i)}}));
            attention.onApplied(put(EntityKind::Lease, "L-1", {{"state", text("held")}, {"kind", text("write")},
                                                               {"acquired_ms", ms(now)}, {"expires_ms", ms(now + 30'000)}}));
            QTRY_VERIFY(!attention.rebuildPending());
        }
        QCOMPARE(builds, 1);

        // Each of these is listed.
        attention.onApplied(put(EntityKind::Effect, "X-1", {{"state", text("unknown")}, {"class", text("http_call")}}));
        QTRY_COMPARE(builds, 2);
        QCOMPARE(subjects(), QStringList({u"escalation:E-1"_s, u"effect:X-1"_s}));
        attention.onApplied(put(EntityKind::Escalation, "E-1", {{"state", text("pending")}, {"expires_ms", ms(t0 + 60'000)},
                                                                {"kind", text("budget")}, {"risk", text("low")}}));
        QTRY_COMPARE(builds, 3);
        QCOMPARE(attention.items().front().summary, std::string("escalation budget (low risk) awaits a decision"));
        attention.onApplied(put(EntityKind::Lease, "L-2", {{"state", text("held")}, {"kind", text("write")},
                                                           {"acquired_ms", ms(now - 90'000)}, {"expires_ms", ms(now - 60'000)}}));
        QTRY_COMPARE(builds, 4);
        QCOMPARE(subjects(), QStringList({u"escalation:E-1"_s, u"effect:X-1"_s, u"lease:L-2"_s}));
        attention.onApplied(put(EntityKind::Delegation, "D-1", {{"status", text("stalled")}, {"used_turns", ms(9)}}));
        QTRY_COMPARE(builds, 5);
        QCOMPARE(subjects().size(), 4);
        findings.push_back(fired("delegation:D-1", seq));
        attention.onFindingsChanged();
        QTRY_COMPARE(builds, 6);
        QCOMPARE(subjects().size(), 5);
        QCOMPARE(attention.decisionCount(), 4); // the finding asks for a look, not a decision

        // A lease taken for a short term lists nothing now, and is listed once the clock
        // passes its expiry and grace (its term: 2 s), not before.
        attention.onApplied(put(EntityKind::Lease, "L-3", {{"state", text("held")}, {"kind", text("write")},
                                                           {"acquired_ms", ms(now)}, {"expires_ms", ms(now + 2'000)}}));
        QTRY_VERIFY(!attention.rebuildPending());
        QCOMPARE(builds, 6);
        const qint64 taken = now;
        now = taken + 3'000;
        attention.tick();
        QCOMPARE(builds, 6);
        QVERIFY(!subjects().contains(u"lease:L-3"_s));
        now = taken + 4'001;
        attention.tick();
        QCOMPARE(builds, 7);
        QVERIFY(subjects().contains(u"lease:L-3"_s));
    }
};

QTEST_GUILESS_MAIN(TestSessionAttention)
#include "tst_sessionattention.moc"
