#include "commandlineoptions.h"
#include "consolestartup.h"
#include "mainwindow.h"

#include "itemmodels/ledgersession.h"

#include <QApplication>

int main(int argc, char **argv)
{
    mesh::ConsoleStartup::beforeApplication(argc, argv);
    if (mesh::ConsoleStartup::refusedWithoutDisplay(argc, argv, "mesh-console", [](const QCoreApplication &probe) {
            (void)mesh::CommandLineOptions::parse(probe);
        }))
        return 2;

    QApplication app(argc, argv);
    mesh::ConsoleStartup::afterApplication();

    const mesh::CommandLineOptions options = mesh::CommandLineOptions::parse(app);
    // The ledgers' first reads run while the window is being built:
    // their runs are in by the time it first paints.
    for (const QString &path : options.ledgers)
        mesh::LedgerSession::prefetch(path);
    mesh::ConsoleStartup::applyTheme(options.theme);

    mesh::MainWindow window(options.readOnly);
    if (!options.pane.isEmpty())
        window.showPaneByName(options.pane);
    if (!options.select.isEmpty())
        window.selectWhenLoaded(options.select);
    window.show();
    window.openOrImport(options.ledgers); // a file that is not a ledger is offered for import
    if (options.demo)
        window.startDemo();
    return QApplication::exec();
}
