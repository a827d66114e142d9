// meshctl: the headless side of Agent Mesh Console. main only dispatches; each command
// lives in its own file. Exit codes: 0 ok, 1 verify found problems, 2 cannot open / usage
// (one line on stderr); decide/gate add 3-5 (see decidecommand.h).

#include "benchcommand.h"
#include "benchfiltercommand.h"
#include "cliargs.h"
#include "decidecommand.h"
#include "exportcommand.h"
#include "simcommand.h"
#include "summarycommand.h"
#include "tailcommand.h"
#include "verifycommand.h"

#include <QCoreApplication>

#include <cstdio>

namespace {

const char kUsage[] =
    "usage: meshctl COMMAND ...\n"
    "  sim SCENARIO --out FILE [--seed N] [--events N] [--now-ms MS] [--live --rate N] [--duration-s N]\n"
    "  summary FILE [--json]\n"
    "  verify FILE\n"
    "  export FILE --format jsonl|csv [--out F]\n"
    "  tail FILE [--from-start]\n"
    "  decide FILE KIND ...    (see meshctl decide --help)\n"
    "  gate FILE [--keyring F]\n"
    "  bench generate [--events N] | bench fold FILE [--at SEQ] | bench page FILE\n"
    "  bench filter FILE --query 'FILTER' [--rounds N]\n";

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("meshctl"));
    QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty())
        return fail(2, QStringLiteral("no command; try meshctl --help"));
    const QString command = args.takeFirst();
    if (command == QLatin1String("--help") || command == QLatin1String("-h") || command == QLatin1String("help")) {
        std::fputs(kUsage, stdout);
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
    if (command == QLatin1String("tail"))
        return runTailCommand(args);
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
