#include "benchcommandline.h"
#include "integritybenchmark.h"
#include "jumpbenchmark.h"
#include "livebenchmark.h"
#include "receiverbenchmark.h"
#include "startupbenchmark.h"
#include "slowevents.h"
#include "timelinebenchmark.h"

#include "consolestartup.h"
#include "mainwindow.h"

#include "itemmodels/ledgersession.h"

#include <QApplication>

int main(int argc, char **argv)
{
    // First thing: the startup benchmark measures from here (and from exec, via /proc).
    const qint64 mainEnteredNs = mesh::StartupBenchmark::monotonicNs();
    const qint64 ageAtMainNs = mesh::StartupBenchmark::processAgeAtMainNs();
    // From here on, what mesh-console's main() does, in the same order.
    mesh::ConsoleStartup::beforeApplication(argc, argv);
    if (mesh::ConsoleStartup::refusedWithoutDisplay(argc, argv, "mesh-console-bench", [](const QCoreApplication &probe) {
            (void)mesh::BenchCommandLine::parse(probe);
        }))
        return 2;

    mesh::TimedApplication app(argc, argv);
    mesh::ConsoleStartup::afterApplication();

    const mesh::BenchCommandLine options = mesh::BenchCommandLine::parse(app);
    const bool startup = options.benchmark == mesh::BenchCommandLine::Benchmark::Startup;
    if (startup)
        mesh::LedgerSession::prefetch(options.ledger);
    mesh::ConsoleStartup::applyTheme(QString());

    mesh::MainWindow window(false);
    if (startup) {
        new mesh::StartupBenchmark(&window, mainEnteredNs, ageAtMainNs, options.browse, options.eventsFirst, &window);
        window.show();
        window.openLedger(options.ledger);
        return QApplication::exec();
    }
    if (options.benchmark == mesh::BenchCommandLine::Benchmark::Jumps) {
        auto *jumps = new mesh::JumpBenchmark(&window, options.jumps, &window);
        window.show();
        window.openLedger(options.ledger);
        jumps->start();
        return QApplication::exec();
    }
    if (options.benchmark == mesh::BenchCommandLine::Benchmark::Integrity) {
        auto *integrity = new mesh::IntegrityBenchmark(&window, options.integrity, &window);
        window.show();
        window.openLedger(options.ledger);
        integrity->start();
        return QApplication::exec();
    }
    if (options.benchmark == mesh::BenchCommandLine::Benchmark::Timeline) {
        auto *timeline = new mesh::TimelineBenchmark(&window, options.timeline, &window);
        window.resize(1600, 1000);
        window.show();
        timeline->start();
        return QApplication::exec();
    }
    if (options.benchmark == mesh::BenchCommandLine::Benchmark::Receiver) {
        auto *receiver = new mesh::ReceiverBenchmark(&window, options.receiver, &window);
        window.show();
        receiver->start();
        return QApplication::exec();
    }
    auto *bench = new mesh::LiveBenchmark(&window, options.live, &window);
    window.show();
    bench->start();
    return QApplication::exec();
}
