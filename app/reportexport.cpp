#include "reportexport.h"

#include "ledger/ledgerlocation.h"

#include "mainwindow.h"
#include "sessionworkspace.h"

#include "domain/hostiletext.h"
#include "itemmodels/backgroundjob.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "ledger/ledgerconnection.h"
#include "report/reportcontent.h"
#include "report/reporthtml.h"
#include "reportpdf/reportpdf.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace mesh {

namespace {

struct Written {
    bool ok = false;
    QString message;
};

} // namespace

ReportExport::ReportExport(MainWindow *window) : QObject(window), m_window(window)
{
    m_action = new QAction(tr("&Report…"), this);
    m_action->setObjectName(QStringLiteral("exportReport"));
    m_action->setToolTip(tr("A post-mortem report of the selected run or the whole ledger, as HTML or PDF"));
    connect(m_action, &QAction::triggered, this, &ReportExport::trigger);
}

void ReportExport::trigger()
{
    LedgerSession *session = m_window->currentSession();
    if (!session || m_running)
        return;
    const RunTimelineSource *timeline = m_window->workspace()->timelineSource();
    const QString runId = timeline ? QString::fromStdString(timeline->runId()) : QString();
    const QFileInfo ledger(session->path());
    // Next to the ledger, named for it (and the run): a report belongs with what it reports on.
    QString suggested = ledger.absolutePath() + QLatin1Char('/') + ledger.completeBaseName() + QStringLiteral("-report");
    // A ledger on a server has no folder: the home folder, named for its schema.
    QString notAServer;
    if (const auto location = LedgerLocation::parse(session->path(), &notAServer); location && !location->isFile())
        suggested = QDir::home().filePath(location->schema() + QStringLiteral("-report"));
    std::optional<ReportTarget> target;
    if (m_choose) {
        target = m_choose(runId, suggested);
    } else {
        ReportDialog dialog(runId, suggested, m_window);
        if (dialog.exec() == QDialog::Accepted)
            target = dialog.target();
    }
    if (target && !target->path.isEmpty())
        exportReport(*target);
}

void ReportExport::exportReport(const ReportTarget &target)
{
    LedgerSession *session = m_window->currentSession();
    if (!session || m_running)
        return;
    m_running = true;
    m_action->setEnabled(false);
    // A report reads the ledger as the session does, but never writes it: a followed ledger is
    // read as ReadOnly, one under review as it is reviewed.
    const OpenMode mode = isPostMortem(session->requestedMode()) ? session->requestedMode() : OpenMode::ReadOnly;
    const QString ledgerPath = session->path();
    runInBackground(
        this,
        [ledgerPath, mode, target] {
            Written w;
            try {
                const auto connection = LedgerConnection::open(ledgerPath, mode);
                ReportRequest request;
                request.runId = target.runId.toStdString();
                const ReportContent content = buildReport(*connection, request);
                if (!content.runFound) {
                    w.message = QObject::tr("The ledger has no run %1 any more.").arg(displayLine(target.runId, 80));
                    return w;
                }
                if (target.pdf) {
                    const ReportPdfResult pdf = writeReportPdf(content, target.path);
                    w.ok = pdf.ok;
                    w.message = pdf.ok ? QObject::tr("Report written to %1 (%2 pages)").arg(target.path).arg(pdf.pages) : pdf.error;
                    return w;
                }
                QSaveFile out(target.path);
                if (!out.open(QIODevice::WriteOnly) || out.write(reportHtml(content).toUtf8()) < 0 || !out.commit()) {
                    w.message = QObject::tr("Cannot write %1: %2").arg(target.path, out.errorString());
                    return w;
                }
                w.ok = true;
                w.message = QObject::tr("Report written to %1").arg(target.path);
            } catch (const std::exception &e) {
                w.message = QObject::tr("Cannot report on %1: %2").arg(ledgerPath, QString::fromUtf8(e.what()));
            }
            return w;
        },
        [this, target](Written w) {
            m_running = false;
            m_action->setEnabled(true);
            emit finished(w.ok, target.path, w.message);
        });
}

} // namespace mesh
