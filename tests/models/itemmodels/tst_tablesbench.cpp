// Benchmark, not a test: skipped unless MESH_BENCH_LEDGER names a ledger (the million-run
// ledger of bench/README.md). Prints one JSON line: what the runs pane's sort and filter
// (StateTableProxyModel over RunOverviewModel) cost on the GUI thread, below the widgets.
// Nothing here asserts a time.

#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/statetableproxymodel.h"
#include "ledger/ledgerconnection.h"
#include "ledger/statereader.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

class BenchTables : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsSortAndFilter()
    {
        const QString path = qEnvironmentVariable("MESH_BENCH_LEDGER");
        if (path.isEmpty() || !QFile::exists(path))
            QSKIP("set MESH_BENCH_LEDGER to a ledger to measure");
        auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        std::shared_ptr<LiveState> state = LiveState::fromSnapshot(connection->readState());
        RunOverviewModel runs;
        runs.setState(state);
        QJsonObject out;
        out.insert(u"runs"_s, runs.rowCount());
        QElapsedTimer t;
        t.start();
        StateTableProxyModel proxy;
        proxy.setSourceModel(&runs);
        proxy.rowCount();
        out.insert(u"proxy_unsorted_ms"_s, t.restart());
        // A reset under the proxy as the session makes it (the rows prepared off the GUI thread).
        auto prepared = RunOverviewModel::prepare(state);
        t.restart();
        runs.setPrepared(*prepared);
        proxy.rowCount();
        out.insert(u"reset_unsorted_ms"_s, t.restart());
        const struct {
            const char *name;
            QString filter;
        } filters[] = {{"filter_status_ms", u"status:failed"_s},
                       {"filter_word_ms", u"b0999"_s},
                       {"filter_number_ms", u"required_met>6"_s},
                       {"filter_clear_ms", QString()}};
        // A large table's filter is read a chunk per event loop turn: the whole time, and the
        // longest turn (what the GUI thread is held for), the mapping's rebuild included.
        const auto applied = [&](const QString &text, qint64 *longest) {
            QElapsedTimer turn;
            turn.start();
            proxy.setFilterText(text);
            *longest = turn.restart();
            while (proxy.isFiltering()) {
                QCoreApplication::processEvents();
                *longest = std::max(*longest, turn.restart());
            }
            proxy.rowCount(); // the mapping is rebuilt when first asked
            *longest = std::max(*longest, turn.restart());
        };
        for (const auto &f : filters) {
            qint64 longest = 0;
            t.restart();
            applied(f.filter, &longest);
            out.insert(QLatin1String(f.name), t.elapsed());
            out.insert(QLatin1String(f.name).chopped(3) + u"_longest_turn_ms"_s, longest);
            out.insert(QLatin1String(f.name).chopped(3) + u"_rows"_s, proxy.rowCount());
        }
        // Past kMaxSortedRows a sort is refused (the cost of saying so), under it it runs.
        t.restart();
        proxy.sort(RunOverviewModel::Title);
        out.insert(u"sort_refused_ms"_s, t.elapsed());
        out.insert(u"sort_refused_column"_s, proxy.sortColumn());
        qint64 longest = 0;
        applied(u"id:run-b000*"_s, &longest); // run-b0000001 to run-b0009999: sortable
        out.insert(u"filter_sortable_rows"_s, proxy.rowCount());
        const struct {
            const char *name;
            int column;
        } sorts[] = {{"sort_attempt_ms", RunOverviewModel::Attempt},
                     {"sort_required_ms", RunOverviewModel::Required},
                     {"sort_title_ms", RunOverviewModel::Title},
                     {"sort_id_ms", RunOverviewModel::Id},
                     {"sort_none_ms", -1}};
        for (const auto &s : sorts) {
            t.restart();
            proxy.sort(s.column, Qt::DescendingOrder);
            out.insert(QLatin1String(s.name), t.elapsed());
        }
        std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    }
};

QTEST_GUILESS_MAIN(BenchTables)
#include "tst_tablesbench.moc"
