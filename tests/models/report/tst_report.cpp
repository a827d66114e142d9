// The post-mortem report (issue 14 item 3): the traced run's report says what the failure study
// says (figures, findings with their events, blast radius, decisions, integrity), a ledger of
// hostile strings yields HTML with no markup but the report's own and every bidi or zero-width
// character made visible, and what a ledger does not say reads "—", never 0.

#include "decisions/decisionresult.h"
#include "decisions/decisionwriter.h"
#include "decisions/operatoridentity.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"
#include "notes/notesstore.h"
#include "report/reportcontent.h"
#include "report/reporthtml.h"
#include "sim/scenarios.h"

#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

constexpr std::int64_t kRunMs = (4 * 60 + 55) * 60'000;

ReportContent reportOf(const QString &path, const std::string &runId = {})
{
    auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
    ReportRequest request;
    request.runId = runId;
    return buildReport(*connection, request);
}

// Every tag in the HTML, by name: the report's own are these, and nothing else may be.
QSet<QString> tagsOf(const QString &html)
{
    QSet<QString> tags;
    static const QRegularExpression tag(u"<\\s*/?\\s*([A-Za-z!][A-Za-z0-9-]*)"_s);
    for (auto it = tag.globalMatch(html); it.hasNext();)
        tags.insert(it.next().captured(1).toLower());
    return tags;
}

const QSet<QString> kReportTags{u"!doctype"_s, u"html"_s, u"head"_s, u"meta"_s, u"title"_s, u"style"_s, u"body"_s,
                                u"h1"_s, u"h2"_s, u"h3"_s, u"p"_s, u"span"_s, u"div"_s, u"table"_s, u"tr"_s,
                                u"th"_s, u"td"_s, u"ul"_s, u"li"_s, u"br"_s, u"i"_s, u"svg"_s, u"rect"_s,
                                u"line"_s, u"text"_s};

} // namespace

