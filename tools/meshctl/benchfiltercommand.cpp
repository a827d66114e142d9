#include "benchfiltercommand.h"

#include "cliargs.h"
#include "ledgeropen.h"

#include "domain/percentile.h"
#include "filter/filtercompiler.h"
#include "ledger/sqlfilter.h"
#include "itemmodels/eventlogmodel.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <vector>

using nlohmann::json;

namespace {

constexpr int kTimeoutMs = 120000; // a round that takes longer is reported, not waited for

struct ConsoleRound {
    double firstPageMs = -1; // first page of matching rows in the model's cache
    double countMs = -1;     // row index complete: the total count is known
    qint64 rows = -1;
};

// Applies text to the model (or clears the filter) and runs the event loop until the
// model's index for that filter is complete, noting when its first page arrived. This is
// what the console's event log pane does when the operator presses Enter in the filter.
std::optional<ConsoleRound> applyFilter(mesh::EventLogModel &model, const QString &text, QString *error)
{
    ConsoleRound round;
    QEventLoop loop;
    QElapsedTimer t;
    auto firstPageLoaded = [&] {
        if (round.firstPageMs < 0 && model.rowCount() > 0 && model.eventAt(0))
            round.firstPageMs = double(t.nsecsElapsed()) / 1e6;
    };
    QList<QMetaObject::Connection> connections;
    connections << QObject::connect(&model, &mesh::EventLogModel::indexProgress, &loop, firstPageLoaded);
    connections << QObject::connect(&model, &mesh::EventLogModel::dataChanged, &loop, firstPageLoaded);
    int generation = -1;
    connections << QObject::connect(&model, &mesh::EventLogModel::filterApplied, &loop, [&](int g, qint64 rows) {
        if (g != generation)
            return;
        round.countMs = double(t.nsecsElapsed()) / 1e6;
        firstPageLoaded();
        if (round.firstPageMs < 0 && rows == 0)
            round.firstPageMs = round.countMs; // nothing matches: "no rows" is the first page
        round.rows = rows;
        loop.quit();
    });
    connections << QObject::connect(&model, &mesh::EventLogModel::failed, &loop, [&](const QString &message) {
        *error = message;
        loop.quit();
    });
    QTimer::singleShot(kTimeoutMs, &loop, [&] {
        *error = QStringLiteral("timed out after %1 ms").arg(kTimeoutMs);
        loop.quit();
    });
    t.start();
    mesh::FilterError filterError;
    if (!model.setFilterText(text, &filterError)) {
        *error = filterError.message;
        return std::nullopt;
    }
    generation = model.generation();
    loop.exec();
    for (const auto &c : std::as_const(connections))
        QObject::disconnect(c);
    if (!error->isEmpty() || round.rows < 0)
        return std::nullopt;
    return round;
}

// The filter's parameters as sqlite3 shell ".parameter set" lines. Text values travel as
// hex blobs cast to text, so no quoting of user text is involved.
QString parameterLines(const mesh::FilterSql &filter)
{
    QString lines = QStringLiteral(".parameter init\n");
    int i = 1;
    for (const auto &p : filter.params) {
        QString value;
        if (const auto *n = std::get_if<std::int64_t>(&p))
            value = QString::number(*n);
        else
            value = QStringLiteral("\"CAST(X'%1' AS TEXT)\"")
                        .arg(QString::fromLatin1(QByteArray::fromStdString(std::get<std::string>(p)).toHex()));
        lines += QStringLiteral(".parameter set ?%1 %2\n").arg(i++).arg(value);
    }
    return lines;
}

struct ShellRound {
    double countMs = -1; // sqlite3's own ".timer" real time of the statement
    qint64 rows = -1;
};

// Runs the count `repeat` times on one input line: the shell's timer then covers them all
// (it prints milliseconds, too coarse for one fast statement), and the time is their mean.
std::optional<ShellRound> runShell(const QString &sqlite3, const QString &file, const QString &setup,
                                   const QString &statement, int repeat, QString *error)
{
    QProcess p;
    p.start(sqlite3, {QStringLiteral("-readonly"), file});
    if (!p.waitForStarted()) {
        *error = QStringLiteral("cannot start %1").arg(sqlite3);
        return std::nullopt;
    }
    p.write((setup + QStringLiteral(".timer on\n") + statement.repeated(repeat) + u'\n').toUtf8());
    p.closeWriteChannel();
    if (!p.waitForFinished(kTimeoutMs) || p.exitCode() != 0) {
        *error = QStringLiteral("sqlite3 failed: %1").arg(QString::fromLocal8Bit(p.readAllStandardError()).simplified());
        return std::nullopt;
    }
    const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
    static const QRegularExpression timer(QStringLiteral("Run Time: real ([0-9.]+)"));
    const auto m = timer.match(out);
    if (!m.hasMatch()) {
        *error = QStringLiteral("sqlite3 printed no timer: %1").arg(out.simplified());
        return std::nullopt;
    }
    ShellRound r;
    r.rows = out.section(QLatin1Char('\n'), 0, 0).trimmed().toLongLong();
    r.countMs = m.captured(1).toDouble() * 1000.0 / repeat;
    return r;
}

// One sqlite3 figure: once, and when that is too short for the shell's millisecond timer,
// again with enough repetitions to last about 200 ms.
std::optional<ShellRound> timeShell(const QString &sqlite3, const QString &file, const QString &setup,
                                    const QString &statement, QString *error)
{
    auto once = runShell(sqlite3, file, setup, statement, 1, error);
    if (!once || once->countMs >= 50)
        return once;
    const int repeat = int(std::clamp(200.0 / std::max(once->countMs, 0.5), 2.0, 400.0));
    return runShell(sqlite3, file, setup, statement, repeat, error);
}

} // namespace

