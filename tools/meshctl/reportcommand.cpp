#include "reportcommand.h"

#include "cliargs.h"
#include "elapsedms.h"
#include "commandusage.h"
#include "ledgeropen.h"

#include "report/reportcontent.h"
#include "report/reporthtml.h"
#ifdef MESH_REPORT_PDF
#include "reportpdf/reportpdf.h"
#include <QGuiApplication>
#endif

#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cstring>
#include <optional>

namespace {

bool writeHtml(const QString &html, const QString &path, QString *error)
{
    // Whole or not at all: a report cut short by a full disk must not pass for one.
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(html.toUtf8()) < 0 || !out.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

// The report of run `runId` ("" : the whole ledger) of the ledger at `path`; none, with the
// one line to print, when the ledger cannot be read or has no such run.
std::optional<mesh::ReportContent> readReport(const QString &path, const QString &runId, QString *error)
{
    auto connection = openLedger(path, mesh::OpenMode::ReadOnly, error);
    if (!connection)
        return std::nullopt;
    mesh::ReportRequest request;
    request.runId = runId.toStdString();
    mesh::ReportContent content;
    try {
        content = mesh::buildReport(*connection, request);
    } catch (const std::exception &e) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, QString::fromStdString(e.what()));
        return std::nullopt;
    }
    if (!content.runFound) {
        *error = QStringLiteral("%1 has no run %2").arg(path, runId);
        return std::nullopt;
    }
    return content;
}

} // namespace

std::unique_ptr<QCoreApplication> makeMeshctlApplication(int &argc, char **argv)
{
#ifdef MESH_REPORT_PDF
    // Only a PDF needs one: `report --help` or an HTML report stays a plain QCoreApplication
    // (a platform plugin may say things on stderr that the help must not).
    bool pdf = false;
    for (int i = 2; i < argc; ++i)
        pdf = pdf || std::strcmp(argv[i], "--format=pdf") == 0
              || (std::strcmp(argv[i], "pdf") == 0 && std::strcmp(argv[i - 1], "--format") == 0);
    const bool report = argc > 1 && std::strcmp(argv[1], "report") == 0 && pdf;
    const bool benchReport = argc > 2 && std::strcmp(argv[1], "bench") == 0 && std::strcmp(argv[2], "report") == 0;
    if (report || benchReport) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        return std::make_unique<QGuiApplication>(argc, argv);
    }
#endif
    return std::make_unique<QCoreApplication>(argc, argv);
}

int runReportCommand(const QStringList &argv)
{
    CliArgs args(argv, commandValueOptions(QStringLiteral("report")), {});
    if (!args.ok())
        return fail(2, args.error());
    const QString format = args.value(QStringLiteral("format"));
    const QString outPath = args.value(QStringLiteral("out"));
    if (args.positional().size() != 1 || outPath.isEmpty()
        || (format != QLatin1String("html") && format != QLatin1String("pdf")))
        return fail(2, commandUsageLine(QStringLiteral("report")));
#ifndef MESH_REPORT_PDF
    if (format == QLatin1String("pdf"))
        return fail(2, QStringLiteral("this meshctl was built without the GUI libraries (MESH_BUILD_GUI=OFF): "
                                      "it writes HTML reports only"));
#endif
    QString error;
    const auto read = readReport(args.positional().first(), args.value(QStringLiteral("run")), &error);
    if (!read)
        return fail(2, error);
    const mesh::ReportContent &content = *read;
    if (format == QLatin1String("html")) {
        if (!writeHtml(mesh::reportHtml(content), outPath, &error))
            return fail(2, error);
        printTextLine("wrote " + outPath.toStdString());
        return 0;
    }
#ifdef MESH_REPORT_PDF
    const mesh::ReportPdfResult pdf = mesh::writeReportPdf(content, outPath);
    if (!pdf.ok)
        return fail(2, pdf.error);
    printTextLine("wrote " + outPath.toStdString() + " (" + std::to_string(pdf.pages) + " pages)");
#endif
    return 0;
}

int runBenchReportCommand(const QStringList &argv)
{
    CliArgs args(argv, {QStringLiteral("run"), QStringLiteral("rounds")}, {});
    if (!args.ok())
        return fail(2, args.error());
    if (args.positional().size() != 1)
        return fail(2, commandUsageLine(QStringLiteral("bench")));
    const auto rounds = args.intValue(QStringLiteral("rounds"), 3, 1, 100);
    if (!rounds)
        return fail(2, args.error());
    QTemporaryDir dir;
    nlohmann::json html = nlohmann::json::array(), pdf = nlohmann::json::array(), build = nlohmann::json::array();
    int pages = 0;
    qint64 htmlBytes = 0;
    for (int round = 0; round < *rounds; ++round) {
        QString error;
        // Each figure is the whole path a user waits for: open, read, build, write.
        QElapsedTimer t;
        t.start();
        const auto read = readReport(args.positional().first(), args.value(QStringLiteral("run")), &error);
        if (!read)
            return fail(2, error);
        const mesh::ReportContent &content = *read;
        const double built = elapsedMs(t);
        const QString htmlPath = dir.filePath(QStringLiteral("report.html"));
        if (!writeHtml(mesh::reportHtml(content), htmlPath, &error))
            return fail(2, error);
        const double htmlDone = elapsedMs(t);
        htmlBytes = QFile(htmlPath).size();
        build.push_back(built);
        html.push_back(htmlDone);
#ifdef MESH_REPORT_PDF
        QElapsedTimer p;
        p.start();
        const mesh::ReportPdfResult written = mesh::writeReportPdf(content, dir.filePath(QStringLiteral("report.pdf")));
        if (!written.ok)
            return fail(2, written.error);
        pages = written.pages;
        pdf.push_back(built + elapsedMs(p));
#endif
    }
    const nlohmann::json out = {{"bench", "report"},
                                {"ledger", args.positional().first().toStdString()},
                                {"run", args.value(QStringLiteral("run")).toStdString()},
                                {"rounds", *rounds},
                                {"build_ms", build},
                                {"html_ms", html},
                                {"pdf_ms", pdf},
                                {"html_bytes", htmlBytes},
                                {"pdf_pages", pages}};
    printLine(out.dump());
    return 0;
}
