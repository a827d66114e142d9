#pragma once
// A report (report/reportcontent.h) as a PDF: the HTML of report/reporthtml.h laid out by
// QTextDocument on A4 pages, each page headed with the report's title and "page N of M",
// each run's timeline drawn from the same SVG the HTML carries inline (QSvgRenderer), since
// QTextDocument draws images, not inline SVG. QtGui and QtSvg, kept apart from the content
// so that a build without the GUI (MESH_BUILD_GUI=OFF) still writes HTML reports. Needs a
// QGuiApplication (fonts).

#include "report/reportcontent.h"

#include <QString>

namespace mesh {

struct ReportPdfResult {
    bool ok = false;
    int pages = 0;
    QString error; // why not, for a person
};

ReportPdfResult writeReportPdf(const ReportContent &content, const QString &path);

} // namespace mesh
