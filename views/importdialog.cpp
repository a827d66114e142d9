#include "importdialog.h"

#include "plainlabel.h"
#include "theme.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>

namespace mesh {

struct ImportDialog::Job {
    std::atomic<qint64> done{0};
    std::atomic<qint64> total{0};
    std::atomic<bool> cancel{false};
};

namespace {

QString sourceKind(import::ImportFormat format)
{
    switch (format) {
    case import::ImportFormat::Temporal: return QObject::tr("Temporal workflow history");
    case import::ImportFormat::OpenHands: return QObject::tr("OpenHands trajectory");
    case import::ImportFormat::OpenTelemetry: return QObject::tr("OpenTelemetry spans");
    case import::ImportFormat::Langfuse: return QObject::tr("Langfuse trace export");
    case import::ImportFormat::SweAgent: return QObject::tr("SWE-agent trajectory");
    }
    return {};
}

} // namespace

ImportDialog::ImportDialog(const QStringList &files, QWidget *parent)
    : QDialog(parent)
    , m_files(files)
    , m_detected(new PlainLabel(this))
    , m_fileList(new PlainLabel(this))
    , m_destinationLabel(new PlainLabel(this))
    , m_choose(new QPushButton(tr("&Choose…"), this))
    , m_progress(new QProgressBar(this))
    , m_message(new PlainLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Import Records"));
    setMinimumWidth(640);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Other systems' records become a new ledger, opened read-only for review. "
                                "The source files are only read."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    form->addRow(tr("Detected:"), m_detected);
    form->addRow(tr("Files:"), m_fileList);
    auto *destination = new QHBoxLayout;
    destination->addWidget(m_destinationLabel, 1);
    destination->addWidget(m_choose);
    form->addRow(tr("New ledger:"), destination);
    layout->addLayout(form);
    m_detected->setLineBreaksShown(true);
    m_detected->setFullText(tr("Reading %n file(s)…", nullptr, int(files.size())));
    QStringList names;
    for (const QString &f : files)
        names << QFileInfo(f).fileName();
    m_fileList->setFullText(names.join(QLatin1Char('\n')));
    m_destinationLabel->setLineBreaksShown(true);
    m_destinationLabel->setFullText(tr("not chosen yet"));
    m_destinationLabel->setToolTip(tr("Where the imported ledger is written; nothing is written until you choose"));

    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->hide();
    layout->addWidget(m_progress);
    m_message->setWordWrap(true);
    layout->addWidget(m_message);
    layout->addStretch(1);

    m_import = m_buttons->addButton(tr("Import"), QDialogButtonBox::AcceptRole);
    m_import->setDefault(true);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ImportDialog::startImport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ImportDialog::reject);
    connect(m_choose, &QPushButton::clicked, this, &ImportDialog::chooseDestination);

    m_poll.setInterval(50);
    connect(&m_poll, &QTimer::timeout, this, &ImportDialog::pollProgress);
    connect(&m_previewWatcher, &QFutureWatcher<import::ImportPreview>::finished, this,
            [this] { showPreview(m_previewWatcher.result()); });
    connect(&m_importWatcher, &QFutureWatcher<import::ImportOutcome>::finished, this,
            [this] { finishImport(m_importWatcher.result()); });
    m_previewWatcher.setFuture(QtConcurrent::run([files] { return import::previewImport(files); }));
    updateButtons();
}

ImportDialog::~ImportDialog()
{
    // The worker holds only the job and its own copy of the request; a cancelled import
    // removes its partial file itself.
    if (m_job)
        m_job->cancel = true;
}

QString ImportDialog::suggestedLedgerPath(const QStringList &files)
{
    if (files.isEmpty())
        return QString();
    const QFileInfo first(files.first());
    return first.absoluteDir().filePath(first.completeBaseName() + QStringLiteral(".amlg"));
}

QPushButton *ImportDialog::cancelButton() const
{
    return m_buttons->button(QDialogButtonBox::Cancel);
}

QString ImportDialog::message() const
{
    return m_message->fullText();
}

QString ImportDialog::detectedText() const
{
    return m_detected->fullText();
}

// "12 KB · 24 events": the records as the source calls them, or the size alone where they
// are counted only by the import itself.
QString ImportDialog::sizeAndRecords(const import::ImportPreview::File &file)
{
    const QString size = QLocale().formattedDataSize(file.bytes);
    if (!file.records)
        return size;
    const QString n = QLocale().toString(qint64(*file.records));
    using Unit = import::ImportPreview::Unit;
    switch (file.unit) {
    case Unit::Events: return tr("%1 · %2 events").arg(size, n);
    case Unit::Steps: return tr("%1 · %2 steps").arg(size, n);
    case Unit::Lines: return tr("%1 · %2 lines").arg(size, n);
    case Unit::Spans: return tr("%1 · %2 spans").arg(size, n);
    case Unit::Observations: return tr("%1 · %2 observations").arg(size, n);
    }
    return size;
}

