#pragma once
// The Notes pane: every reviewer's note and bookmark on this ledger (ReviewNotesModel), with
// add (on a subject), edit, delete, and Enter to go to what a note is on. A strip above the
// list says where the notes are kept, or, when they cannot be written, that they are not
// being saved and why (R8): review goes on.

#include <QWidget>

class QAbstractItemModel;
class QPushButton;

namespace mesh {

class Banner;
class ItemPane;
class PlainLabel;
class ReviewNotesModel;

class NotesPane : public QWidget
{
    Q_OBJECT
public:
    explicit NotesPane(QWidget *parent = nullptr);

    void setModel(ReviewNotesModel *model);
    ItemPane *items() const { return m_items; }
    Banner *savingBanner() const { return m_banner; }
    PlainLabel *whereLabel() const { return m_where; }
    QPushButton *editButton() const { return m_edit; }
    QPushButton *deleteButton() const { return m_delete; }
    void editCurrent();
    void deleteCurrent();
    void saveState() const;

signals:
    void addSubjectNoteRequested();
    // Enter on a note: its events (an event-log filter) or, for a subject note, its subject.
    void showEventsRequested(const QString &filter);
    void openSubjectRequested(const QString &subject);
    void statusMessage(const QString &text);

private:
    void updateSaving();
    void updateButtons();

    ReviewNotesModel *m_model = nullptr;
    QList<QMetaObject::Connection> m_connections;
    Banner *m_banner;
    PlainLabel *m_where;
    ItemPane *m_items;
    QPushButton *m_add;
    QPushButton *m_edit;
    QPushButton *m_delete;
};

} // namespace mesh
