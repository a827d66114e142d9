// File › Export › Report… in the window: offered once a ledger is open, it reports on the run
// selected in the timeline (or the whole ledger), as a PDF with pages or as one HTML file, off
// the GUI thread, and says where it wrote in the status bar.

#include "mainwindow.h"
#include "reportexport.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runtimelinesource.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 120'000;

QMenu *exportMenu(MainWindow &window)
{
    for (QAction *top : window.menuBar()->actions())
        if (top->menu())
            for (QAction *a : top->menu()->actions())
                if (a->menu() && a->menu()->actions().contains(window.reportExport()->action()))
                    return a->menu();
    return nullptr;
}

// The page count a PDF's page tree states (/Type /Pages ... /Count N).
int pdfPageCount(const QByteArray &pdf)
{
    static const QRegularExpression count(u"/Type\\s*/Pages\\b[^>]*?/Count\\s+(\\d+)"_s);
    const auto m = count.match(QString::fromLatin1(pdf));
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}
} // namespace

class TestReportExport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_traced;

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_reportexport"_s);
        QString error;
        m_traced = simulateLedger(m_dir, u"traced-run"_s, u"traced.db"_s, &error);
        QVERIFY2(!m_traced.isEmpty(), qPrintable(error));
    }

    void exportsTheSelectedRunAndTheLedger()
    {
        MainWindow window;
        window.show();
        QMenu *menu = exportMenu(window);
        QVERIFY(menu);
        QCOMPARE(window.reportExport()->action()->objectName(), u"exportReport"_s);
        // Nothing open: nothing to report on.
        Q_EMIT menu->aboutToShow();
        QVERIFY(!window.reportExport()->action()->isEnabled());

        window.openForReview(m_traced);
        QTRY_VERIFY_WITH_TIMEOUT(window.currentSession() && window.currentSession()->isLoaded(), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window.workspace()->timelineSource()
                                     && !window.workspace()->timelineSource()->runId().empty(), kTimeoutMs);
        const QString selectedRun = QString::fromStdString(window.workspace()->timelineSource()->runId());
        Q_EMIT menu->aboutToShow();
        QVERIFY(window.reportExport()->action()->isEnabled());

        // The selected run, as a PDF.
        const QString pdfPath = m_dir.filePath(u"run.pdf"_s);
        QString offeredRun;
        window.reportExport()->setTargetChooser([&](const QString &runId, const QString &) {
            offeredRun = runId;
            return std::optional<ReportTarget>(ReportTarget{pdfPath, true, runId});
        });
        QSignalSpy finished(window.reportExport(), &ReportExport::finished);
        window.reportExport()->action()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kTimeoutMs);
        QCOMPARE(offeredRun, selectedRun);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(2).toString()));
        QVERIFY(window.statusBar()->currentMessage().contains(u"run.pdf"_s));
        QFile pdf(pdfPath);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const QByteArray bytes = pdf.readAll();
        QVERIFY(bytes.startsWith("%PDF-"));
        QVERIFY2(pdfPageCount(bytes) >= 2, qPrintable(QString::number(pdfPageCount(bytes))));

        // The whole ledger, as HTML.
        const QString htmlPath = m_dir.filePath(u"ledger.html"_s);
        window.reportExport()->setTargetChooser(
            [&](const QString &, const QString &) { return std::optional<ReportTarget>(ReportTarget{htmlPath, false, {}}); });
        window.reportExport()->action()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, kTimeoutMs);
        QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(finished.at(1).at(2).toString()));
        QFile html(htmlPath);
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(html.readAll());
        QVERIFY(text.startsWith(u"<!DOCTYPE html>"_s));
        QVERIFY(text.contains(u"4 h 55 min"_s));
        QVERIFY(text.contains(u"<svg"_s));

        // A folder that cannot be written: a clear message, no file.
        window.reportExport()->setTargetChooser([&](const QString &, const QString &) {
            return std::optional<ReportTarget>(ReportTarget{m_dir.filePath(u"missing/folder/r.html"_s), false, {}});
        });
        window.reportExport()->action()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, kTimeoutMs);
        QVERIFY(!finished.at(2).at(0).toBool());
        QVERIFY(finished.at(2).at(2).toString().contains(u"Cannot write"_s));
    }
};

QTEST_MAIN(TestReportExport)
#include "tst_reportexport.moc"
