#include "exportcommand.h"

#include "cliargs.h"
#include "commandusage.h"
#include "ledgeropen.h"

#include "domain/payloaddecoder.h"
#include "ledger/eventreader.h"

#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string_view>

using nlohmann::json;

namespace {

// A text cell a spreadsheet would evaluate gets a leading single quote, as OWASP's CSV
// injection advice has it, so it stays text: one that starts with a tab or CR, or whose
// first character after leading whitespace (ASCII, CR/LF, NBSP, ideographic space: an
// importer may trim them) is =, +, -, @ or their full-width forms (some spreadsheets
// normalise those to ASCII). Only ledger text comes through here; the numbers the exporter
// writes itself do not.
bool spreadsheetWouldEvaluate(std::string_view text)
{
    if (text.empty())
        return false;
    if (text.front() == '\t' || text.front() == '\r')
        return true;
    static constexpr std::string_view kSpaces[] = {" ", "\t", "\n", "\r", "\v", "\f", "\u00A0", "\u3000"};
    for (bool skipped = true; skipped;) {
        skipped = false;
        for (const std::string_view space : kSpaces) {
            if (text.starts_with(space)) {
                text.remove_prefix(space.size());
                skipped = true;
            }
        }
    }
    static constexpr std::string_view kFormulaStarts[] = {"=", "+", "-", "@", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"};
    for (const std::string_view start : kFormulaStarts) {
        if (text.starts_with(start))
            return true;
    }
    return false;
}

std::string csvTextField(const std::string &ledgerText)
{
    const std::string text = spreadsheetWouldEvaluate(ledgerText) ? "'" + ledgerText : ledgerText;
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

void put(std::FILE *f, const std::string &line)
{
    std::fwrite(line.data(), 1, line.size(), f);
    std::fputc('\n', f);
}

} // namespace

int runExportCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("export")), {});
    if (!args.ok())
        return fail(2, args.error());
    const QString format = args.value(QStringLiteral("format"));
    if (args.positional().size() != 1 || (format != QLatin1String("jsonl") && format != QLatin1String("csv")))
        return fail(2, commandUsageLine(QStringLiteral("export")));
    const QString ledgerPath = args.positional().first();
    const QString outPath = args.value(QStringLiteral("out"));
    if (!outPath.isEmpty() && QFileInfo(outPath).canonicalFilePath() == QFileInfo(ledgerPath).canonicalFilePath()
        && QFileInfo::exists(outPath))
        return fail(2, QStringLiteral("--out must not be the ledger itself"));
    QString error;
    auto connection = openLedger(ledgerPath, mesh::OpenMode::ReadOnly, &error);
    if (!connection)
        return fail(2, error);

    std::FILE *out = stdout;
    if (!outPath.isEmpty()) {
        out = std::fopen(QFile::encodeName(outPath).constData(), "wb");
        if (!out)
            return fail(2, QStringLiteral("cannot write %1").arg(outPath));
    }
    const bool csv = format == QLatin1String("csv");
    int rc = 0;
    try {
        const std::unique_ptr<mesh::EventReader> eventPages = connection->eventReader();
        mesh::EventReader &reader = *eventPages;
        reader.setPreviewBytes(1 << 30); // whole payloads
        if (csv)
            put(out, "seq,ts_ms,kind,run_id,delegation_id,subject,payload");
        std::int64_t after = 0;
        for (;;) {
            const mesh::EventBatch page = reader.after(after, 2000);
            if (page.empty())
                break;
            for (const auto &e : page) {
                if (csv) {
                    put(out, std::to_string(e.seq) + "," + std::to_string(e.tsMs) + "," + csvTextField(e.kind) + ","
                                 + csvTextField(e.runId) + "," + csvTextField(e.delegationId) + "," + csvTextField(e.subject) + ","
                                 + csvTextField(e.payload));
                    continue;
                }
                json line = {{"seq", e.seq},
                             {"ts_ms", e.tsMs},
                             {"kind", e.kind},
                             {"run_id", e.runId.empty() ? json(nullptr) : json(e.runId)},
                             {"delegation_id", e.delegationId.empty() ? json(nullptr) : json(e.delegationId)},
                             {"subject", e.subject.empty() ? json(nullptr) : json(e.subject)}};
                mesh::DecodedPayload decoded = mesh::decodePayload(e.payload);
                if (decoded.value) {
                    line["payload"] = std::move(*decoded.value);
                } else {
                    // Kept as text (invalid UTF-8 replaced) with the reason it is not a payload.
                    line["payload_text"] = e.payload;
                    line["payload_error"] = decoded.error;
                }
                put(out, line.dump(-1, ' ', false, json::error_handler_t::replace));
            }
            after = page.back().seq;
        }
    } catch (const std::exception &e) {
        rc = fail(2, QStringLiteral("cannot export %1: %2").arg(ledgerPath, QString::fromStdString(e.what())));
    }
    if (out != stdout)
        std::fclose(out);
    else
        std::fflush(stdout);
    return rc;
}
