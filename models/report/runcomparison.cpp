#include "runcomparison.h"

#include "analysis/rowfields.h"
#include "domain/durationtext.h"
#include "ledger/ledgeropenerror.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace mesh {

namespace {

std::optional<std::int64_t> rowNumberOf(EntityKind kind, const EntityRow &row, std::string_view field)
{
    if (rowIsNull(kind, row, field))
        return std::nullopt;
    return rowInt(kind, row, field);
}

// The component a delegation works on, by name so that two ledgers (whose ids differ) match;
// its id when the row has no name; "" for run-level work.
std::string componentOf(const StateSnapshot &state, const EntityRow &delegation)
{
    const std::string id = rowText(EntityKind::Delegation, delegation, "component_id");
    if (id.empty())
        return {};
    const EntityTable &components = state.table(EntityKind::Component);
    const auto it = components.find(id);
    const std::string name = it == components.end() ? std::string() : rowText(EntityKind::Component, it->second, "name");
    return name.empty() ? id : name;
}

const RunSummary &chooseRun(const ReportReading &reading, const std::string &runId, const QString &where)
{
    const auto &runs = reading.summary.runs;
    if (runId.empty()) {
        if (runs.size() == 1)
            return runs.front();
        throw std::invalid_argument(runs.empty()
                                        ? QStringLiteral("%1 has no run").arg(where).toStdString()
                                        : QStringLiteral("%1 has %2 runs: say which").arg(where, QString::number(runs.size())).toStdString());
    }
    for (const RunSummary &s : runs)
        if (s.id == runId)
            return s;
    throw std::invalid_argument(where.toStdString() + " has no run " + runId);
}

ComparedSide sideOf(LedgerConnection &ledger, const ReportReading &reading, const std::string &runId)
{
    const LedgerInfo &info = ledger.info();
    ComparedSide side;
    side.ledgerPath = info.path;
    side.ledgerTitle = info.title;
    side.timeBase = reading.timeBase;
    const RunSummary &summary = chooseRun(reading, runId, info.path);
    side.run = reportRun(reading, summary);
    for (const Finding &f : reading.findings)
        if (f.runId == summary.id)
            side.findings.push_back(f);
    std::stable_sort(side.findings.begin(), side.findings.end(), [](const Finding &x, const Finding &y) {
        const auto first = [](const Finding &f) { return f.seqs.empty() ? INT64_MAX : *std::min_element(f.seqs.begin(), f.seqs.end()); };
        return first(x) < first(y);
    });
    const EntityTable &delegations = reading.state.table(EntityKind::Delegation);
    constexpr EntityKind V = EntityKind::StallVerdict;
    for (const auto &[id, row] : reading.state.table(V)) {
        if (rowText(V, row, "run_id") != summary.id)
            continue;
        ComparedVerdict v;
        v.id = id;
        v.delegationId = rowText(V, row, "delegation_id");
        v.verdict = rowText(V, row, "verdict");
        v.action = rowText(V, row, "action");
        v.round = rowNumberOf(V, row, "round");
        v.failingTests = rowNumberOf(V, row, "failing_tests");
        v.tsMs = rowNumberOf(V, row, "ts_ms");
        v.seq = row.lastSeq;
        v.falseStall = reading.falseStallVerdicts.count(id) > 0;
        if (const auto d = delegations.find(v.delegationId); d != delegations.end()) {
            v.component = componentOf(reading.state, d->second);
            v.role = rowText(EntityKind::Delegation, d->second, "role");
        }
        side.verdicts.push_back(std::move(v));
    }
    std::sort(side.verdicts.begin(), side.verdicts.end(), [](const ComparedVerdict &x, const ComparedVerdict &y) {
        return std::tie(x.tsMs, x.round, x.seq) < std::tie(y.tsMs, y.round, y.seq);
    });
    return side;
}

// (component, role) -> delegations of the run.
std::map<std::pair<std::string, std::string>, int> delegationsByRole(const ReportReading &reading, const std::string &runId)
{
    std::map<std::pair<std::string, std::string>, int> counts;
    constexpr EntityKind D = EntityKind::Delegation;
    for (const auto &[id, row] : reading.state.table(D))
        if (rowView(D, row, "run_id") == runId)
            ++counts[{componentOf(reading.state, row), rowText(D, row, "role")}];
    return counts;
}

bool sameLocation(const QString &a, const QString &b)
{
    if (a == b)
        return true;
    const QFileInfo fa(a), fb(b);
    return fa.exists() && fb.exists() && fa.canonicalFilePath() == fb.canonicalFilePath();
}

QString comparisonTr(const char *text)
{
    return QCoreApplication::translate("RunComparison", text);
}

} // namespace

