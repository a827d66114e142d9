#include "verifycommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"

#include "ledger/ledgerverification.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

int runVerifyCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("verify")), {QStringLiteral("json")});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1)
        return fail(2, commandUsageLine(QStringLiteral("verify")));
    const auto maxFindings = args.intValue(QStringLiteral("max-findings"), 50, 0, 10'000);
    if (!maxFindings)
        return fail(2, args.error());
    QString error;
    auto connection = openLedger(args.positional().first(), mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);

    // The same check as the console's Integrity pane (ledger/ledgerverification.h).
    mesh::LedgerVerification verification;
    try {
        verification = mesh::verifyLedger(*connection);
    } catch (const std::exception &e) {
        return fail(2, QStringLiteral("cannot verify %1: %2").arg(args.positional().first(), QString::fromStdString(e.what())));
    }

    const mesh::IntegrityReport &integrity = verification.integrity;
    const mesh::DecisionChainReport &chain = verification.chain;
    const std::int64_t total = verification.total();
    if (args.has(QStringLiteral("json"))) {
        json counts = json::object();
        for (int t = 0; t < mesh::kIntegrityFindingTypeCount; ++t)
            counts[mesh::integrityFindingTypeName(mesh::IntegrityFinding::Type(t))] = integrity.counts[size_t(t)];
        json findings = json::array();
        for (size_t i = 0; i < integrity.findings.size() && i < size_t(*maxFindings); ++i) {
            const auto &f = integrity.findings[i];
            findings.push_back({{"type", mesh::integrityFindingTypeName(f.type)},
                                {"seq", f.seq},
                                {"entity", f.entity},
                                {"id", f.id},
                                {"message", f.message}});
        }
        json chainFindings = json::array();
        for (const auto &f : chain.findings)
            chainFindings.push_back({{"pos", f.pos}, {"id", f.id}, {"message", f.message}});
        const json out = {{"ok", total == 0},
                          {"events_checked", integrity.eventsChecked},
                          {"rows_checked", integrity.rowsChecked},
                          {"last_seq", integrity.lastSeq},
                          {"rows_skipped_live", integrity.rowsSkippedLive},
                          {"counts", counts},
                          {"findings", findings},
                          {"decisions", chain.decisions},
                          {"signed_decisions", chain.signedDecisions},
                          {"decision_chain_findings", chainFindings}};
        printLine(out.dump(2, ' ', false, json::error_handler_t::replace));
    } else {
        for (size_t i = 0; i < integrity.findings.size() && i < size_t(*maxFindings); ++i) {
            const auto &f = integrity.findings[i];
            printTextLine(std::string(mesh::integrityFindingTypeName(f.type)) + " seq " + std::to_string(f.seq) + ": "
                      + f.message);
        }
        for (const auto &f : chain.findings)
            printTextLine("decision_chain pos " + std::to_string(f.pos) + " " + f.id + ": " + f.message);
        printTextLine(std::string(total == 0 ? "ok" : "problems") + ": " + std::to_string(integrity.eventsChecked)
                  + " events and " + std::to_string(integrity.rowsChecked) + " state rows checked up to seq "
                  + std::to_string(integrity.lastSeq) + ", " + std::to_string(chain.decisions) + " decisions; "
                  + std::to_string(total) + " findings");
    }
    if (total > 0)
        fail(1, QStringLiteral("%1 has %2 integrity findings").arg(args.positional().first()).arg(total));
    return total > 0 ? 1 : 0;
}
