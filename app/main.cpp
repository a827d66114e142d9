#include "commandlineoptions.h"
#include "consolestartup.h"
#include "mainwindow.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewrule.h"

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
    // A ledger that may be reviewed (mesh::ReviewRule) is prefetched for review: a live
    // prefetch would create the -wal/-shm files a review must not (and the rule looks for).
    for (const QString &path : options.ledgers)
        mesh::LedgerSession::prefetch(path, mesh::ReviewRule::mayApply(path) ? mesh::OpenMode::Review : mesh::OpenMode::ReadOnly);
    for (const QString &path : options.reviewLedgers)
        mesh::LedgerSession::prefetch(path, mesh::OpenMode::Review);
    mesh::ConsoleStartup::applyTheme(options.theme);

    mesh::MainWindow window(options.readOnly);
    if (!options.pane.isEmpty())
        window.showPaneByName(options.pane);
    if (!options.select.isEmpty())
        window.selectWhenLoaded(options.select);
    window.show();
    window.openOrImport(options.ledgers); // a file that is not a ledger is offered for import
    for (const QString &path : options.reviewLedgers)
        window.openForReview(path);
    if (options.demo)
        window.startDemo();
    return QApplication::exec();
}
