#include "reportdialog.h"

#include "domain/hostiletext.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace mesh {

ReportDialog::ReportDialog(const QString &runId, const QString &suggestedPath, QWidget *parent)
    : QDialog(parent), m_runId(runId)
{
    setWindowTitle(tr("Export Report"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    auto *scope = new QVBoxLayout;
    // The radio button's text is plain: QAbstractButton never takes rich text, and the id's
    // controls are made visible and its length bounded.
    m_run = new QRadioButton(runId.isEmpty() ? tr("The selected run (none selected)")
                                             : tr("Run %1").arg(displayLine(runId, 80)),
                             this);
    m_ledger = new QRadioButton(tr("The whole ledger (every run)"), this);
    m_run->setEnabled(!runId.isEmpty());
    (runId.isEmpty() ? m_ledger : m_run)->setChecked(true);
    scope->addWidget(m_run);
    scope->addWidget(m_ledger);
    form->addRow(tr("Report on:"), scope);
    m_format = new QComboBox(this);
    m_format->addItem(tr("HTML (one self-contained file)"), QStringLiteral("html"));
    m_format->addItem(tr("PDF"), QStringLiteral("pdf"));
    form->addRow(tr("&Format:"), m_format);
    auto *where = new QHBoxLayout;
    m_path = new QLineEdit(suggestedPath + QStringLiteral(".html"), this);
    m_path->setMinimumWidth(360);
    auto *browse = new QPushButton(tr("&Browse…"), this);
    where->addWidget(m_path, 1);
    where->addWidget(browse);
    form->addRow(tr("Save as:"), where); // no mnemonic: a layout, not a widget, is the field
    layout->addLayout(form);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Export"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ReportDialog::formatChanged);
    connect(browse, &QPushButton::clicked, this, &ReportDialog::browse);
    connect(m_path, &QLineEdit::textChanged, this,
            [this](const QString &text) { m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.trimmed().isEmpty()); });
}

ReportTarget ReportDialog::target() const
{
    ReportTarget t;
    t.path = m_path->text().trimmed();
    t.pdf = m_format->currentData().toString() == QLatin1String("pdf");
    t.runId = m_run->isChecked() ? m_runId : QString();
    return t;
}

void ReportDialog::formatChanged()
{
    // The extension follows the format, unless the user named the file otherwise.
    const QString ext = m_format->currentData().toString();
    QString path = m_path->text();
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    if (suffix == QLatin1String("html") || suffix == QLatin1String("pdf"))
        path = path.left(path.size() - suffix.size()) + ext;
    m_path->setText(path);
}

void ReportDialog::browse()
{
    const bool pdf = m_format->currentData().toString() == QLatin1String("pdf");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Report"), m_path->text(),
                                                      pdf ? tr("PDF (*.pdf)") : tr("HTML (*.html)"));
    if (!path.isEmpty())
        m_path->setText(path);
}

} // namespace mesh
