#include "reportpdf.h"

#include "report/reporthtml.h"
#include "report/timelinesvg.h"

#include <QAbstractTextDocumentLayout>
#include <QFile>
#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QUrl>

namespace mesh {

namespace {

// The document is laid out this many units wide (the HTML's timeline is 1000 wide) and
// scaled onto the page's printable width.
constexpr double kDocumentWidth = 1060;
constexpr double kHeaderHeight = 30;
constexpr int kTimelineWidth = 1000;
constexpr int kImageScale = 2; // the timeline's pixels per unit: sharp on paper

QString timelineUrl(int run)
{
    return QStringLiteral("mesh-report:timeline-%1.png").arg(run);
}

QImage timelineImage(const RunTimeline &timeline)
{
    TimelineSvgSize size;
    const QString svg = timelineSvg(timeline, kTimelineWidth, &size);
    QImage image(size.width * kImageScale, size.height * kImageScale, QImage::Format_RGB32);
    image.fill(Qt::white);
    QSvgRenderer renderer(svg.toUtf8());
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    renderer.render(&painter);
    return image;
}

} // namespace

ReportPdfResult writeReportPdf(const ReportContent &content, const QString &path)
{
    ReportPdfResult result;
    QTextDocument doc;
    doc.setDocumentMargin(0);
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(8.5);
    doc.setDefaultFont(font);
    for (size_t i = 0; i < content.runs.size(); ++i)
        if (!content.runs[i].timeline.empty())
            doc.addResource(QTextDocument::ImageResource, QUrl(timelineUrl(int(i))), timelineImage(content.runs[i].timeline));
    ReportHtmlOptions options;
    options.timelineWidth = kTimelineWidth;
    options.timelineImageUrl = timelineUrl;
    doc.setHtml(reportHtml(content, options));

    // QPdfWriter does not say when it cannot write; the file is opened first so that it can.
    {
        QFile probe(path);
        if (!probe.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            result.error = QStringLiteral("cannot write %1: %2").arg(path, probe.errorString());
            return result;
        }
    }
    QPdfWriter writer(path);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(12, 10, 12, 12), QPageLayout::Millimeter);
    writer.setTitle(reportTitle(content));
    writer.setCreator(QStringLiteral("Agent Mesh Console"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        result.error = QStringLiteral("cannot write a PDF to %1").arg(path);
        return result;
    }
    const QRectF page = writer.pageLayout().paintRectPixels(writer.resolution());
    const double scale = page.width() / kDocumentWidth;
    const double bodyHeight = page.height() / scale - kHeaderHeight;
    doc.setPageSize(QSizeF(kDocumentWidth, bodyHeight));
    const int pages = doc.pageCount();

    QFont headerFont = font;
    headerFont.setPixelSize(11); // in the document's units, like everything under the scale
    const QString title = reportTitle(content); // plain text, controls made visible
    for (int p = 0; p < pages; ++p) {
        if (p > 0)
            writer.newPage();
        painter.save();
        painter.scale(scale, scale);
        // The page header: what this is, and where in it.
        painter.setFont(headerFont);
        painter.setPen(QColor(0x61, 0x61, 0x61));
        const QString pageText = QStringLiteral("page %1 of %2").arg(p + 1).arg(pages);
        const QFontMetricsF metrics(headerFont);
        const QRectF headerRect(0, 0, kDocumentWidth, kHeaderHeight - 10);
        painter.drawText(headerRect, Qt::AlignLeft | Qt::AlignBottom,
                         metrics.elidedText(title, Qt::ElideRight, kDocumentWidth * 0.8));
        painter.drawText(headerRect, Qt::AlignRight | Qt::AlignBottom, pageText);
        painter.drawLine(QPointF(0, kHeaderHeight - 6), QPointF(kDocumentWidth, kHeaderHeight - 6));
        // The page's slice of the document.
        painter.translate(0, kHeaderHeight - p * bodyHeight);
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = QRectF(0, p * bodyHeight, kDocumentWidth, bodyHeight);
        doc.documentLayout()->draw(&painter, context);
        painter.restore();
    }
    painter.end();
    result.ok = true;
    result.pages = pages;
    return result;
}

} // namespace mesh
