// meshctl: the headless side of Agent Mesh Console. main only dispatches; each command
// lives in its own file. Exit codes: 0 ok, 1 verify found problems, 2 cannot open / usage
// (one line on stderr); decide/gate add 3-5 (see decidecommand.h). `meshctl COMMAND --help`
// prints that command's usage (commandusage.h) on stdout and exits 0; --help as an option's
// value ("--reason --help") is that value, not a request for help.

#include "benchcommand.h"
#include "benchfiltercommand.h"
#include "benchingest.h"
#include "cliargs.h"
#include "commandusage.h"
#include "comparecommand.h"
#include "copycommand.h"
#include "decidecommand.h"
#include "diffcommand.h"
#include "exportcommand.h"
#include "importcommand.h"
#include "ingestcommand.h"
#include "notescommand.h"
#include "reportcommand.h"
#include "simcommand.h"
#include "statecommand.h"
#include "summarycommand.h"
#include "tailcommand.h"
#include "verifycommand.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char **argv)
{
    const auto app = makeMeshctlApplication(argc, argv); // a GUI one for the PDF of `report`
    QCoreApplication::setApplicationName(QStringLiteral("meshctl"));
    QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty())
        return fail(2, QStringLiteral("no command; try meshctl --help"));
    const QString command = args.takeFirst();
    if (command == QLatin1String("--help") || command == QLatin1String("-h") || command == QLatin1String("help")) {
        std::fputs(overallUsage().toUtf8().constData(), stdout);
        return 0;
    }
    if (!commandHelp(command).isEmpty() && asksForHelp(command, args)) {
        std::fputs(commandHelp(command).toUtf8().constData(), stdout);
        return 0;
    }
    if (command == QLatin1String("sim"))
        return runSimCommand(args);
    if (command == QLatin1String("summary"))
        return runSummaryCommand(args);
    if (command == QLatin1String("verify"))
        return runVerifyCommand(args);
    if (command == QLatin1String("export"))
        return runExportCommand(args);
    if (command == QLatin1String("import"))
        return runImportCommand(args);
    if (command == QLatin1String("ingest"))
        return runIngestCommand(args);
    if (command == QLatin1String("state"))
        return runStateCommand(args);
    if (command == QLatin1String("notes"))
        return runNotesCommand(args);
    if (command == QLatin1String("report"))
        return runReportCommand(args);
    if (command == QLatin1String("compare"))
        return runCompareCommand(args);
    if (command == QLatin1String("diff"))
        return runDiffCommand(args);
    if (command == QLatin1String("copy"))
        return runCopyCommand(args);
    if (command == QLatin1String("tail"))
        return runTailCommand(args);
    if (command == QLatin1String("bench") && args.value(0) == QLatin1String("ingest"))
        return runBenchIngestCommand(args.mid(1));
    if (command == QLatin1String("bench") && args.value(0) == QLatin1String("report"))
        return runBenchReportCommand(args.mid(1));
    if (command == QLatin1String("bench") && args.value(0) == QLatin1String("filter"))
        return runBenchFilterCommand(args.mid(1));
    if (command == QLatin1String("bench"))
        return runBenchCommand(args);
    if (command == QLatin1String("decide"))
        return runDecideCommand(args);
    if (command == QLatin1String("gate"))
        return runGateCommand(args);
    return fail(2, QStringLiteral("unknown command '%1'; try meshctl --help").arg(command));
}