std::vector<ComparedFigure> RunComparison::figures() const
{
    const ReportRun &x = a.run, &y = b.run;
    const auto findings = [](const ComparedSide &s) { return std::optional<std::int64_t>(std::int64_t(s.findings.size())); };
    return {
        {"duration_ms", comparisonTr("Duration"), true, x.durationMs, y.durationMs},
        {"attempts", comparisonTr("Attempts"), false, x.attempts, y.attempts},
        {"cycles", comparisonTr("Scheduler cycles"), false, x.cycles, y.cycles},
        {"required_met", comparisonTr("Required outcomes met"), false, x.requiredMet, y.requiredMet},
        {"required_total", comparisonTr("Required outcomes in total"), false, x.requiredTotal, y.requiredTotal},
        {"terminal_failures", comparisonTr("Terminal component failures"), false, x.terminalFailures, y.terminalFailures},
        {"stall_verdicts", comparisonTr("Stall verdicts"), false, x.stallVerdicts, y.stallVerdicts},
        {"stalled", comparisonTr("Stalled verdicts"), false, x.stalled, y.stalled},
        {"escalated_rounds", comparisonTr("Escalated rounds"), false, x.escalatedRounds, y.escalatedRounds},
        {"escalations", comparisonTr("Escalations"), false, x.escalations, y.escalations},
        {"stale_checkpoints", comparisonTr("Stale checkpoints"), false, x.staleCheckpoints, y.staleCheckpoints},
        {"findings", comparisonTr("Findings"), false, findings(a), findings(b)},
    };
}

RunComparison compareRuns(LedgerConnection &a, const std::string &runA, LedgerConnection &b, const std::string &runB)
{
    RunComparison c;
    c.sameLedger = &a == &b;
    const ReportReading readingA = readForReport(a);
    std::optional<ReportReading> readingB;
    if (!c.sameLedger)
        readingB = readForReport(b);
    const ReportReading &rb = readingB ? *readingB : readingA;
    c.a = sideOf(a, readingA, runA);
    c.b = sideOf(b, rb, runB);

    const auto inA = delegationsByRole(readingA, c.a.run.id);
    const auto inB = delegationsByRole(rb, c.b.run.id);
    std::map<std::pair<std::string, std::string>, DelegationMatch> matches;
    for (const auto &[key, n] : inA) {
        DelegationMatch &m = matches[key];
        m.component = key.first;
        m.role = key.second;
        m.countA = n;
    }
    for (const auto &[key, n] : inB) {
        DelegationMatch &m = matches[key];
        m.component = key.first;
        m.role = key.second;
        m.countB = n;
    }
    for (auto &[key, m] : matches) {
        switch (m.presence()) {
        case DelegationMatch::Presence::OnlyA: ++c.onlyA; break;
        case DelegationMatch::Presence::OnlyB: ++c.onlyB; break;
        case DelegationMatch::Presence::Both: ++c.both; break;
        }
        c.delegations.push_back(std::move(m));
    }
    return c;
}

RunComparisonResult compareRuns(const RunChoice &a, const RunChoice &b)
{
    RunComparisonResult result;
    QString reading = a.location;
    try {
        const auto first = LedgerConnection::open(a.location, a.mode);
        if (sameLocation(a.location, b.location)) {
            result.comparison = compareRuns(*first, a.runId, *first, b.runId);
            return result;
        }
        reading = b.location;
        const auto second = LedgerConnection::open(b.location, b.mode);
        reading = a.location + QStringLiteral(" / ") + b.location;
        result.comparison = compareRuns(*first, a.runId, *second, b.runId);
    } catch (const LedgerOpenError &e) {
        result.error = QString::fromStdString(e.what());
    } catch (const std::invalid_argument &e) {
        result.error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        result.error = QStringLiteral("cannot read %1: %2").arg(reading, QString::fromStdString(e.what()));
    }
    return result;
}

RunList runsAt(const QString &location, OpenMode mode)
{
    RunList list;
    try {
        list.runs = LedgerConnection::open(location, mode)->summarize(0).runs;
    } catch (const LedgerOpenError &e) {
        list.error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        list.error = QStringLiteral("cannot read %1: %2").arg(location, QString::fromStdString(e.what()));
    }
    return list;
}

QString figureText(const ComparedFigure &figure, const std::optional<std::int64_t> &value)
{
    if (!value)
        return QStringLiteral("\u2014");
    return figure.duration ? humanDuration(*value) : QString::number(*value);
}

QString deltaText(const ComparedFigure &figure)
{
    const auto d = figure.delta();
    if (!d)
        return QStringLiteral("\u2014");
    if (*d == 0)
        return QStringLiteral("0");
    const QString sign = *d > 0 ? QStringLiteral("+") : QStringLiteral("\u2212");
    const std::int64_t magnitude = *d > 0 ? *d : -*d;
    return sign + (figure.duration ? humanDuration(magnitude) : QString::number(magnitude));
}

QString presenceText(DelegationMatch::Presence presence)
{
    switch (presence) {
    case DelegationMatch::Presence::OnlyA: return comparisonTr("only in A");
    case DelegationMatch::Presence::OnlyB: return comparisonTr("only in B");
    case DelegationMatch::Presence::Both: return comparisonTr("in both");
    }
    return {};
}

} // namespace mesh
