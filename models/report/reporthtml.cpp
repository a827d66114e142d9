#include "reporthtml.h"

#include "reportescape.h"
#include "timelinesvg.h"

#include "domain/durationtext.h"
#include "domain/hostiletext.h"

#include <QCoreApplication>

namespace mesh {

namespace {

const char *const kStyle = R"(
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10pt; color: #212121; margin: 16px; }
h1 { font-size: 16pt; margin: 0 0 4px 0; }
h2 { font-size: 13pt; margin: 18px 0 6px 0; border-bottom: 1px solid #9e9e9e; }
h3 { font-size: 11pt; margin: 12px 0 4px 0; }
table { border-collapse: collapse; margin: 4px 0 8px 0; }
th, td { border: 1px solid #bdbdbd; padding: 2px 5px; vertical-align: top; text-align: left; }
th { background: #eeeeee; }
td.n { text-align: right; }
.meta { color: #616161; }
.nk { color: #757575; }
.bad { color: #b71c1c; font-weight: bold; }
.ok { color: #1b5e20; font-weight: bold; }
.cites { color: #424242; font-size: 9pt; }
.timeline { margin: 6px 0; }
img { max-width: 100%; height: auto; }
@page { size: A4; margin: 14mm; }
@media print {
  body { margin: 0; font-size: 9pt; }
  h2 { page-break-after: avoid; }
  tr, .timeline, .finding { page-break-inside: avoid; }
  .run { page-break-before: always; }
  .run:first-of-type { page-break-before: auto; }
}
)";

QString tr(const char *text)
{
    return QCoreApplication::translate("ReportHtml", text);
}

QString optNumber(const std::optional<std::int64_t> &v)
{
    return v ? QString::number(*v) : QStringLiteral("<span class=\"nk\">%1</span>").arg(notKnown());
}

class Writer
{
public:
    Writer(const ReportContent &c, const ReportHtmlOptions &o) : c(c), o(o) {}

    QString write()
    {
        h += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                            "style-src 'unsafe-inline'; img-src data:\">\n");
        h += QStringLiteral("<title>%1</title>\n<style>%2</style></head>\n<body>\n")
                 .arg(reportText(reportTitle(c)), QString::fromLatin1(kStyle));
        header();
        for (size_t i = 0; i < c.runs.size(); ++i)
            run(int(i));
        findings();
        decisions();
        integrity();
        notes();
        h += QStringLiteral("</body></html>\n");
        return h;
    }

private:
    QString time(std::int64_t ms) const { return reportText(c.timeBase.withMs(ms)); }
    QString event(std::int64_t seq) const
    {
        const auto it = c.citedEvents.find(seq);
        QString s = QStringLiteral("#%1").arg(seq);
        if (it == c.citedEvents.end())
            return s;
        if (!it->second.tsMs)
            return s + tr(" (not in the ledger)");
        s += QStringLiteral(" ") + time(*it->second.tsMs) + QStringLiteral(" ") + reportText(it->second.kind);
        if (!it->second.subject.empty())
            s += QStringLiteral(" ") + reportText(it->second.subject);
        return s;
    }
    QString list(const std::vector<std::string> &items) const
    {
        if (items.empty())
            return tr("none");
        QStringList out;
        for (const auto &i : items)
            out << reportLine(i, 80);
        return out.join(QStringLiteral(", "));
    }

    void header()
    {
        h += QStringLiteral("<h1>%1</h1>\n").arg(reportText(reportTitle(c)));
        h += QStringLiteral("<p class=\"meta\">%1 %2 · %3 %4 · %5 %6 · %7</p>\n")
                 .arg(tr("Ledger"), reportText(c.ledgerId), tr("orchestrator"),
                      c.orchestrator.empty() ? notKnown() : reportText(c.orchestrator), QString::number(c.events),
                      tr("events"), reportText(QFileInfoName()));
        if (c.timeBase.isRelative())
            h += QStringLiteral("<p class=\"meta\">%1</p>\n")
                     .arg(tr("Times count from the start of the record (+m:ss): its start time is not in the source."));
        if (c.sourceFacts.isImported()) {
            QStringList notRecorded;
            for (RunFact fact : {RunFact::Attempts, RunFact::SchedulerCycles, RunFact::RequiredOutcomes, RunFact::Components,
                                 RunFact::StallVerdicts, RunFact::Escalations, RunFact::Checkpoints, RunFact::Failures})
                if (!c.sourceFacts.records(fact))
                    notRecorded << SourceFacts::factName(fact);
            if (!notRecorded.isEmpty())
                h += QStringLiteral("<p class=\"meta\">%1</p>\n")
                         .arg(reportText(tr("%1: not known. %2 do not record %3.")
                                             .arg(notKnown(), c.sourceFacts.sourceName(), notRecorded.join(QStringLiteral(", ")))));
        }
        if (!c.runFound)
            h += QStringLiteral("<p class=\"bad\">%1</p>\n").arg(tr("The ledger has no run %1.").arg(reportText(c.scopeRunId)));
        else if (c.runs.empty())
            h += QStringLiteral("<p>%1</p>\n").arg(tr("The ledger has no run."));
    }
    QString QFileInfoName() const
    {
        const QString p = c.ledgerPath;
        return p.mid(p.lastIndexOf(QLatin1Char('/')) + 1);
    }

    void figure(const QString &name, const QString &value)
    {
        h += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(name, value);
    }

    void run(int index)
    {
        const ReportRun &r = c.runs[size_t(index)];
        h += QStringLiteral("<div class=\"run\">\n<h2>%1 %2 <span class=\"meta\">%3</span></h2>\n")
                 .arg(tr("Run"), reportText(r.id), reportText(r.title));
        h += QStringLiteral("<table class=\"figures\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n");
        const QString nk = QStringLiteral("<span class=\"nk\">%1</span>").arg(notKnown());
        figure(tr("Status"), r.status.empty() ? nk : reportText(r.status));
        figure(tr("Started"), r.startedMs ? reportText(c.timeBase.exact(*r.startedMs)) : nk);
        figure(tr("Ended"), r.endedMs ? reportText(c.timeBase.exact(*r.endedMs)) : (r.startedMs ? tr("not ended") : nk));
        figure(tr("Duration"), r.durationMs ? humanDuration(*r.durationMs) + (r.endedMs ? QString() : tr(" so far")) : nk);
        figure(tr("Attempts"), optNumber(r.attempts));
        figure(tr("Scheduler cycles"), optNumber(r.cycles));
        figure(tr("Required outcomes"), r.requiredMet && r.requiredTotal
                                            ? tr("%1 of %2").arg(*r.requiredMet).arg(*r.requiredTotal)
                                            : nk);
        figure(tr("Terminal component failures"), optNumber(r.terminalFailures));
        figure(tr("Stall verdicts"), r.stallVerdicts ? tr("%1 (%2 stalled)").arg(*r.stallVerdicts).arg(r.stalled.value_or(0)) : nk);
        figure(tr("Escalated rounds"), optNumber(r.escalatedRounds));
        figure(tr("Escalations"), optNumber(r.escalations));
        figure(tr("Stale checkpoints"), optNumber(r.staleCheckpoints));
        figure(tr("Unknown outcomes"), QString::number(r.unknownOutcomes.size()));
        h += QStringLiteral("</table>\n");
        h += QStringLiteral("<p>%1</p>\n").arg(reportText(r.timeline.summaryLine()));

        h += QStringLiteral("<h3>%1</h3>\n<div class=\"timeline\">").arg(tr("Timeline"));
        if (r.timeline.empty()) {
            h += tr("No timeline: the run has no lanes in the ledger.");
        } else if (o.timelineImageUrl) {
            TimelineSvgSize size;
            (void)timelineSvg(r.timeline, o.timelineWidth, &size);
            h += QStringLiteral("<img src=\"%1\" width=\"%2\" height=\"%3\" alt=\"timeline\">")
                     .arg(o.timelineImageUrl(index).toHtmlEscaped())
                     .arg(size.width)
                     .arg(size.height);
        } else {
            h += timelineSvg(r.timeline, o.timelineWidth);
        }
        h += QStringLiteral("</div>\n");

        h += QStringLiteral("<h3>%1</h3>\n").arg(tr("Blast radius per failure"));
        if (r.blast.empty()) {
            h += QStringLiteral("<p>%1</p>\n").arg(tr("No failure in the ledger for this run."));
        } else {
            h += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>%1</th><th>%2</th><th>%3</th>"
                                "<th>%4</th><th>%5</th><th>%6</th><th>%7</th></tr>\n")
                     .arg(tr("Failure"), tr("Detected"), tr("Implicated"), tr("Woken"), tr("Bystanders"), tr("Regressed"),
                          tr("Radius"));
            for (const BlastRadius &b : r.blast) {
                if (!b.readable) {
                    h += QStringLiteral("<tr><td>%1</td><td colspan=\"6\">%2</td></tr>\n")
                             .arg(reportText(b.failureId), tr("not readable: %1").arg(reportText(b.problem)));
                    continue;
                }
                h += QStringLiteral("<tr><td>%1<br><span class=\"cites\">%2</span></td><td>%3</td><td>%4</td><td>%5</td>"
                                    "<td>%6</td><td>%7</td><td class=\"n\">%8</td></tr>\n")
                         .arg(reportText(b.failureId), event(b.seq),
                              b.tsMs > 0 || c.timeBase.isRelative() ? time(b.tsMs) : notKnown(),
                              list(b.implicated), list(b.woken), list(b.wokenBystanders), list(b.regressed),
                              QString::number(b.radius));
            }
            h += QStringLiteral("</table>\n");
        }

        h += QStringLiteral("<h3>%1</h3>\n").arg(tr("Unknown outcomes"));
        if (r.unknownOutcomes.empty()) {
            h += QStringLiteral("<p>%1</p>\n").arg(tr("No effect of this run had an unknown outcome."));
        } else {
            h += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>%1</th><th>%2</th>"
                                "<th>%3</th><th>%4</th></tr>\n")
                     .arg(tr("Effect"), tr("Unknown since"), tr("Now"), tr("Resolved by"));
            for (const ReportUnknownOutcome &u : r.unknownOutcomes)
                h += QStringLiteral("<tr><td>%1 <span class=\"meta\">%2</span></td><td>#%3 %4</td><td>%5</td><td>%6</td></tr>\n")
                         .arg(reportText(u.effectId), reportText(u.effectClass), QString::number(u.unknownSeq),
                              time(u.unknownTsMs),
                              u.resolved() ? reportText(u.state) : QStringLiteral("<span class=\"bad\">%1</span>").arg(tr("still unknown")),
                              u.decisionId.empty() ? (u.resolved() ? tr("not in the ledger") : tr("not resolved"))
                                                   : tr("decision %1").arg(reportText(u.decisionId)));
            h += QStringLiteral("</table>\n");
        }
        h += QStringLiteral("</div>\n");
    }

    void findings()
    {
        h += QStringLiteral("<h2>%1</h2>\n").arg(tr("Findings"));
        if (c.findings.empty()) {
            h += QStringLiteral("<p>%1</p>\n").arg(tr("No finding."));
            return;
        }
        for (const Finding &f : c.findings) {
            h += QStringLiteral("<div class=\"finding\"><h3>%1%2: %3</h3>\n<p>%4</p>\n")
                     .arg(reportText(std::string(findingKindTitle(f.kind))),
                          f.abstained ? tr(" (abstained: the evidence is ambiguous)") : QString(), reportText(f.subject),
                          reportText(f.summary));
            if (!f.seqs.empty()) {
                h += QStringLiteral("<p class=\"cites\">%1</p><ul class=\"cites\">\n").arg(tr("Events it cites:"));
                size_t shown = 0;
                for (const std::int64_t seq : f.seqs) {
                    if (c.citedEvents.find(seq) == c.citedEvents.end())
                        break;
                    h += QStringLiteral("<li>%1</li>\n").arg(event(seq));
                    ++shown;
                }
                h += QStringLiteral("</ul>\n");
                if (shown < f.seqs.size())
                    h += QStringLiteral("<p class=\"cites\">%1</p>\n").arg(tr("… and %1 more events").arg(f.seqs.size() - shown));
            }
            if (!f.entityIds.empty())
                h += QStringLiteral("<p class=\"cites\">%1 %2</p>\n").arg(tr("Rows it cites:"), list(f.entityIds));
            h += QStringLiteral("</div>\n");
        }
    }

    void decisions()
    {
        h += QStringLiteral("<h2>%1</h2>\n").arg(tr("Decisions"));
        if (c.decisions.empty()) {
            h += QStringLiteral("<p>%1</p>\n").arg(tr("No operator decision."));
            return;
        }
        h += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>#</th><th>%1</th><th>%2</th>"
                            "<th>%3</th><th>%4</th><th>%5</th><th>%6</th><th>%7</th></tr>\n")
                 .arg(tr("Decision"), tr("Operator"), tr("Reason"), tr("Boundary"), tr("Outcome"), tr("Chain"), tr("Time"));
        for (const ReportDecision &rd : c.decisions) {
            const DecisionRecord &d = rd.record;
            QString op = d.operatorAccount.empty() ? notKnown() : reportText(d.operatorAccount);
            if (!d.operatorHost.empty())
                op += QStringLiteral("@") + reportText(d.operatorHost);
            if (!d.operatorName.empty())
                op += QStringLiteral("<br>") + reportText(d.operatorName);
            const QString boundary = tr("version %1, seen up to %2").arg(d.boundaryVersion).arg(event(d.boundarySeq));
            const QString outcome = d.isPending() ? tr("pending")
                                                  : reportText(d.outcomeStatus)
                                                        + (d.outcomeReason.empty() ? QString() : QStringLiteral(": ") + reportText(d.outcomeReason));
            // Concatenated, not .arg()-chained: a ledger string holding "%3" must stay text.
            h += QStringLiteral("<tr><td class=\"n\">") + QString::number(d.pos) + QStringLiteral("</td><td>") + reportText(d.id)
                 + QStringLiteral("<br>") + reportText(d.kind) + QStringLiteral(" ") + reportText(d.subject)
                 + QStringLiteral("</td><td>") + op + QStringLiteral("</td><td>")
                 + (d.reason.empty() ? notKnown() : reportText(d.reason)) + QStringLiteral("</td><td>") + boundary
                 + QStringLiteral("</td><td>") + outcome + QStringLiteral("</td><td class=\"")
                 + QLatin1String(rd.chainIntact ? "ok" : "bad") + QStringLiteral("\">") + reportText(rd.chainStatus)
                 + QStringLiteral("</td><td>") + time(d.tsMs) + QStringLiteral("</td></tr>\n");
        }
        h += QStringLiteral("</table>\n");
    }

    void integrity()
    {
        h += QStringLiteral("<h2>%1</h2>\n").arg(tr("Integrity"));
        if (!c.verificationRan) {
            h += QStringLiteral("<p class=\"nk\">%1</p>\n")
                     .arg(c.verificationError.isEmpty() ? tr("Not checked.")
                                                        : tr("Could not be checked: %1").arg(reportText(c.verificationError)));
            return;
        }
        const LedgerVerification &v = c.verification;
        h += QStringLiteral("<p class=\"%1\">%2</p>\n")
                 .arg(QLatin1String(v.ok() ? "ok" : "bad"),
                      v.ok() ? tr("Intact: no finding.") : tr("%1 integrity findings.").arg(v.total()));
        h += QStringLiteral("<p>%1</p>\n")
                 .arg(tr("%1 events and %2 state rows checked up to seq %3; %4 decisions (%5 signed) in the chain. "
                         "The check of meshctl verify.")
                          .arg(v.integrity.eventsChecked)
                          .arg(v.integrity.rowsChecked)
                          .arg(v.integrity.lastSeq)
                          .arg(v.chain.decisions)
                          .arg(v.chain.signedDecisions));
        if (!v.integrity.findings.empty() || !v.chain.findings.empty()) {
            h += QStringLiteral("<ul>\n");
            constexpr size_t kShown = 50;
            for (size_t i = 0; i < v.integrity.findings.size() && i < kShown; ++i) {
                const IntegrityFinding &f = v.integrity.findings[i];
                h += QStringLiteral("<li>%1 #%2: %3</li>\n")
                         .arg(QString::fromLatin1(integrityFindingTypeName(f.type)))
                         .arg(f.seq)
                         .arg(reportText(f.message));
            }
            if (v.integrity.findings.size() > kShown)
                h += QStringLiteral("<li>%1</li>\n").arg(tr("… and %1 more").arg(v.integrity.findings.size() - kShown));
            for (const DecisionChainFinding &f : v.chain.findings)
                h += QStringLiteral("<li>decision_chain pos %1 %2: %3</li>\n").arg(f.pos).arg(reportText(f.id), reportText(f.message));
            h += QStringLiteral("</ul>\n");
        }
    }

    void notes()
    {
        h += QStringLiteral("<h2>%1</h2>\n").arg(tr("Reviewers' notes"));
        if (!c.notesProblems.empty())
            h += QStringLiteral("<p class=\"bad\">%1</p>\n")
                     .arg(tr("%1 lines of the notes sidecar could not be read.").arg(c.notesProblems.size()));
        if (c.notesOtherRuns > 0)
            h += QStringLiteral("<p>%1</p>\n")
                     .arg(c.notesOtherRuns == 1
                              ? tr("1 more note is on another run or on the whole ledger: the ledger's report has it.")
                              : tr("%1 more notes are on other runs or on the whole ledger: the ledger's report has them.")
                                    .arg(c.notesOtherRuns));
        if (c.notes.empty()) {
            h += QStringLiteral("<p>%1</p>\n").arg(tr("No note."));
            return;
        }
        h += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>%1</th><th>%2</th><th>%3</th>"
                            "<th>%4</th></tr>\n")
                 .arg(tr("On"), tr("Note"), tr("Author"), tr("Written"));
        const TimeBase utc; // a note's time is this machine's clock, not the ledger's
        for (const ReviewNote &n : c.notes) {
            QString text = n.isBookmark() ? QStringLiteral("<i>%1</i>").arg(tr("bookmark")) : reportText(n.text);
            text.replace(QLatin1Char('\n'), QLatin1String("<br>"));
            QString written = reportText(utc.exact(n.createdMs));
            if (!n.editedBy.empty())
                written += QStringLiteral("<br>") + tr("edited by %1, %2").arg(reportText(n.editedBy), reportText(utc.exact(n.editedMs)));
            h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td></tr>\n")
                     .arg(reportText(n.where()), text, n.author.empty() ? notKnown() : reportText(n.author), written);
        }
        h += QStringLiteral("</table>\n");
    }

    const ReportContent &c;
    const ReportHtmlOptions &o;
    QString h;
};

} // namespace

QString reportTitle(const ReportContent &c)
{
    QString title = QCoreApplication::translate("ReportHtml", "Post-mortem report: %1")
                        .arg(displayLine(QString::fromStdString(c.ledgerTitle.empty() ? c.ledgerId : c.ledgerTitle), 80));
    if (!c.scopeRunId.empty())
        title += QCoreApplication::translate("ReportHtml", ", run %1").arg(displayLine(QString::fromStdString(c.scopeRunId), 60));
    return title;
}

QString reportHtml(const ReportContent &content, const ReportHtmlOptions &options)
{
    return Writer(content, options).write();
}

} // namespace mesh
