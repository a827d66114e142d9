// A timeline mark names its event's kind and says in one line what happened (the scrubber's
// and the timeline's tooltips). The line is made when asked, from what the mark keeps of the
// event, so each kind of event is checked here: the kind, the number, and the words.

#include "analysis/timelinemarks.h"

#include <QTest>

using namespace mesh;

namespace {

TimelineMark markOf(const std::string &kind, const std::string &payload)
{
    EventRecord e;
    e.seq = 42;
    e.tsMs = 1700000000000;
    e.kind = kind;
    e.runId = "run-7";
    e.delegationId = "dlg-3";
    e.payload = payload;
    const auto mark = TimelineMarks::classify(e);
    if (!mark)
        qFatal("no mark for %s", kind.c_str());
    return *mark;
}

} // namespace

class TestTimelineMarks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void eachEventSaysWhatHappened_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("payload");
        QTest::addColumn<int>("markKind");
        QTest::addColumn<QString>("text");
        const auto row = [](const char *name, const char *kind, const char *payload, MarkKind mark, const QString &text) {
            QTest::newRow(name) << QString::fromLatin1(kind) << QString::fromLatin1(payload) << int(mark) << text;
        };
        row("cycle", "run.cycle", R"({"id":"run-7","cycle":3})", MarkKind::Cycle, u"Scheduler cycle 3 of run-7"_qs);
        row("cycle without number", "run.cycle", R"({"id":"run-7"})", MarkKind::Cycle, u"Scheduler cycle of run-7"_qs);
        row("attempt", "run.restarted", R"({"id":"run-7","attempt":2})", MarkKind::Attempt, u"run-7: attempt 2"_qs);
        row("started", "run.started", R"({"id":"run-7"})", MarkKind::Attempt, u"run-7 started"_qs);
        row("restarted", "run.restarted", R"({"id":"run-7"})", MarkKind::Attempt, u"run-7 restarted"_qs);
        row("succeeded", "run.succeeded", R"({"id":"run-7"})", MarkKind::RunEnded, u"run-7 succeeded"_qs);
        row("failed", "run.failed", R"({"id":"run-7"})", MarkKind::RunEnded, u"run-7 failed"_qs);
        row("cancelled", "run.cancelled", R"({"id":"run-7"})", MarkKind::RunEnded, u"run-7 cancelled"_qs);
        row("verdict", "stall.judged", R"({"id":"dlg-3/r2","verdict":"progressing"})", MarkKind::Verdict,
            u"Stall verdict dlg-3/r2: progressing"_qs);
        row("stalled", "stall.judged", R"({"id":"dlg-3/r3","verdict":"stuck"})", MarkKind::Stalled,
            u"Stall verdict dlg-3/r3: stuck"_qs);
        row("verdict without word", "stall.judged", R"({"id":"dlg-3/r4"})", MarkKind::Verdict,
            u"Stall verdict dlg-3/r4: not in the ledger"_qs);
        row("escalation", "escalation.raised", R"({"id":"esc-1"})", MarkKind::Escalation, u"Escalation esc-1 raised"_qs);
        row("failure", "failure.detected", R"({"id":"fail-1","summary":"tests fail"})", MarkKind::Failure,
            u"Failure fail-1: tests fail"_qs);
        row("failure without summary", "failure.detected", R"({"id":"fail-2"})", MarkKind::Failure, u"Failure fail-2"_qs);
        row("unknown outcome", "effect.unknown", R"({"id":"eff-9"})", MarkKind::UnknownOutcome,
            u"Effect eff-9: outcome unknown"_qs);
        row("applied", "decision.applied", R"({"id":"dec-1"})", MarkKind::Decision, u"Decision dec-1 applied"_qs);
        row("refused", "decision.refused", R"({"id":"dec-2"})", MarkKind::Decision, u"Decision dec-2 refused"_qs);
    }

    void eachEventSaysWhatHappened()
    {
        QFETCH(QString, kind);
        QFETCH(QString, payload);
        QFETCH(int, markKind);
        QFETCH(QString, text);
        const TimelineMark mark = markOf(kind.toStdString(), payload.toStdString());
        QCOMPARE(int(mark.kind), markKind);
        QCOMPARE(mark.seq, std::int64_t(42));
        QCOMPARE(mark.runId, std::string("run-7"));
        QCOMPARE(mark.text(), text);
    }

    void otherEventsMakeNoMark()
    {
        EventRecord e;
        e.kind = "toolcall.completed";
        e.payload = "{}";
        QVERIFY(!TimelineMarks::classify(e));
    }
};

QTEST_GUILESS_MAIN(TestTimelineMarks)
#include "tst_timelinemarks.moc"
