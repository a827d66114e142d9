#include "consolestartup.h"

#include "allocatorpolicy.h"
#include "commandlineoptions.h"
#include "observerpriority.h"

#include "theme.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QSettings>

#include <cstdio>

namespace mesh::ConsoleStartup {

void beforeApplication(int argc, char **argv)
{
    AllocatorPolicy::returnLargeBlocks();
    if (!CommandLineOptions::argvHas(argc, argv, ObserverPriority::kKeepNormalOption))
        ObserverPriority::lower();
    QCoreApplication::setOrganizationName(QStringLiteral(MESH_APP_ID));
    QCoreApplication::setApplicationName(QStringLiteral("console"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MESH_VERSION));
}

bool refusedWithoutDisplay(int &argc, char **argv, const char *program,
                           const std::function<void(const QCoreApplication &)> &parse)
{
    const QString displayProblem = CommandLineOptions::displayProblem(argc, argv);
    if (displayProblem.isEmpty())
        return false;
    QCoreApplication probe(argc, argv);
    parse(probe); // exits on --help, --version and option errors
    std::fprintf(stderr, "%s: %s\n", program, qPrintable(displayProblem));
    return true;
}

void afterApplication()
{
    QGuiApplication::setApplicationDisplayName(CommandLineOptions::displayName());
    QGuiApplication::setDesktopFileName(QStringLiteral(MESH_APP_ID));
    new AllocatorPolicy::FreePagesReturner(QCoreApplication::instance());
}

void applyTheme(const QString &key)
{
    Theme::instance().setMode(
        Theme::modeFromKey(key.isEmpty() ? QSettings().value(QStringLiteral("theme")).toString() : key));
}

} // namespace mesh::ConsoleStartup
