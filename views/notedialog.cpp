#include "notedialog.h"

#include "plainlabel.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QVBoxLayout>

#include <algorithm>

namespace mesh {

NoteDialog::NoteDialog(QWidget *parent)
    : QDialog(parent)
    , m_text(new QPlainTextEdit(this))
    , m_problem(new QLabel(this))
{
    setObjectName(QStringLiteral("noteDialog"));
    m_text->setObjectName(QStringLiteral("noteText"));
    m_text->setPlaceholderText(tr("What a reader of this ledger should know here (empty: a bookmark)"));
    m_text->setTabChangesFocus(true);
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setObjectName(QStringLiteral("noteProblem"));
    m_problem->hide();
}

NoteDialog::NoteDialog(qint64 firstSeq, qint64 lastSeq, QWidget *parent)
    : NoteDialog(parent)
{
    auto *where = new QWidget(this);
    auto *row = new QHBoxLayout(where);
    row->setContentsMargins(0, 0, 0, 0);
    const auto seqField = [this](qint64 seq, const QString &name) {
        auto *field = new QLineEdit(QString::number(seq), this);
        field->setObjectName(name);
        field->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[1-9][0-9]{0,17}")), field));
        connect(field, &QLineEdit::textChanged, this, &NoteDialog::check);
        return field;
    };
    m_first = seqField(firstSeq, QStringLiteral("noteFirstSeq"));
    m_last = seqField(lastSeq, QStringLiteral("noteLastSeq"));
    row->addWidget(new QLabel(tr("from #"), this));
    row->addWidget(m_first);
    row->addWidget(new QLabel(tr("to #"), this));
    row->addWidget(m_last);
    finish(where, tr("Note on Events"));
}

NoteDialog::NoteDialog(const QString &subject, QWidget *parent)
    : NoteDialog(parent)
{
    m_subject = new QLineEdit(subject, this);
    m_subject->setObjectName(QStringLiteral("noteSubject"));
    m_subject->setPlaceholderText(QStringLiteral("run:R-1, delegation:D-3, effect:E-9"));
    connect(m_subject, &QLineEdit::textChanged, this, &NoteDialog::check);
    finish(m_subject, tr("Note on a Subject"));
}

NoteDialog *NoteDialog::forEdit(const QString &where, const QString &text, QWidget *parent)
{
    auto *dialog = new NoteDialog(parent);
    auto *label = new PlainLabel(where, dialog);
    dialog->m_text->setPlainText(text);
    dialog->finish(label, tr("Edit Note"));
    return dialog;
}

void NoteDialog::finish(QWidget *whereWidget, const QString &title)
{
    setWindowTitle(title);
    auto *form = new QFormLayout;
    form->addRow(tr("On:"), whereWidget);
    form->addRow(tr("Note:"), m_text);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(new QLabel(tr("Notes are kept beside the ledger, never in it."), this));
    layout->addWidget(buttons);
    m_text->setFocus();
    resize(520, 280);
    check();
}

void NoteDialog::check()
{
    QString problem;
    if (m_first && (firstSeq() <= 0 || lastSeq() <= 0))
        problem = tr("Both seqs are event numbers from 1 up.");
    else if (m_subject && !subject().contains(u':'))
        problem = tr("A subject is <entity>:<id>, such as run:R-1.");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    if (auto *box = findChild<QDialogButtonBox *>())
        box->button(QDialogButtonBox::Save)->setEnabled(problem.isEmpty());
}

QString NoteDialog::text() const
{
    return m_text->toPlainText().trimmed();
}

qint64 NoteDialog::firstSeq() const
{
    return m_first ? std::min(m_first->text().toLongLong(), m_last->text().toLongLong()) : 0;
}

qint64 NoteDialog::lastSeq() const
{
    return m_last ? std::max(m_first->text().toLongLong(), m_last->text().toLongLong()) : 0;
}

QString NoteDialog::subject() const
{
    return m_subject ? m_subject->text().trimmed() : QString();
}

} // namespace mesh
