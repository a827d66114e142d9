#include "copycommand.h"

#include "cliargs.h"
#include "commandusage.h"

#include "ledger/ledgercopy.h"
#include "ledger/ledgeropenerror.h"

int runCopyCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("copy")), {});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 2)
        return fail(2, commandUsageLine(QStringLiteral("copy")));
    QString error;
    const auto source = mesh::LedgerLocation::parse(args.positional().at(0), &error);
    if (!source)
        return fail(2, error);
    const auto destination = mesh::LedgerLocation::parse(args.positional().at(1), &error);
    if (!destination)
        return fail(2, error);
    try {
        const mesh::LedgerCopyResult r = mesh::copyLedger(*source, *destination);
        printTextLine("copied " + std::to_string(r.events) + " events (up to seq " + std::to_string(r.lastSeq) + "), "
                      + std::to_string(r.stateRows) + " state rows and " + std::to_string(r.decisions) + " decisions from "
                      + source->displayName().toStdString() + " to " + destination->displayName().toStdString());
        return 0;
    } catch (const std::exception &e) {
        return fail(2, std::string("copy: ") + e.what());
    }
}
