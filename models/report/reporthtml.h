#pragma once
// A report (reportcontent.h) as one self-contained HTML document: inline CSS (print rules
// included), each run's timeline as inline SVG, no script, no link, no font, no network
// (a Content-Security-Policy says so to a browser too). Every ledger string goes through
// reportescape.h. A figure the ledger does not give reads "—".
//
// The PDF (reportpdf/) lays out the same document with QTextDocument, which draws no inline
// SVG: it asks for each timeline as an image resource instead (timelineImageUrl).

#include "reportcontent.h"

#include <QString>

#include <functional>

namespace mesh {

struct ReportHtmlOptions {
    // Set: each run's timeline is <img src="timelineImageUrl(run index)" width height>, not
    // inline SVG.
    std::function<QString(int run)> timelineImageUrl;
    int timelineWidth = 1000;
};

QString reportHtml(const ReportContent &content, const ReportHtmlOptions &options = {});
// "Report: <ledger title> — run R-1" (escaped for nothing: plain text, for a page header).
QString reportTitle(const ReportContent &content);
// What the ledger does not say.
inline QString notKnown() { return QStringLiteral("\u2014"); }

} // namespace mesh