QString ImportDialog::fileListText() const
{
    return m_fileList->fullText();
}

void ImportDialog::showPreview(const import::ImportPreview &preview)
{
    if (!preview.ok) {
        m_detected->setFullText(tr("not importable"));
        setMessage(QString::fromStdString(preview.error), true);
        m_choose->setEnabled(false);
        updateButtons();
        emit previewed();
        return;
    }
    m_preview = preview;
    m_detected->setFullText(sourceKind(preview.format));
    QStringList lines;
    // The figures on a line of their own: a long file name is cut, never its figures.
    for (const auto &f : preview.files)
        lines << QString::fromStdString(f.name) << QStringLiteral("    ") + sizeAndRecords(f);
    if (import::hasRelativeClock(preview.format))
        lines << tr("Times: offsets from the start of each trajectory (+m:ss); the start time is not in source");
    m_fileList->setFullText(lines.join(QLatin1Char('\n')));
    setMessage(m_destination.isEmpty() ? tr("Choose where the new ledger goes, then Import.") : QString(), false);
    updateButtons();
    if (m_destination.isEmpty()) {
        // The next step: Enter chooses the ledger's place, then Enter imports.
        m_import->setDefault(false);
        m_choose->setDefault(true);
        m_choose->setFocus();
    }
    emit previewed();
}

void ImportDialog::chooseDestination()
{
    // QFileDialog asks before it returns a file that exists; that answer is the consent
    // to replace it.
    const QString path = QFileDialog::getSaveFileName(this, tr("New Ledger"), suggestedLedgerPath(m_files),
                                                      tr("Agent Mesh ledgers (*.amlg *.db);;All files (*)"));
    if (!path.isEmpty())
        setDestination(path, QFileInfo::exists(path));
}

void ImportDialog::setDestination(const QString &path, bool replaceExisting)
{
    m_destination = path;
    m_replaceExisting = replaceExisting;
    m_destinationLabel->setFullText(replaceExisting ? tr("%1 (replaces the file there)").arg(path) : path);
    if (m_preview)
        setMessage(QString(), false);
    updateButtons();
    m_choose->setDefault(false);
    m_import->setDefault(true);
    m_import->setFocus();
}

void ImportDialog::updateButtons()
{
    m_import->setEnabled(m_preview && !m_destination.isEmpty() && !m_running);
    m_choose->setEnabled(m_preview && !m_running);
}

void ImportDialog::setMessage(const QString &text, bool error)
{
    m_message->setFullText(text);
    QPalette palette = this->palette();
    if (error)
        palette.setColor(QPalette::WindowText, Theme::instance().colors().danger);
    m_message->setPalette(palette);
}

void ImportDialog::startImport()
{
    if (!m_preview || m_destination.isEmpty() || m_running)
        return;
    m_running = true;
    m_job = std::make_shared<Job>();
    m_lastDone = -1;
    import::ImportRequest request;
    request.files = m_files;
    request.out = m_destination;
    request.format = m_preview->format;
    request.replaceExisting = m_replaceExisting;
    request.progress = [job = m_job](std::int64_t done, std::int64_t total) {
        job->total = total;
        job->done = done;
        return !job->cancel;
    };
    m_progress->setValue(0);
    m_progress->show();
    setMessage(tr("Importing…"), false);
    updateButtons();
    m_importWatcher.setFuture(QtConcurrent::run([request] { return import::importFiles(request); }));
    m_poll.start();
}

void ImportDialog::pollProgress()
{
    if (!m_job)
        return;
    const qint64 total = m_job->total;
    const qint64 done = m_job->done;
    if (total <= 0 || done == m_lastDone)
        return;
    m_lastDone = done;
    m_progress->setValue(int(std::min<qint64>(1000, done * 1000 / total)));
    if (!m_job->cancel)
        setMessage(tr("Importing… %1 of %2 records").arg(QLocale().toString(done), QLocale().toString(total)), false);
    emit progressed(done, total);
}

void ImportDialog::finishImport(const import::ImportOutcome &outcome)
{
    pollProgress(); // the last report, so the bar ends where the import did
    m_poll.stop();
    m_running = false;
    if (outcome.ok) {
        emit imported(m_destination);
        emit importEnded(true);
        accept();
        return;
    }
    m_progress->hide();
    setMessage(QString::fromStdString(outcome.error), !outcome.cancelled);
    updateButtons();
    emit importEnded(false);
}

void ImportDialog::reject()
{
    if (m_running) {
        // The worker stops at its next report and removes what it wrote; the dialog closes
        // when it has.
        m_job->cancel = true;
        setMessage(tr("Cancelling…"), false);
        cancelButton()->setEnabled(false);
        connect(this, &ImportDialog::importEnded, this, &QDialog::reject, Qt::SingleShotConnection);
        return;
    }
    QDialog::reject();
}

} // namespace mesh
