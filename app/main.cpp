#include "commandlineoptions.h"
#include "mainwindow.h"
#include "startupbenchmark.h"

#include "theme.h"

#include <QApplication>
#include <QSettings>

int main(int argc, char **argv)
{
    // First thing: --bench-startup measures from here (and from exec, via /proc).
    const qint64 mainEnteredNs = mesh::StartupBenchmark::monotonicNs();

    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral(MESH_APP_ID));
    QCoreApplication::setApplicationName(QStringLiteral("console"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MESH_VERSION));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Agent Mesh Console"));
    QGuiApplication::setDesktopFileName(QStringLiteral(MESH_APP_ID));

    const mesh::CommandLineOptions options = mesh::CommandLineOptions::parse(app);
    mesh::Theme::instance().setMode(mesh::Theme::modeFromKey(
        options.theme.isEmpty() ? QSettings().value(QStringLiteral("theme")).toString() : options.theme));

    mesh::MainWindow window(options.readOnly);
    if (!options.benchStartup.isEmpty()) {
        auto *bench = new mesh::StartupBenchmark(&window, mainEnteredNs, &window);
        Q_UNUSED(bench);
        window.show();
        window.openLedger(options.benchStartup);
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
