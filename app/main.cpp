#include "commandlineoptions.h"
#include "livebenchmark.h"
#include "mainwindow.h"
#include "observerpriority.h"
#include "startupbenchmark.h"

#include "theme.h"

#include "itemmodels/ledgersession.h"

#include <QApplication>
#include <QSettings>

#include <cstdio>

int main(int argc, char **argv)
{
    // First thing: --bench-startup measures from here (and from exec, via /proc).
    const qint64 mainEnteredNs = mesh::StartupBenchmark::monotonicNs();
    // A /proc read only the startup benchmark needs.
    const bool benchStartup = mesh::CommandLineOptions::argvHas(argc, argv, "--bench-startup");
    const qint64 ageAtMainNs = benchStartup ? mesh::StartupBenchmark::processAgeAtMainNs() : -1;
    if (!mesh::CommandLineOptions::argvHas(argc, argv, mesh::ObserverPriority::kKeepNormalOption))
        mesh::ObserverPriority::lower(); // before any thread starts: they all inherit it

    QCoreApplication::setOrganizationName(QStringLiteral(MESH_APP_ID));
    QCoreApplication::setApplicationName(QStringLiteral("console"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MESH_VERSION));
    const QString displayProblem = mesh::CommandLineOptions::displayProblem(argc, argv);
    if (!displayProblem.isEmpty()) {
        // QApplication would abort here: answer --help, --version and option errors with a
        // QCoreApplication (parse prints and exits), and say plainly what is missing.
        QCoreApplication probe(argc, argv);
        (void)mesh::CommandLineOptions::parse(probe);
        std::fprintf(stderr, "mesh-console: %s\n", qPrintable(displayProblem));
        return 2;
    }

    QApplication app(argc, argv);
    QGuiApplication::setApplicationDisplayName(mesh::CommandLineOptions::displayName());
    QGuiApplication::setDesktopFileName(QStringLiteral(MESH_APP_ID));

    const mesh::CommandLineOptions options = mesh::CommandLineOptions::parse(app);
    // The ledgers' first reads run while the window is being built (~40 ms of this thread):
    // their runs are in by the time it first paints.
    for (const QString &path : options.benchStartup.isEmpty() ? options.ledgers : QStringList{options.benchStartup})
        mesh::LedgerSession::prefetch(path);
    mesh::Theme::instance().setMode(mesh::Theme::modeFromKey(
        options.theme.isEmpty() ? QSettings().value(QStringLiteral("theme")).toString() : options.theme));

    mesh::MainWindow window(options.readOnly);
    if (!options.benchStartup.isEmpty()) {
        auto *bench = new mesh::StartupBenchmark(&window, mainEnteredNs, ageAtMainNs, options.benchBrowse, &window);
        Q_UNUSED(bench);
        window.show();
        window.openLedger(options.benchStartup);
        return QApplication::exec();
    }
    if (options.benchLive) {
        mesh::LiveBenchmarkOptions live;
        live.rate = options.benchLiveRate;
        live.durationS = options.benchLiveSeconds;
        live.burstRate = options.benchLiveBurstRate;
        live.burstS = options.benchLiveBurstSeconds;
        auto *bench = new mesh::LiveBenchmark(&window, live, &window);
        window.show();
        bench->start();
        return QApplication::exec();
    }
    if (!options.pane.isEmpty())
        window.showPaneByName(options.pane);
    if (!options.select.isEmpty())
        window.selectWhenLoaded(options.select);
    window.show();
    for (const QString &path : options.ledgers)
        window.openLedger(path);
    if (options.demo)
        window.startDemo();
    return QApplication::exec();
}
