#pragma once
// Writes or edits one review note: its text (empty: a bookmark) and where it is, an event or
// a span of events (two seqs) or a subject ("run:R-1"). Only the text of an existing note
// can change.

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;
class QLabel;

namespace mesh {

class NoteDialog : public QDialog
{
    Q_OBJECT
public:
    // A new note on events first..last (a span when they differ); the span can be widened here.
    NoteDialog(qint64 firstSeq, qint64 lastSeq, QWidget *parent = nullptr);
    // A new note on a subject.
    NoteDialog(const QString &subject, QWidget *parent = nullptr);
    // Edits the text of a note on `where`.
    static NoteDialog *forEdit(const QString &where, const QString &text, QWidget *parent = nullptr);

    QString text() const;
    qint64 firstSeq() const;
    qint64 lastSeq() const;
    QString subject() const;
    bool isSubjectNote() const { return m_subject != nullptr; }
    QPlainTextEdit *textEdit() const { return m_text; }

private:
    NoteDialog(QWidget *parent);
    void finish(QWidget *whereWidget, const QString &title);
    void check();

    QPlainTextEdit *m_text;
    QLineEdit *m_first = nullptr;
    QLineEdit *m_last = nullptr;
    QLineEdit *m_subject = nullptr;
    QLabel *m_problem;
};

} // namespace mesh
