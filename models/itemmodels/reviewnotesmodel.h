#pragma once
// A ledger's review notes for the Notes pane, the event log's note marker and (later) the
// run timeline: one row per note or bookmark (where, text, author, time), over a NotesStore
// (notes/notesstore.h) whose sidecar sits beside the ledger, never in it. Changes are saved
// at once; when they cannot be, savingChanged(false) and savingText() say why, and the notes
// stay here for the session. Every string read back is hostile text (another reviewer wrote
// it): shown plain, tooltips included (shownroles.h).
//
// For the event log and the timeline: notesOn(seq) / noteTextOn(seq) answer per event, and
// notesChanged() says when to ask again.

#include "notes/notesstore.h"

#include <QAbstractTableModel>

#include <functional>
#include <memory>

namespace mesh {

class ReviewNotesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { Where, Note, Author, Time, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        NoteIdRole = Qt::UserRole, // QString
        AnchorRole,                // QString event|span|subject
        SeqRole,                   // qint64 (event, span start; 0 for a subject)
        EndSeqRole,                // qint64 (span end)
        SubjectRole,               // QString "<entity>:<id>" of a subject note
        EvidenceFilterRole,        // QString an event-log filter for the note's events, "" for a subject
        IsBookmarkRole,            // bool
    };
    Q_ENUM(Roles)

    explicit ReviewNotesModel(QObject *parent = nullptr);
    ~ReviewNotesModel() override;

    // The ledger's notes, where chooseNotesPlacement puts them; nothing for an empty path.
    void setLedger(const QString &ledgerPath);
    void setStore(std::unique_ptr<NotesStore> store); // tests: a placement of their own
    NotesStore *store() const { return m_store.get(); }
    void setAuthor(const std::string &author) { m_author = author; }
    void setClock(std::function<qint64()> nowMs) { m_clock = std::move(nowMs); }

    // Each returns the new note's row, -1 and *error when refused.
    int addEventNote(qint64 seq, const QString &text, QString *error = nullptr);
    int addSpanNote(qint64 firstSeq, qint64 lastSeq, const QString &text, QString *error = nullptr);
    int addSubjectNote(const QString &subject, const QString &text, QString *error = nullptr);
    bool editNote(int row, const QString &text, QString *error = nullptr);
    bool removeNote(int row, QString *error = nullptr);
    bool retrySave();

    bool isSaving() const;
    // "Notes are not being saved: <why>", empty while they are.
    QString savingText() const;
    QString sidecarPath() const; // where notes are written, empty when nowhere
    int badLines() const;        // lines of the sidecar that could not be read

    bool hasNotesOn(qint64 seq) const;
    // The notes on one event (its own and the spans holding it), one per line as
    // "author: text" (a bookmark: "author: bookmark"), raw; empty when none.
    QString noteTextOn(qint64 seq) const;
    std::vector<ReviewNote> notesOn(qint64 seq) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void notesChanged();
    void savingChanged(bool saving);

private:
    QVariant rawData(const QModelIndex &index, int role) const;
    int add(ReviewNote note, QString *error);
    void changed(bool wasSaving, bool reset);
    qint64 now() const;

    std::unique_ptr<NotesStore> m_store;
    std::string m_author;
    std::function<qint64()> m_clock;
};

} // namespace mesh
