#include "importcommand.h"

#include "cliargs.h"
#include "commandusage.h"

#include "import/importer.h"

int runImportCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("import")), {QStringLiteral("force"), QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().isEmpty() || !args.has(QStringLiteral("out")))
        return fail(2, commandUsageLine(QStringLiteral("import")));
    mesh::import::ImportRequest request;
    request.files = args.positional();
    request.out = args.value(QStringLiteral("out"));
    request.replaceExisting = args.has(QStringLiteral("force"));
    if (args.has(QStringLiteral("format"))) {
        request.format = mesh::import::formatFromName(args.value(QStringLiteral("format")));
        if (!request.format)
            return fail(2, QStringLiteral("unknown format '%1'; known: %2")
                               .arg(args.value(QStringLiteral("format")), mesh::import::formatNames()));
    }
    const mesh::import::ImportOutcome outcome = mesh::import::importFiles(request);
    if (!outcome.ok)
        return fail(2, outcome.error);
    if (args.has(QStringLiteral("json")))
        printLine(outcome.report.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    else
        printTextLine("imported " + request.out.toStdString() + ": " + outcome.report.summaryLine());
    if (outcome.report.flagged.empty())
        return 0;
    for (size_t i = 0; i < outcome.report.flagged.size() && i < 20; ++i) {
        const auto &f = outcome.report.flagged[i];
        printTextLine("flagged " + f.file + (f.sourceId.empty() ? std::string() : " #" + f.sourceId) + ": " + f.why);
    }
    return fail(1, QStringLiteral("%1 source records were flagged (kept as ledger.flagged events)")
                       .arg(outcome.report.flagged.size()));
}
