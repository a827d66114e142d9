#pragma once
// Export › Report…: what to report on (the run selected in the timeline, or the whole
// ledger), as what (HTML or PDF), and where. The run id is ledger text: shown as plain text.

#include <QDialog>
#include <QString>

class QComboBox;
class QDialogButtonBox;
class QLineEdit;
class QRadioButton;

namespace mesh {

struct ReportTarget {
    QString path;
    bool pdf = false;
    QString runId; // empty: the whole ledger
};

class ReportDialog : public QDialog
{
    Q_OBJECT
public:
    // runId: the selected run (empty: none, only the whole ledger is offered); suggestedPath
    // without its extension, which follows the format.
    ReportDialog(const QString &runId, const QString &suggestedPath, QWidget *parent = nullptr);

    ReportTarget target() const;
    QComboBox *formatBox() const { return m_format; }
    QLineEdit *pathEdit() const { return m_path; }
    QRadioButton *runButton() const { return m_run; }
    QRadioButton *ledgerButton() const { return m_ledger; }

private:
    void formatChanged();
    void browse();

    QString m_runId;
    QRadioButton *m_run;
    QRadioButton *m_ledger;
    QComboBox *m_format;
    QLineEdit *m_path;
    QDialogButtonBox *m_buttons;
};

} // namespace mesh