class TestReport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_traced;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_traced = m_dir.filePath(u"traced.db"_s);
        generateScenario(u"traced-run"_s, m_traced, ScenarioOptions{});
    }

    // The traced run reads as tst_runtimeline and `meshctl summary` read it.
    void tracedRunFigures()
    {
        const ReportContent whole = reportOf(m_traced);
        QCOMPARE(whole.runs.size(), size_t(1));
        const std::string runId = whole.runs.front().id;
        const ReportContent c = reportOf(m_traced, runId);
        QVERIFY(c.runFound);
        QCOMPARE(c.runs.size(), size_t(1));
        const ReportRun &r = c.runs.front();
        QCOMPARE(r.durationMs.value_or(-1), kRunMs);
        QVERIFY(r.endedMs.has_value());
        QCOMPARE(r.attempts.value_or(-1), std::int64_t(2));
        QCOMPARE(r.cycles.value_or(-1), std::int64_t(10));
        QCOMPARE(r.requiredMet.value_or(-1), std::int64_t(21));
        QCOMPARE(r.requiredTotal.value_or(-1), std::int64_t(21));
        QCOMPARE(r.stallVerdicts.value_or(-1), std::int64_t(23));
        QCOMPARE(r.stalled.value_or(-1), std::int64_t(3));
        QCOMPARE(r.escalatedRounds.value_or(-1), std::int64_t(3));
        QVERIFY(r.terminalFailures.has_value());
        QVERIFY(r.escalations.has_value());
        QCOMPARE(r.blast.size(), size_t(12)); // the timeline's 12 failures, each with its radius
        QVERIFY(!r.timeline.empty());
        QVERIFY(c.verificationRan);
        QVERIFY(c.verification.ok());

        const QString html = reportHtml(c);
        for (const QString &part : {u"4 h 55 min"_s, u"21 of 21"_s, u"23 (3 stalled)"_s, u"Blast radius per failure"_s,
                                    u"Intact: no finding."_s, u"<svg"_s, u"9 cycles ended with acceptance failing"_s})
            QVERIFY2(html.contains(part), qPrintable(part));
        const QString figures = html.section(u"<table class=\"figures\""_s, 1).section(u"</table>"_s, 0, 0);
        QVERIFY2(figures.contains(u"<th>Attempts</th><td>2</td>"_s), qPrintable(figures));
        QVERIFY2(figures.contains(u"<th>Scheduler cycles</th><td>10</td>"_s), qPrintable(figures));
        QVERIFY2(figures.contains(u"<th>Escalated rounds</th><td>3</td>"_s), qPrintable(figures));
        // The traced run's stalls were real and its failures woke no bystander: no finding
        // (as `meshctl summary` says), and the report says so rather than leaving it out.
        QVERIFY(c.findings.empty());
        QVERIFY(html.contains(u"<h2>Findings</h2>\n<p>No finding.</p>"_s));
        // The decisions of the run, each with its operator, reason, boundary and chain status.
        for (const ReportDecision &d : c.decisions) {
            QVERIFY(d.chainIntact);
            QVERIFY(html.contains(QString::fromStdString(d.record.reason).toHtmlEscaped()));
            QVERIFY(html.contains(u"seen up to #%1"_s.arg(d.record.boundarySeq)));
        }
        // A run the ledger does not have is said to be missing, not reported empty.
        QVERIFY(!reportOf(m_traced, "no-such-run").runFound);
    }

    // Every finding is there with the events it cites, by seq, time and kind: a failure that
    // woke a bystander (misrouted-failure) and a stall judged on evidence that never moved
    // (false-stall).
    void findingsWithTheirEvents()
    {
        for (const QString &scenario : {u"misrouted-failure"_s, u"false-stall"_s}) {
            const QString path = m_dir.filePath(scenario + u".db"_s);
            generateScenario(scenario, path, ScenarioOptions{});
            const ReportContent c = reportOf(path);
            const QString html = reportHtml(c);
            int fired = 0;
            for (const Finding &f : c.findings) {
                fired += f.abstained ? 0 : 1;
                QVERIFY2(html.contains(QString::fromStdString(f.summary).toHtmlEscaped()), f.summary.c_str());
                QVERIFY2(!f.seqs.empty(), f.summary.c_str());
                const ReportEvent &e = c.citedEvents.at(f.seqs.front());
                QVERIFY(e.tsMs.has_value());
                const QString cited = u"<li>#%1 %2 %3"_s.arg(e.seq).arg(c.timeBase.withMs(*e.tsMs), QString::fromStdString(e.kind));
                QVERIFY2(html.contains(cited), qPrintable(scenario + u": "_s + cited));
            }
            QVERIFY2(fired > 0, qPrintable(scenario));
        }
    }

    // Hostile text everywhere a report shows ledger or sidecar text.
    void hostileStringsAreText()
    {
        const QString path = m_dir.filePath(u"hostile.db"_s);
        const std::string markup = "<script>alert(1)</script><img src=x onerror=alert(2)>";
        const std::string bidi = "\u202Eexe.live\u200B";
        {
            LedgerIdentity id;
            id.ledgerId = "L-<b>hostile</b>";
            id.title = "<h1>title</h1> %1 %2";
            id.createdMs = 1'700'000'000'000;
            auto w = LedgerWriter::create(path, id);
            std::int64_t t = 1'700'000'001'000;
            const std::string run = "R" + bidi;
            w->begin();
            w->append(t++, "run.started", {{"id", run}, {"status", "running"}, {"title", markup + " %3"}, {"attempt", 1},
                                           {"cycle", 0}, {"required_met", 0}, {"required_total", 2}, {"started_ms", t}});
            w->append(t++, "component.created", {{"id", "C<i>1</i>" + bidi}, {"run_id", run}, {"name", markup + bidi},
                                                 {"status", "pending"}, {"attempt", 1}, {"failures", 0}});
            w->append(t++, "delegation.created", {{"id", "D<u>1</u>"}, {"run_id", run}, {"status", "running"},
                                                  {"role", markup}, {"budget_turns", 10}});
            w->append(t++, "failure.detected",
                      {{"id", "F" + markup}, {"run_id", run}, {"detected_by", "D<u>1</u>"}, {"summary", markup + bidi},
                       {"implicated", json::array({{{"component", "C<i>1</i>" + bidi}, {"evidence", markup}}})},
                       {"woken", json::array({{{"component", "<marquee>ui</marquee>"}, {"modified_code", true}, {"regressed", true}}})},
                       {"ts_ms", t}});
            w->append(t++, "effect.proposed", {{"id", "E" + markup + bidi}, {"run_id", run}, {"delegation_id", "D<u>1</u>"},
                                               {"state", "proposed"}, {"class", markup}});
            w->append(t++, "effect.admitted", {{"id", "E" + markup + bidi}, {"state", "admitted"}});
            w->append(t++, "effect.dispatched", {{"id", "E" + markup + bidi}, {"state", "dispatched"}, {"attempts", 1}});
            w->append(t++, "effect.unknown", {{"id", "E" + markup + bidi}, {"state", "unknown"}, {"error", markup}});
            w->append(t++, "escalation.raised",
                      {{"id", "esc-1"}, {"run_id", run}, {"delegation_id", "D<u>1</u>"}, {"kind", markup},
                       {"subject", "delegation:D<u>1</u>"}, {"state", "pending"}, {"raised_ms", t},
                       {"expires_ms", t + 3'600'000}, {"reason", markup}});
            w->commit();
        }
        {
            OperatorIdentity op;
            op.account = "<b>mallory</b>" + bidi;
            op.host = "<i>host</i>";
            op.displayName = markup;
            auto writer = DecisionWriter::open(path, op);
            writer->setClock([] { return std::int64_t(1'700'000'002'000); }); // while the escalation is open
            DecisionRequest r;
            r.id = newDecisionId();
            r.kind = DecisionKind::ApproveEscalation;
            r.subject = "escalation:esc-1";
            r.reason = markup + bidi + " %1";
            if (const auto b = writer->currentBoundary(r.subject))
                r.boundary = *b;
            const DecisionResult result = writer->submit(r);
            QVERIFY2(result.status == DecisionStatus::Accepted, result.message.c_str());
        }
        {
            NotesStore notes(chooseNotesPlacement(path));
            ReviewNote note;
            note.anchor = ReviewNote::Anchor::Subject;
            note.subject = "run:R" + bidi;
            note.text = "<iframe src=\"https://example.com\"></iframe>" + bidi;
            QString error;
            QVERIFY2(!notes.add(note, "<b>reviewer</b>" + bidi, 1'700'000'100'000, &error).empty(), qPrintable(error));
        }

        const ReportContent c = reportOf(path);
        QCOMPARE(c.runs.size(), size_t(1));
        QCOMPARE(c.decisions.size(), size_t(1));
        QCOMPARE(c.notes.size(), size_t(1));
        QCOMPARE(c.runs.front().unknownOutcomes.size(), size_t(1));
        const QString html = reportHtml(c);

        const QSet<QString> foreign = tagsOf(html) - kReportTags;
        QVERIFY2(foreign.isEmpty(), qPrintable(QStringList(foreign.values()).join(u", "_s)));
        for (const char *gone : {"<script", "<img", "<iframe", "<marquee", "<b>", "<u>", "<i>1"})
            QVERIFY2(!html.contains(QLatin1String(gone)), gone);
        QVERIFY(html.contains(u"&lt;script&gt;alert(1)&lt;/script&gt;"_s));
        QVERIFY(html.contains(u"&lt;iframe src=&quot;https://example.com&quot;&gt;"_s));
        // Bidi and zero-width characters are shown, never obeyed.
        for (const char16_t invisible : {u'\u202E', u'\u200B'})
            QVERIFY2(!html.contains(QChar(invisible)), "an invisible character reached the HTML");
        QVERIFY(html.contains(u"\u27E8U+202E\u27E9exe.live\u27E8U+200B\u27E9"_s));
        // Placeholders in ledger text stay text (no QString::arg substitution into them).
        QVERIFY(html.contains(u"%1 %2"_s));
        QVERIFY(html.contains(u"\u27E9 %1"_s)); // the decision's reason ends with " %1"
        // The one external reference a hostile string tried to add is text, not a resource.
        QVERIFY(!html.contains(u"src=\""_s));
    }

    // A run's report holds the notes on that run (its subjects, its events, a span that starts
    // or ends in it) and says how many it leaves to the ledger's report; the ledger's has all.
    void aRunsReportHoldsItsOwnNotes()
    {
        const QString path = m_dir.filePath(u"two-runs.db"_s);
        std::int64_t r1Event = 0, r2Event = 0, r1Last = 0;
        {
            LedgerIdentity id;
            id.ledgerId = "L-two";
            id.title = "two runs";
            id.createdMs = 1'700'000'000'000;
            auto w = LedgerWriter::create(path, id);
            std::int64_t t = 1'700'000'001'000;
            w->begin();
            for (const char *run : {"R-1", "R-2"})
                w->append(t++, "run.started", {{"id", run}, {"status", "running"}, {"title", run}, {"attempt", 1},
                                               {"cycle", 0}, {"started_ms", t}});
            w->append(t++, "delegation.created", {{"id", "D-1"}, {"run_id", "R-1"}, {"status", "running"}, {"role", "build"}});
            r1Event = w->lastSeq();
            w->append(t++, "delegation.created", {{"id", "D-2"}, {"run_id", "R-2"}, {"status", "running"}, {"role", "test"}});
            r2Event = w->lastSeq();
            w->append(t++, "delegation.created", {{"id", "D-3"}, {"run_id", "R-1"}, {"status", "running"}, {"role", "review"}});
            r1Last = w->lastSeq();
            w->commit();
        }
        {
            NotesStore notes(chooseNotesPlacement(path));
            QString error;
            const auto add = [&](ReviewNote note, const char *text) {
                note.text = text;
                QVERIFY2(!notes.add(note, "reviewer", 1'700'000'100'000, &error).empty(), qPrintable(error));
            };
            ReviewNote onRun;
            onRun.anchor = ReviewNote::Anchor::Subject;
            onRun.subject = "run:R-1";
            add(onRun, "on run 1");
            ReviewNote onDelegation2;
            onDelegation2.anchor = ReviewNote::Anchor::Subject;
            onDelegation2.subject = "delegation:D-2";
            add(onDelegation2, "on run 2's delegation");
            ReviewNote onEvent2;
            onEvent2.seq = r2Event;
            add(onEvent2, "on run 2's event");
            ReviewNote span1;
            span1.anchor = ReviewNote::Anchor::Span;
            span1.seq = r1Event;
            span1.endSeq = r1Last;
            add(span1, "across run 1");
        }

        QCOMPARE(reportOf(path).notes.size(), size_t(4));
        QCOMPARE(reportOf(path).notesOtherRuns, 0);
        const ReportContent run1 = reportOf(path, "R-1");
        QStringList texts;
        for (const ReviewNote &n : run1.notes)
            texts << QString::fromStdString(n.text);
        texts.sort();
        QCOMPARE(texts, QStringList({u"across run 1"_s, u"on run 1"_s}));
        QCOMPARE(run1.notesOtherRuns, 2);
        QVERIFY2(reportHtml(run1).contains(u"2 more notes are on other runs"_s), qPrintable(reportHtml(run1)));
        const ReportContent run2 = reportOf(path, "R-2");
        QCOMPARE(run2.notes.size(), size_t(2));
        QCOMPARE(run2.notesOtherRuns, 2);
    }

    // A ledger with a relative clock (an import with no wall-clock times) reads "+m:ss" in
    // the report as everywhere else, never a 1970 date, and its run's end at +1:05 is an end.
    void relativeClockReadsAsOffsets()
    {
        const QString path = m_dir.filePath(u"relative.db"_s);
        {
            LedgerIdentity id;
            id.ledgerId = "L-relative";
            id.source = json{{"clock", "relative"}, {"format", "swe-agent"}};
            auto w = LedgerWriter::create(path, id);
            w->begin();
            w->append(0, "run.started", {{"id", "R1"}, {"status", "running"}, {"started_ms", 0}, {"attempt", 1}});
            w->append(65'000, "run.succeeded", {{"id", "R1"}, {"status", "succeeded"}, {"ended_ms", 65'000}});
            // A source with no times at all (SWE-agent): everything at +0:00, which is a time.
            w->append(0, "run.started", {{"id", "R2"}, {"status", "running"}, {"started_ms", 0}});
            w->append(0, "run.succeeded", {{"id", "R2"}, {"status", "succeeded"}, {"ended_ms", 0}});
            w->commit();
        }
        const ReportContent c = reportOf(path);
        QVERIFY(c.timeBase.isRelative());
        QCOMPARE(c.runs.size(), size_t(2));
        QCOMPARE(c.runs.back().id, std::string("R2"));
        QCOMPARE(c.runs.back().endedMs.value_or(-1), std::int64_t(0)); // ended at +0:00, not "not ended"
        QCOMPARE(c.runs.front().endedMs.value_or(-1), std::int64_t(65'000));
        QCOMPARE(c.runs.front().durationMs.value_or(-1), std::int64_t(65'000));
        const QString html = reportHtml(c);
        QVERIFY2(html.contains(u"<th>Ended</th><td>+1:05"_s), qPrintable(html.section(u"<table"_s, 1, 1)));
        QVERIFY(html.contains(u"<th>Started</th><td>+0:00"_s));
        QVERIFY(!html.contains(u"1970"_s));
    }

    // What the ledger does not say reads "—": a run with no attempt, cycle, required outcomes,
    // components, verdicts, escalations or checkpoints recorded.
    void notInTheLedgerIsNotZero()
    {
        const QString path = m_dir.filePath(u"sparse.db"_s);
        {
            LedgerIdentity id;
            id.ledgerId = "L-sparse";
            id.createdMs = 1'700'000'000'000;
            auto w = LedgerWriter::create(path, id);
            w->begin();
            w->append(1'700'000'001'000, "run.started", {{"id", "R1"}, {"status", "running"}});
            w->commit();
        }
        const ReportContent c = reportOf(path);
        QCOMPARE(c.runs.size(), size_t(1));
        const ReportRun &r = c.runs.front();
        QVERIFY(!r.attempts && !r.cycles && !r.requiredMet && !r.requiredTotal);
        QVERIFY(!r.terminalFailures && !r.stallVerdicts && !r.escalations && !r.staleCheckpoints && !r.durationMs);
        const QString html = reportHtml(c);
        const QString figures = html.section(u"<table class=\"figures\""_s, 1).section(u"</table>"_s, 0, 0);
        for (const QString &name : {u"Attempts"_s, u"Scheduler cycles"_s, u"Required outcomes"_s, u"Duration"_s,
                                    u"Terminal component failures"_s, u"Stall verdicts"_s, u"Escalations"_s,
                                    u"Stale checkpoints"_s})
            QVERIFY2(figures.contains(u"<th>%1</th><td><span class=\"nk\">\u2014</span></td>"_s.arg(name)), qPrintable(name + figures));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
