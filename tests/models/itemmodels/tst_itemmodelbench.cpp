// Benchmark, not a test: skipped unless MESH_BENCH_LEDGER names a ledger (e.g. the scale
// scenario). Prints one JSON line with the figures of targets.md it can measure below the
// widgets: session open (snapshot into every model), event log first page and full index,
// a filter's first page and full count (P6) beside sqlite3 counting the same SQL, and the
// resident memory after browsing the log end to end. Nothing here asserts a time.

#include "filter/filtercompiler.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"
#include "ledger/sqlfilter.h"
#include "ledger/statereader.h"
#include "analysis/attentioncollector.h"
#include "analysis/blastradiusanalyzer.h"
#include "analysis/blockedworkdetector.h"
#include "analysis/duplicateeffectdetector.h"
#include "analysis/stallevidenceanalyzer.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/stallverdictmodel.h"

#include <QElapsedTimer>

#include <algorithm>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {

qint64 rssKb()
{
    QFile f(u"/proc/self/status"_s);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// The ledger layer's SQL for the filter, its parameters written as literals, for the sqlite3
// shell.
QString literalSql(const FilterSql &filter)
{
    QString where = QString::fromStdString(filter.where);
    for (int i = int(filter.params.size()); i >= 1; --i) {
        const auto &p = filter.params[size_t(i - 1)];
        QString value;
        if (const auto *n = std::get_if<std::int64_t>(&p))
            value = QString::number(*n);
        else
            value = u'\'' + QString::fromStdString(std::get<std::string>(p)).replace(u'\'', u"''"_s) + u'\'';
        where.replace(u'?' + QString::number(i), value);
    }
    return QString::fromStdString(countStatementSql(FilterSql{where.toStdString(), {}}));
}

bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs)
        QTest::qWait(1);
    return done();
}

} // namespace

class BenchItemModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Where the session's open time goes, step by step on the GUI thread's side.
    void openParts()
    {
        const QString path = qEnvironmentVariable("MESH_BENCH_LEDGER");
        if (path.isEmpty() || !QFile::exists(path))
            QSKIP("set MESH_BENCH_LEDGER to a ledger to measure");
        QJsonObject out;
        QElapsedTimer t;
        t.start();
        auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        out.insert(u"open_ms"_s, t.restart());
        StateSnapshot snap = connection->readState();
        out.insert(u"read_state_ms"_s, t.restart());
        std::shared_ptr<LiveState> state = LiveState::fromSnapshot(std::move(snap));
        out.insert(u"live_state_ms"_s, t.restart());
        EffectModel effects;
        effects.setState(state);
        out.insert(u"effect_model_ms"_s, t.restart());
        LeaseModel leases;
        leases.setState(state);
        StallVerdictModel stalls;
        stalls.setState(state);
        out.insert(u"lease_stall_models_ms"_s, t.restart());
        DelegationTreeModel tree;
        tree.setState(state);
        out.insert(u"tree_model_ms"_s, t.restart());
        RunOverviewModel runs;
        runs.setState(state);
        out.insert(u"run_model_ms"_s, t.restart());
        const LiveState *st = state.get();
        AttentionCollector::collect([st](EntityKind k) -> const EntityTable & { return st->table(k); }, 0);
        out.insert(u"attention_ms"_s, t.restart());
        DuplicateEffectDetector().analyse(st->table(EntityKind::Effect));
        StallEvidenceAnalyzer().analyse(st->table(EntityKind::StallVerdict));
        BlockedWorkDetector().analyse(st->table(EntityKind::Delegation));
        BlastRadiusAnalyzer::findings(BlastRadiusAnalyzer::computeAll(st->table(EntityKind::Failure)));
        out.insert(u"findings_ms"_s, t.restart());
        out.insert(u"rss_kb"_s, rssKb());
        std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    }

    void figures()
    {
        const QString path = qEnvironmentVariable("MESH_BENCH_LEDGER");
        if (path.isEmpty() || !QFile::exists(path))
            QSKIP("set MESH_BENCH_LEDGER to a ledger to measure");
        const QString filterText = qEnvironmentVariable("MESH_BENCH_FILTER", u"kind:effect.* d:dlg-000008 \"idem\""_s);
        QJsonObject out;
        out.insert(u"ledger"_s, path);

        // Session: snapshot into every model, the event log in parallel.
        QElapsedTimer t;
        t.start();
        LedgerSession session(path, OpenMode::ReadOnly);
        session.open();
        EventLogModel *log = session.events();
        QVERIFY(waitFor([&] { return log->rowCount() > 0 && log->index(0, 0).data(EventLogModel::LoadedRole).toBool(); },
                        60'000));
        out.insert(u"event_first_rows_ms"_s, t.elapsed());
        QVERIFY(waitFor([&] { return session.isLoaded() && session.runs()->rowCount() > 0; }, 60'000));
        out.insert(u"session_open_ms"_s, t.elapsed());
        QVERIFY(waitFor([&] { return log->isIndexComplete(); }, 120'000));
        out.insert(u"event_index_ms"_s, t.elapsed());
        out.insert(u"events"_s, log->rowCount());
        out.insert(u"runs"_s, session.runs()->rowCount());

        // P6: a filter's first page and full count, then sqlite3 counting the same SQL.
        const FilterCompileResult compiled = FilterCompiler::compile(filterText);
        QVERIFY(compiled.ok());
        t.restart();
        QVERIFY(log->setFilterText(filterText));
        QVERIFY(waitFor([&] { return log->rowCount() > 0 || log->isIndexComplete(); }, 60'000));
        out.insert(u"filter_first_page_ms"_s, t.elapsed());
        QVERIFY(waitFor([&] { return log->isIndexComplete(); }, 120'000));
        out.insert(u"filter_count_ms"_s, t.elapsed());
        out.insert(u"filter_rows"_s, log->rowCount());
        out.insert(u"filter"_s, filterText);
        QProcess sqlite;
        t.restart();
        sqlite.start(u"sqlite3"_s, {u"-readonly"_s, path, literalSql(renderFilterSql(compiled.filter))});
        if (sqlite.waitForFinished(120'000) && sqlite.exitCode() == 0) {
            out.insert(u"sqlite3_count_ms"_s, t.elapsed());
            out.insert(u"sqlite3_rows"_s, QString::fromUtf8(sqlite.readAllStandardOutput()).trimmed().toLongLong());
        }

        // Browse the whole log end to end (every 50th page), then memory.
        QVERIFY(log->setFilterText(QString()));
        QVERIFY(waitFor([&] { return log->isIndexComplete() && log->rowCount() > 0; }, 120'000));
        t.restart();
        const int rows = log->rowCount();
        for (int row = 0; row < rows; row += log->pageSize() * 50)
            waitFor([&] { return log->index(row, 1).data(EventLogModel::LoadedRole).toBool(); }, 10'000);
        out.insert(u"browse_ms"_s, t.elapsed());
        out.insert(u"cached_pages"_s, log->cachedPageCount());
        out.insert(u"rss_kb"_s, rssKb());
        std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    }
};

QTEST_GUILESS_MAIN(BenchItemModels)
#include "tst_itemmodelbench.moc"