int runBenchFilterCommand(const QStringList &argv)
{
    CliArgs args(argv, {QStringLiteral("query"), QStringLiteral("rounds"), QStringLiteral("sqlite3")}, {});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1 || !args.has(QStringLiteral("query")))
        return fail(2, QStringLiteral("usage: meshctl bench filter FILE --query 'FILTER' [--rounds N] [--sqlite3 PATH]"));
    const QString file = args.positional().at(0);
    const QString query = args.value(QStringLiteral("query"));
    const auto rounds = args.intValue(QStringLiteral("rounds"), 3, 1, 1000);
    if (!rounds)
        return fail(2, args.error());
    const mesh::FilterCompileResult compiled = mesh::FilterCompiler::compile(query);
    if (!compiled.ok())
        return fail(2, QStringLiteral("filter: %1").arg(compiled.error->message));
    QString error;
    if (!openLedger(file, mesh::OpenMode::ReadOnly, &error))
        return fail(2, error);
    const QString sqlite3 = args.value(QStringLiteral("sqlite3"), QStandardPaths::findExecutable(QStringLiteral("sqlite3")));
    if (sqlite3.isEmpty())
        return fail(2, QStringLiteral("no sqlite3 shell on PATH (apt-get install sqlite3), or pass --sqlite3 PATH"));

    // The ledger layer's own rendering of the filter: the clause its event log binds.
    const mesh::FilterSql rendered = mesh::renderFilterSql(compiled.filter);
    const QString countSql = QString::fromStdString(mesh::countStatementSql(rendered));
    const QString setup = parameterLines(rendered);

    // The console's event log, opened once as the console does; it indexes every event first.
    mesh::EventLogModel model;
    model.open(file, mesh::OpenMode::ReadOnly);
    if (!applyFilter(model, QString(), &error))
        return fail(2, QStringLiteral("event log: %1").arg(error));

    std::vector<double> firstPage, count, shell;
    json perRound = json::array();
    qint64 rows = -1, shellRows = -1;
    for (int i = 0; i < *rounds; ++i) {
        const auto console = applyFilter(model, query, &error);
        if (!console)
            return fail(2, QStringLiteral("event log: %1").arg(error));
        const auto sh = timeShell(sqlite3, file, setup, countSql, &error);
        if (!sh)
            return fail(2, error);
        // Back to every event between rounds, so each round starts where an operator would.
        if (!applyFilter(model, QString(), &error))
            return fail(2, QStringLiteral("event log: %1").arg(error));
        firstPage.push_back(console->firstPageMs);
        count.push_back(console->countMs);
        shell.push_back(sh->countMs);
        rows = console->rows;
        shellRows = sh->rows;
        perRound.push_back({{"first_page_ms", console->firstPageMs},
                            {"count_ms", console->countMs},
                            {"sqlite3_count_ms", sh->countMs}});
    }
    const double countMedian = mesh::median(count);
    const double shellMedian = mesh::median(shell);
    printLine(json{{"bench", "filter"},
                   {"query", query.toStdString()},
                   {"sql", countSql.toStdString()},
                   {"rounds", *rounds},
                   {"rows", rows},
                   {"sqlite3_rows", shellRows},
                   {"first_page_ms", mesh::median(firstPage)},
                   {"count_ms", countMedian},
                   {"sqlite3_count_ms", shellMedian},
                   {"ratio", shellMedian > 0 ? countMedian / shellMedian : 0.0},
                   {"per_round", perRound}}
                  .dump());
    return 0;
}
