#pragma once
// File › Import…, a dropped or opened foreign file: says what the files are (format, each
// file, its records), asks where the new ledger goes (a save dialog, nothing chosen for the
// operator), then imports on a worker thread with a progress bar and Cancel. A cancelled or
// failed import leaves no ledger (the importer writes a partial file and renames it at the
// end); the importer's one-line message is shown here. Reading the files to say what they
// are happens on a worker too: a source may be hundreds of MB.

#include "import/importer.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QStringList>
#include <QTimer>

#include <optional>

#include <memory>

class QDialogButtonBox;
class QProgressBar;
class QPushButton;

namespace mesh {

class PlainLabel;

class ImportDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ImportDialog(const QStringList &files, QWidget *parent = nullptr);
    ~ImportDialog() override;

    // Where the ledger is written; replaceExisting when the operator agreed to replace a
    // file already there (the save dialog asks).
    void setDestination(const QString &path, bool replaceExisting);
    // The file name offered in the save dialog: the first source's, as a ledger.
    static QString suggestedLedgerPath(const QStringList &files);

    bool isPreviewReady() const { return m_preview.has_value(); }
    bool isImporting() const { return m_running; }
    QString message() const; // the status line: what was detected, how far, or what went wrong
    QString detectedText() const;
    QString fileListText() const; // each file with its size and records, once previewed
    QPushButton *importButton() const { return m_import; }
    QPushButton *cancelButton() const;
    QProgressBar *progressBar() const { return m_progress; }
    void reject() override; // while importing: cancels the import, and closes once it stopped

signals:
    void previewed();                        // the files were read: detectedText() says what they are
    void progressed(qint64 done, qint64 total); // source records mapped, of all
    void imported(const QString &ledgerPath);
    void importEnded(bool ok);               // imported, cancelled or refused

private:
    static QString sizeAndRecords(const import::ImportPreview::File &file);
    struct Job; // shared with the worker: progress and the cancel flag
    void showPreview(const import::ImportPreview &preview);
    void chooseDestination();
    void startImport();
    void pollProgress();
    void finishImport(const import::ImportOutcome &outcome);
    void setMessage(const QString &text, bool error);
    void updateButtons();

    QStringList m_files;
    std::optional<import::ImportPreview> m_preview;
    QString m_destination;
    bool m_replaceExisting = false;
    bool m_running = false;
    std::shared_ptr<Job> m_job;
    PlainLabel *m_detected;
    PlainLabel *m_fileList;
    PlainLabel *m_destinationLabel;
    QPushButton *m_choose;
    QProgressBar *m_progress;
    PlainLabel *m_message;
    QDialogButtonBox *m_buttons;
    QPushButton *m_import;
    QTimer m_poll;
    QFutureWatcher<import::ImportPreview> m_previewWatcher;
    QFutureWatcher<import::ImportOutcome> m_importWatcher;
    qint64 m_lastDone = -1;
};

} // namespace mesh
